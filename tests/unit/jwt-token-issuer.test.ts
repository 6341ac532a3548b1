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

/** A token signed with the issuer's own secret, with these claims and options: only what the issuer checks beyond the signature can refuse it. */
const signed = (claims: Record<string, unknown>, options: jwt.SignOptions = {}): string =>
  jwt.sign({ sub: 'user-1', role: 'user', sid: 'family-1', jti: 'token-1', iat: START / 1000, exp: START / 1000 + 60, ...claims }, SECRET, { algorithm: 'HS256', issuer: 'iss', audience: 'aud', ...options });

test('the claims checked beyond the signature: a well-formed token passes, one with another issuer, audience or HMAC algorithm does not', (t) => {
  const issuer = issuerAt({ ms: START });
  t.like(issuer.verifyAccessToken(signed({})), { userId: 'user-1', role: 'user', sessionId: 'family-1', tokenId: 'token-1' }, 'the baseline passes');
  t.is(issuer.verifyAccessToken(signed({}, { issuer: 'another-service' })), null, 'another issuer');
  t.is(issuer.verifyAccessToken(signed({}, { audience: 'another-audience' })), null, 'another audience');
  // The same secret under HS384/HS512: only HS256 is ours, so a token minted elsewhere with the shared secret is not taken.
  t.is(issuer.verifyAccessToken(signed({}, { algorithm: 'HS384' })), null, 'HS384');
  t.is(issuer.verifyAccessToken(signed({}, { algorithm: 'HS512' })), null, 'HS512');
});

test('a correctly signed token without an expiry, a subject, a token id or a known role is refused, on first sight and after', (t) => {
  const issuer = issuerAt({ ms: START });
  // jsonwebtoken accepts a token without exp as never expiring: the issuer must not.
  const cases: [string, string][] = [
    ['no exp', jwt.sign({ sub: 'user-1', role: 'user', sid: 'family-1', jti: 'token-1', iat: START / 1000 }, SECRET, { algorithm: 'HS256', issuer: 'iss', audience: 'aud' })],
    ['no sub', signed({ sub: undefined })],
    ['numeric sub', signed({ sub: 42 })],
    ['no jti', signed({ jti: undefined })],
    ['role owner', signed({ role: 'owner' })],
    ['no role', signed({ role: undefined })],
  ];
  for (const [label, token] of cases) {
    t.is(issuer.verifyAccessToken(token), null, label);
    t.is(issuer.verifyAccessToken(token), null, `${label}, again`);
  }
  t.like(issuer.verifyAccessToken(signed({ role: 'admin', sid: undefined })), { role: 'admin', sessionId: null }, 'an admin token without sid passes, with no session');
});

// Pins ADR 026's memory of verified tokens: a token's signature is checked once while it is remembered, and at most
// 10,000 are remembered (the oldest forgotten first).
test('a verified token is remembered: its signature is checked once; at most 10,000 are remembered, the oldest forgotten', (t) => {
  const clock = { ms: START };
  const issuer = issuerAt(clock);
  const checks: string[] = [];
  const verify = (issuer as unknown as { verify: (token: string, now: number) => unknown }).verify.bind(issuer);
  (issuer as unknown as { verify: (token: string, now: number) => unknown }).verify = (token, now) => (checks.push(token), verify(token, now));
  const tokens = Array.from({ length: 10_001 }, (_, i) => issuer.issueAccessToken({ id: `user-${i}`, role: 'user' }, `family-${i}`).token);
  t.truthy(issuer.verifyAccessToken(tokens[0]!));
  t.truthy(issuer.verifyAccessToken(tokens[0]!));
  t.is(checks.length, 1, 'checked once');
  for (const token of tokens.slice(1)) issuer.verifyAccessToken(token);
  t.is((issuer as unknown as { verified: Map<string, unknown> }).verified.size, 10_000);
  checks.length = 0;
  t.truthy(issuer.verifyAccessToken(tokens[10_000]!));
  t.truthy(issuer.verifyAccessToken(tokens[0]!));
  t.deepEqual(checks, [tokens[0]], 'the newest is still remembered; the oldest was forgotten and is checked again');
});
