import test from 'ava';
import { COMMON_PASSWORDS } from '../../core/domain/common-passwords.ts';
import { isCommonPassword, weakPasswordReason } from '../../core/domain/password-policy.ts';

test('the shipped list holds a few thousand entries, lower-cased', (t) => {
  t.true(COMMON_PASSWORDS.size > 5000, `${COMMON_PASSWORDS.size}`);
  for (const word of COMMON_PASSWORDS) t.is(word, word.toLowerCase());
});

test('common and breached passwords are refused, also with a suffix or l33t spelling', (t) => {
  for (const password of ['password', 'Password', '12345678', 'iloveyou', 'qwertyuiop', 'P@ssw0rd', 'Dragon1987!', 'football2024', 'letmein!!', 'trustno1', 'Sunshine123', '1q2w3e4r5t']) {
    t.true(isCommonPassword(password), password);
    t.regex(weakPasswordReason(password) ?? '', /common|repetitive/, password);
  }
});

test('whitespace-only and trivially repetitive passwords are refused', (t) => {
  t.is(weakPasswordReason('        '), 'must not be only whitespace');
  t.is(weakPasswordReason(' \t \n    '), 'must not be only whitespace');
  for (const password of ['pppppppp', 'abababab', 'abcabcabc', 'xyzxyzxyzxyz', 'abcdefgh', '98765432', 'aabbaabb', 'zzzzzzzzzzzzzzzzzzzz']) {
    t.is(weakPasswordReason(password), 'is too repetitive or a simple sequence', password);
  }
});

test('ordinary passphrases and random passwords pass', (t) => {
  for (const password of ['correct horse battery', 'kx7-Vumo', 'dragonfly over the pond', 'Tr4nsistor radio 1962', 'monkey island forever', 'zq8#Lp2!vN']) {
    t.is(weakPasswordReason(password), null, password);
  }
});
