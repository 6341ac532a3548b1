import type { CommonPasswords } from './common-passwords.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './user.ts';

const LEET: Record<string, string> = { '@': 'a', '4': 'a', '3': 'e', '1': 'i', '!': 'i', '0': 'o', '$': 's', '5': 's', '7': 't' };

/** Listed, or listed once a trailing run of digits and symbols is cut off or l33t spelling undone. */
export function isCommonPassword(password: string, common: CommonPasswords): boolean {
  const lower = password.trim().toLowerCase();
  const stem = lower.replace(/[\d\W_]+$/u, '');
  const unleet = (text: string) => text.replace(/[@4310!$57]/g, (c) => LEET[c]!);
  return [lower, stem, unleet(lower), unleet(lower).replace(/[\d\W_]+$/u, '')].some((candidate) => candidate.length >= 3 && common.has(candidate));
}

/** A run of characters whose codes go up (or down) by one: "12345678", "abcdefgh", "98765432". */
function isSequence(text: string): boolean {
  const step = text.charCodeAt(1) - text.charCodeAt(0);
  if (step !== 1 && step !== -1) return false;
  for (let i = 2; i < text.length; i++) if (text.charCodeAt(i) - text.charCodeAt(i - 1) !== step) return false;
  return true;
}

/** A unit of at most half the length repeated to fill it: "aaaaaaaa", "abababab", "abcabcab". */
function isRepetition(text: string): boolean {
  for (let unit = 1; unit <= text.length / 2; unit++) {
    let repeats = true;
    for (let i = unit; i < text.length && repeats; i++) repeats = text[i] === text[i % unit];
    if (repeats) return true;
  }
  return false;
}

/** Why a new password is refused (its length, or a common, repetitive or blank one), or null: at sign-up, change and reset. */
export function passwordProblem(password: unknown, commonPasswords: CommonPasswords): string | null {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;
  return weakPasswordReason(password, commonPasswords);
}

/** Why a password of acceptable length is refused, or null. `common`: the breached passwords to refuse (see common-passwords.ts). */
export function weakPasswordReason(password: string, common: CommonPasswords): string | null {
  if (password.trim().length === 0) return 'must not be only whitespace';
  const folded = password.toLowerCase();
  if (new Set(folded).size < 3 || isRepetition(folded) || isSequence(folded)) return 'is too repetitive or a simple sequence';
  if (isCommonPassword(password, common)) return 'is too common (it appears in lists of breached passwords)';
  return null;
}
