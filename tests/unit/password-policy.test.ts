import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { COMMON_PASSWORDS_FILE, readCommonPasswords, shippedCommonPasswords } from '../../adapters/system/common-password-file.ts';
import { parseCommonPasswords } from '../../core/domain/common-passwords.ts';
import { isCommonPassword, weakPasswordReason } from '../../core/domain/password-policy.ts';

const COMMON_PASSWORDS = shippedCommonPasswords();
const weak = (password: string) => weakPasswordReason(password, COMMON_PASSWORDS);

test('the shipped list holds a few thousand entries, one lower-cased password per line', (t) => {
  t.true(COMMON_PASSWORDS.size > 5000, `${COMMON_PASSWORDS.size}`);
  const lines = readFileSync(COMMON_PASSWORDS_FILE, 'utf8').split('\n').filter((line) => line.length > 0);
  t.is(lines.length, COMMON_PASSWORDS.size, 'no duplicates');
  for (const line of lines) t.is(line, line.trim().toLowerCase());
  t.is(shippedCommonPasswords(), COMMON_PASSWORDS, 'read once');
});

test('a list file: one password per line, blank lines and surrounding spaces ignored; an empty one is refused', (t) => {
  t.deepEqual([...parseCommonPasswords('alpha\r\n\n  beta  \ngamma\n')], ['alpha', 'beta', 'gamma']);
  const dir = mkdtempSync(path.join(tmpdir(), 'common-passwords-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'empty.txt'), '\n\n');
  t.throws(() => readCommonPasswords(path.join(dir, 'empty.txt')), { message: /is empty/ });
  t.false(isCommonPassword('password', new Set(['dragon'])), 'only the list it is given');
});

test('common and breached passwords are refused, also with a suffix or l33t spelling', (t) => {
  for (const password of ['password', 'Password', '12345678', 'iloveyou', 'qwertyuiop', 'P@ssw0rd', 'Dragon1987!', 'football2024', 'letmein!!', 'trustno1', 'Sunshine123', '1q2w3e4r5t']) {
    t.true(isCommonPassword(password, COMMON_PASSWORDS), password);
    t.regex(weak(password) ?? '', /common|repetitive/, password);
  }
  // Listed only once the l33t spelling is undone ('sunshine', 'dragon'), then also once the suffix is cut ('football', 'sunshine').
  for (const password of ['sun5h1ne', 'dr4g0n', 'f00tb4ll88', 'sun5h1ne99']) {
    t.false(COMMON_PASSWORDS.has(password.toLowerCase()), `${password} is not listed as spelled`);
    t.true(isCommonPassword(password, COMMON_PASSWORDS), password);
    t.is(weak(password), 'is too common (it appears in lists of breached passwords)', password);
  }
});

test('whitespace-only and trivially repetitive passwords are refused', (t) => {
  t.is(weak('        '), 'must not be only whitespace');
  t.is(weak(' \t \n    '), 'must not be only whitespace');
  for (const password of ['pppppppp', 'abababab', 'abcabcabc', 'xyzxyzxyzxyz', 'abcdefgh', '98765432', 'aabbaabb', 'zzzzzzzzzzzzzzzzzzzz']) {
    t.is(weak(password), 'is too repetitive or a simple sequence', password);
  }
  // Two distinct characters in no repeating pattern and no sequence: refused for the few characters alone.
  for (const password of ['abbaabab', 'x1x11x1x1']) {
    t.is(weak(password), 'is too repetitive or a simple sequence', password);
  }
});

test('ordinary passphrases and random passwords pass', (t) => {
  for (const password of ['correct horse battery', 'kx7-Vumo', 'dragonfly over the pond', 'Tr4nsistor radio 1962', 'monkey island forever', 'zq8#Lp2!vN']) {
    t.is(weak(password), null, password);
  }
  // Pins that a sequence steps by exactly one: letters two apart, or a run that changes step, are not one.
  for (const password of ['acegikmoqs', 'zxvtrpnljh', 'abcdefgi']) t.is(weak(password), null, password);
});
