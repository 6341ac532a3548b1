/**
 * Passwords that appear at the top of every breach corpus, lower-cased: common words and names, keyboard
 * walks, digit runs and years, and the common words with the suffixes people add (1, 123, !, a year).
 * Compiled for this service from the well-known top lists; checked offline (no network at sign-up).
 * `isCommonPassword` also strips a trailing run of digits and symbols and undoes simple l33t spelling, so
 * "Dragon1987!" and "p@ssw0rd" are caught by "dragon" and "password".
 *
 * The list is data, not code: `common-passwords.txt` beside this file, one password per line. The core
 * does no I/O: the process reads the file once (adapters/system/common-password-file.ts) and hands the set
 * to the use cases that check passwords; an integrator may read it the same way or pass a list of their own.
 */
export type CommonPasswords = ReadonlySet<string>;

/** One password per line; blank lines and the whitespace around a line are ignored. */
export function parseCommonPasswords(text: string): CommonPasswords {
  return new Set(text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length > 0));
}
