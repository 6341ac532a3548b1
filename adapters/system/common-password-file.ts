/** The shipped list of breached passwords (core/domain/common-passwords.txt), read from disk once per process. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCommonPasswords, type CommonPasswords } from '../../core/domain/common-passwords.ts';

export const COMMON_PASSWORDS_FILE = fileURLToPath(new URL('../../core/domain/common-passwords.txt', import.meta.url));

let shipped: CommonPasswords | null = null;

/** A list file: one password per line. An empty one is refused: it would quietly let every password through. */
export function readCommonPasswords(file: string): CommonPasswords {
  const list = parseCommonPasswords(readFileSync(file, 'utf8'));
  if (list.size === 0) throw new Error(`the common-password list ${file} is empty`);
  return list;
}

/** The shipped list; a missing or empty file fails the start. */
export function shippedCommonPasswords(): CommonPasswords {
  shipped ??= readCommonPasswords(COMMON_PASSWORDS_FILE);
  return shipped;
}
