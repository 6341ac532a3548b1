import test from 'ava';
import jwt from 'jsonwebtoken';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';

const SECRET = 'unit-test-secret-that-is-long-enough-for-hs256-0';
const START = Date.parse('2026-01-01T00:00:00.000Z');

function issuerAt(clock: { ms: number }, secret = SECRET) {
  return new JwtTokenIssuer({ secret, issuer: 'iss', audience: 'aud', accessTokenTtlSeconds: 60, now: () => clock.ms });
}

test('a token verified once is refused from the second its expiry is reached, however often it was verified before', (t) => {
  const clock = { ms: START };
  const issuer = issuerAt(clock);
  const { token, tokenId } = issuer.issueAccessToken({ id: 'user-1', role: 'user' }, 'family-1');
  t.is(issuer.verifyAccessToken(token)?.tokenId, tokenId);
  clock.ms = START + 59_999;
  t.is(issuer.verifyAccessToken(token)?.tokenId, tokenId, 'still valid in its last second');
  clock.ms = START + 60_000;
  t.is(issuer.verifyAccessToken(token), null, 'expired, although verified before');
  t.is(issuer.verifyAccessToken(token), null);
  clock.ms = START;
  t.is(issuer.verifyAccessToken(token)?.tokenId, tokenId, 'dropped from memory, verified again on its own terms');
});

test('a verified token does not vouch for another text: a changed payload or signature, or another key, is refused', (t) => {
  const clock = { ms: START };
  const issuer = issuerAt(clock);
  const { token } = issuer.issueAccessToken({ id: 'user-1', role: 'user' }, 'family-1');
  t.truthy(issuer.verifyAccessToken(token));
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const promoted = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
  t.is(issuer.verifyAccessToken(`${header}.${promoted}.${signature}`), null, 'payload changed');
  t.is(issuer.verifyAccessToken(`${header}.${payload}.${signature.slice(0, -2)}AA`), null, 'signature changed');
  t.is(issuerAt(clock, `${SECRET}-other`).verifyAccessToken(token), null, 'another key');
  const unsigned = jwt.sign({ ...claims }, '', { algorithm: 'none' });
  t.is(issuer.verifyAccessToken(unsigned), null, 'alg none');
});
