import test from 'ava';
import { newXsrfToken } from '../../adapters/http/cookies.ts';

test('XSRF tokens: 32 base64url characters (24 random bytes), never the same twice, across many refills of the random pool', (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 2_000; i++) {
    const token = newXsrfToken();
    t.regex(token, /^[A-Za-z0-9_-]{32}$/);
    seen.add(token);
  }
  t.is(seen.size, 2_000);
});
