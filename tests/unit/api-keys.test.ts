/**
 * API keys on the in-memory adapters with a clock of the test's own: what a key is worth at each moment
 * (expiry, revocation, deleted user, demotion), the digest check, the per-key rate and the once-a-minute last use.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { API_KEY_MARK, prefixOf, sameDigest } from '../../core/domain/api-key.ts';
import type { User } from '../../core/domain/user.ts';
import { AuthenticateApiKey } from '../../core/use-cases/api-keys/authenticate-api-key.use-case.ts';
import { CreateApiKey } from '../../core/use-cases/api-keys/create-api-key.use-case.ts';
import { RevokeApiKey } from '../../core/use-cases/api-keys/manage-api-keys.use-case.ts';

const T0 = Date.parse('2031-05-01T10:00:00.000Z');

async function world(role: 'user' | 'admin' = 'user', rate = 5) {
  let now = T0;
  const clock = { now: () => new Date(now) };
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const repos = uow.autocommit;
  const tokens = new JwtTokenIssuer({ secret: 'x'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 });
  const ids = { newId: () => randomUUID() };
  const id = randomUUID();
  await repos.users.create({ id, email: `${id}@example.com`, displayName: 'K', role, passwordHash: null, createdAt: clock.now() });
  const user = (await repos.users.findById(id)) as User;
  const authenticate = new AuthenticateApiKey({ apiKeys: repos.apiKeys, users: repos.users, tokens, clock, cache: new MemoryCache(() => now), requestsPerMinute: rate });
  const create = new CreateApiKey({ uow, ids, clock, tokens });
  const mint = async (scopes: string[], expiresAt?: string) => {
    const made = await create.execute({ user, name: 'k', scopes, expiresAt });
    if (!made.ok) throw new Error(made.message);
    return made.value;
  };
  /** Revocations told to the sockets (SessionRevocations.keyRevoked), as `userId:keyId`. */
  const announced: string[] = [];
  const revocations = { keyRevoked: async (userId: string, keyId: string) => void announced.push(`${userId}:${keyId}`) };
  return { store, repos, user, authenticate, mint, revoke: new RevokeApiKey({ uow, ids, clock, revocations }), announced, advance: (ms: number) => void (now += ms), create };
}

test('a fresh key authenticates as its user with its scopes; a key of the same prefix with another secret does not', async (t) => {
  const w = await world();
  const { key } = await w.mint(['generate', 'history']);
  const outcome = await w.authenticate.execute(key);
  t.true(outcome.ok);
  if (outcome.ok) {
    t.is(outcome.principal.userId, w.user.id);
    t.deepEqual(outcome.key.scopes, ['generate', 'history']);
  }
  const last = key.at(-1) === 'A' ? 'B' : 'A';
  t.like(await w.authenticate.execute(`${key.slice(0, -1)}${last}`), { ok: false, code: 'AUTH.UNAUTHENTICATED' });
  t.like(await w.authenticate.execute('mgs_tooshort'), { ok: false, code: 'AUTH.UNAUTHENTICATED' });
});

test('a key is refused from the moment it expires', async (t) => {
  const w = await world();
  const { key } = await w.mint(['generate'], new Date(T0 + 60_000).toISOString());
  w.advance(59_999);
  t.true((await w.authenticate.execute(key)).ok);
  w.advance(1);
  t.like(await w.authenticate.execute(key), { ok: false, code: 'AUTH.UNAUTHENTICATED', message: 'API key has expired' });
});

test('a revoked key is refused at once; revoking it again or revoking from another user is NOT_FOUND', async (t) => {
  const w = await world();
  const { key, apiKey } = await w.mint(['generate']);
  t.like(await w.revoke.execute({ userId: randomUUID(), keyId: apiKey.id }), { ok: false, code: 'NOT_FOUND' });
  t.true((await w.authenticate.execute(key)).ok);
  t.true((await w.revoke.execute({ userId: w.user.id, keyId: apiKey.id })).ok);
  t.like(await w.authenticate.execute(key), { ok: false, message: 'API key has been revoked' });
  t.like(await w.revoke.execute({ userId: w.user.id, keyId: apiKey.id }), { ok: false, code: 'NOT_FOUND' });
  t.deepEqual(w.announced, [`${w.user.id}:${apiKey.id}`], "the key's sockets are told once, after the revoke that happened");
});

test('a key whose user no longer exists is refused', async (t) => {
  const w = await world();
  const { key } = await w.mint(['generate']);
  w.store.users.delete(w.user.id);
  t.like(await w.authenticate.execute(key), { ok: false, code: 'AUTH.UNAUTHENTICATED' });
});

test('the admin scope lasts only while the user is an administrator; a non-admin cannot mint it', async (t) => {
  const admin = await world('admin');
  const { key } = await admin.mint(['admin', 'generate']);
  t.like(await admin.authenticate.execute(key), { ok: true, key: { scopes: ['admin', 'generate'] } });
  await admin.repos.users.setRole(admin.user.id, 'user', new Date(T0));
  t.like(await admin.authenticate.execute(key), { ok: true, key: { scopes: ['generate'] } });
  const user = await world('user');
  t.like(await user.create.execute({ user: user.user, name: 'x', scopes: ['admin'] }), { ok: false, code: 'AUTH.FORBIDDEN' });
});

test('each key makes `requestsPerMinute` requests in its window, then RATE_LIMITED with the seconds left; the next window is open', async (t) => {
  const w = await world('user', 3);
  const { key } = await w.mint(['generate']);
  for (let i = 0; i < 3; i += 1) t.true((await w.authenticate.execute(key)).ok, `request ${i + 1}`);
  w.advance(20_000);
  t.like(await w.authenticate.execute(key), { ok: false, code: 'RATE_LIMITED', retryAfterSeconds: 40 });
  w.advance(40_000);
  t.true((await w.authenticate.execute(key)).ok);
});

test('the last use is written at most once a minute', async (t) => {
  const w = await world('user', 100);
  const { key, apiKey } = await w.mint(['generate']);
  const lastUsed = async () => (await w.repos.apiKeys.findByPrefix(apiKey.prefix))?.lastUsedAt?.getTime() ?? null;
  await w.authenticate.execute(key);
  t.is(await lastUsed(), T0);
  w.advance(59_000);
  await w.authenticate.execute(key);
  t.is(await lastUsed(), T0, 'within the minute');
  w.advance(1_000);
  await w.authenticate.execute(key);
  t.is(await lastUsed(), T0 + 60_000);
});

test('only the hash is stored and the create and revoke are audited', async (t) => {
  const w = await world();
  const { key, apiKey } = await w.mint(['history']);
  const stored = await w.repos.apiKeys.findByPrefix(apiKey.prefix);
  t.regex(stored!.secretHash, /^[0-9a-f]{64}$/);
  t.false(JSON.stringify(stored).includes(key.slice(16)));
  await w.revoke.execute({ userId: w.user.id, keyId: apiKey.id });
  t.deepEqual((await w.repos.audit.list({ page: 1, limit: 10 })).items.map((e) => e.action), ['api-key.revoke', 'api-key.create']);
});

// Pins what cannot be one of our keys: too short for a prefix and a 32-character secret. It is refused without a read
// of the key table, so guessing costs the database nothing.
test('a key too short to hold a secret, or without the mark, is refused without a read of the key table', async (t) => {
  const { repos, authenticate, mint } = await world();
  const { key } = await mint(['generate']);
  const reads: string[] = [];
  const counting = Object.assign(Object.create(repos.apiKeys) as typeof repos.apiKeys, { findByPrefix: async (prefix: string) => (reads.push(prefix), repos.apiKeys.findByPrefix(prefix)) });
  const guarded = new AuthenticateApiKey({ apiKeys: counting, users: repos.users, tokens: new JwtTokenIssuer({ secret: 'x'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 }), clock: { now: () => new Date(T0) }, cache: new MemoryCache(() => T0), requestsPerMinute: 5 });
  const shortened = key.slice(0, API_KEY_MARK.length + 12 + 31);
  t.is(prefixOf(shortened), null);
  t.is(prefixOf(key.slice(0, API_KEY_MARK.length + 12 + 32)), key.slice(0, API_KEY_MARK.length + 12));
  t.like(await guarded.execute(shortened), { ok: false });
  t.like(await guarded.execute(`xx${key.slice(2)}`), { ok: false });
  t.deepEqual(reads, []);
  t.like(await authenticate.execute(key), { ok: true });
});

// Pins that digests of different lengths never compare equal, the empty one included.
test('sameDigest: equal only for the same text; a prefix, an extension or the empty text is not the same', (t) => {
  t.true(sameDigest('ab12', 'ab12'));
  t.false(sameDigest('', 'ab12'));
  t.false(sameDigest('ab1', 'ab12'));
  t.false(sameDigest('ab12', 'ab1'));
  t.false(sameDigest('ab12', 'ab13'));
});
