/**
 * The guards of the small auth and social use cases on the in-memory adapters: reading a profile or the
 * linked identities of a user who is gone, promoting by email, starting an OIDC login at a provider that is
 * down, the records a pending login or connection must hold to be taken, how a session is stored, and the
 * publications of an output (its owner only, its id in any case).
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { OidcProviders } from '../../core/ports/oidc-providers.port.ts';
import { GetProfile } from '../../core/use-cases/auth/get-profile.use-case.ts';
import { ListIdentities } from '../../core/use-cases/auth/list-identities.use-case.ts';
import { PendingLogins } from '../../core/use-cases/auth/oidc-pending-logins.service.ts';
import { PromoteUser } from '../../core/use-cases/auth/promote-user.use-case.ts';
import { issueSession } from '../../core/use-cases/auth/session-tokens.service.ts';
import { StartOidcLogin } from '../../core/use-cases/auth/start-oidc-login.use-case.ts';
import { ListPublications } from '../../core/use-cases/social/list-publications.use-case.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { ManageConnections } from '../../core/use-cases/social/manage-connections.service.ts';
import { UnlinkIdentity } from '../../core/use-cases/auth/unlink-identity.use-case.ts';
import { reserveAttempt } from '../../core/use-cases/auth/attempt-limits.service.ts';
import { AesGcmTokenCipher } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import type { Cache } from '../../core/ports/cache.port.ts';
import type { SocialPlatformClient, SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { PendingConnections } from '../../core/use-cases/social/pending-connections.service.ts';
import { at, newPublication, videoOutput } from '../contract/fixtures.ts';

const NOW = new Date('2031-07-01T12:00:00.000Z');
const clock = { now: () => NOW };

function world() {
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const repos = uow.autocommit;
  const addUser = async (email: string, passwordHash: string | null) => {
    const id = randomUUID();
    await repos.users.create({ id, email, displayName: 'Someone', role: 'user', passwordHash, createdAt: NOW });
    return id;
  };
  return { store, repos, addUser };
}

test('the profile of a user who no longer exists is AUTH.UNAUTHENTICATED', async (t) => {
  const w = world();
  const id = await w.addUser(`p-${randomUUID()}@example.com`, null);
  const profile = new GetProfile({ users: w.repos.users });
  t.like(await profile.execute({ userId: id }), { ok: true, value: { id, role: 'user' } });
  w.store.users.delete(id);
  t.deepEqual(await profile.execute({ userId: id }), { ok: false, code: 'AUTH.UNAUTHENTICATED', message: 'The account no longer exists' });
});

test('linked identities: NOT_FOUND for a user who is gone; hasPassword only for a user with a password', async (t) => {
  const w = world();
  const list = new ListIdentities({ users: w.repos.users, identities: w.repos.identities });
  const withPassword = await w.addUser(`pw-${randomUUID()}@example.com`, 'scrypt$hash');
  const passwordless = await w.addUser(`oidc-${randomUUID()}@example.com`, null);
  await w.repos.identities.link({ userId: passwordless, provider: 'acme', subject: 's-1', email: null, createdAt: NOW });
  t.deepEqual(await list.execute({ userId: withPassword }), { ok: true, value: { hasPassword: true, identities: [] } });
  t.like(await list.execute({ userId: passwordless }), { ok: true, value: { hasPassword: false, identities: [{ provider: 'acme', subject: 's-1' }] } });
  t.like(await list.execute({ userId: randomUUID() }), { ok: false, code: 'NOT_FOUND' });
});

test('promote finds the user by a trimmed, lowercased email, stores the role, and answers no password hash', async (t) => {
  const w = world();
  const local = `boss-${randomUUID()}`;
  const id = await w.addUser(`${local}@example.com`, 'scrypt$hash');
  const promote = new PromoteUser({ users: w.repos.users, clock });
  const result = await promote.execute({ email: `  ${local.toUpperCase()}@EXAMPLE.com ` });
  t.like(result, { ok: true, value: { id, role: 'admin' } });
  if (result.ok) t.false('passwordHash' in result.value, 'no password hash in the answer');
  t.like(await w.repos.users.findById(id), { role: 'admin' });
  t.like(await promote.execute({ email: 'nobody@example.com' }), { ok: false, code: 'NOT_FOUND' });
});

test('an OIDC login at a provider that cannot be reached is UPSTREAM.FAILED, not an error', async (t) => {
  const providers: OidcProviders = {
    has: (provider) => provider === 'down',
    begin: async () => {
      throw new Error('discovery failed: ECONNREFUSED');
    },
    complete: async () => ({ ok: false, cause: 'unused' }),
  };
  const start = new StartOidcLogin({ providers, pending: new PendingLogins(new MemoryCache()) });
  t.deepEqual(await start.execute({ provider: 'down' }), { ok: false, code: 'UPSTREAM.FAILED', message: 'The provider "down" could not be reached: discovery failed: ECONNREFUSED' });
  t.like(await start.execute({ provider: 'elsewhere' }), { ok: false, code: 'AUTH.UNKNOWN_PROVIDER' });
});

test('a pending login is taken only with every secret present and non-empty', async (t) => {
  const pending = new PendingLogins(new MemoryCache());
  const full = { nonce: 'n-1', codeVerifier: 'v-1', provider: 'acme', linkUserId: null };
  const state = `st-${randomUUID()}`;
  await pending.save({ state, ...full });
  t.deepEqual(await pending.take(state), { state, ...full });
  for (const [field, value] of [
    ['nonce', ''],
    ['nonce', undefined],
    ['codeVerifier', ''],
    ['provider', ''],
    ['provider', 7],
  ] as const) {
    const broken = `st-${randomUUID()}`;
    await pending.save({ state: broken, ...full, [field]: value } as never);
    t.is(await pending.take(broken), null, `${field}: ${JSON.stringify(value)}`);
  }
});

test('a pending connection is taken only with its user and platform', async (t) => {
  const pending = new PendingConnections(new MemoryCache());
  const state = `st-${randomUUID()}`;
  await pending.save({ state, userId: 'u-1', platform: 'YOUTUBE', codeVerifier: null });
  t.deepEqual(await pending.take(state), { state, userId: 'u-1', platform: 'YOUTUBE', codeVerifier: null });
  for (const [field, value] of [
    ['userId', undefined],
    ['userId', 42],
    ['platform', undefined],
  ] as const) {
    const broken = `st-${randomUUID()}`;
    await pending.save({ state: broken, userId: 'u-1', platform: 'YOUTUBE', codeVerifier: null, [field]: value } as never);
    t.is(await pending.take(broken), null, `${field}: ${JSON.stringify(value)}`);
  }
});

test('a session stores only the hash of its refresh token, in its family, until now plus the refresh lifetime', async (t) => {
  const w = world();
  const userId = await w.addUser(`s-${randomUUID()}@example.com`, null);
  const user = (await w.repos.users.findById(userId))!;
  const tokens = new JwtTokenIssuer({ secret: 'k'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 900 });
  const session = await issueSession({ tokens, ids: { newId: () => randomUUID() }, clock, refreshTokenTtlSeconds: 7 * 24 * 3600 }, w.repos.sessions, user, 'family-1');
  t.is(session.refreshTokenExpiresAt.toISOString(), '2031-07-08T12:00:00.000Z');
  const rows = [...w.store.sessions.values()];
  t.is(rows.length, 1);
  t.like(rows[0], { userId, familyId: 'family-1', tokenHash: tokens.hashOpaqueToken(session.refreshToken), expiresAt: new Date('2031-07-08T12:00:00.000Z') });
  t.not(rows[0]!.tokenHash, session.refreshToken);
  t.like(tokens.verifyAccessToken(session.accessToken), { userId, sessionId: 'family-1' });
});

test("publications: the owner reads them by the output id in any case; another user's output is NOT_FOUND", async (t) => {
  const w = world();
  const { userId, outputId } = await videoOutput(w.repos);
  await w.repos.publications.request(newPublication(outputId, userId, { updatedAt: at(5) }));
  const list = new ListPublications({ history: w.repos.history, publications: w.repos.publications });
  const expected = { ok: true, value: [{ platform: 'YOUTUBE', status: 'pending', updatedAt: at(5).toISOString() }] };
  t.deepEqual(await list.execute({ userId, outputId }), expected);
  t.deepEqual(await list.execute({ userId, outputId: outputId.toUpperCase() }), expected);
  t.like(await list.execute({ userId: randomUUID(), outputId }), { ok: false, code: 'NOT_FOUND' });
  t.like(await list.execute({ userId, outputId: 'not-a-uuid' }), { ok: false, code: 'NOT_FOUND' });
});

test('disconnecting a platform name we do not support is NOT_FOUND; one we support but never connected is done, revoking nothing', async (t) => {
  const w = world();
  const revoked: string[] = [];
  const youtube = { platform: 'YOUTUBE', revoke: async (token: string) => void revoked.push(token) } as unknown as SocialPlatformClient;
  const platforms: SocialPlatforms = { get: (platform) => (platform === 'YOUTUBE' ? youtube : null), configured: () => ['YOUTUBE'] };
  const cipher = new AesGcmTokenCipher([{ id: 'k1', key: Buffer.alloc(32, 3) }]);
  const manage = new ManageConnections({
    platforms,
    connections: w.repos.connections,
    tokens: new ConnectionTokens({ connections: w.repos.connections, cipher, platforms, clock, logger: quietLogger }),
    logger: quietLogger,
  });
  const userId = await w.addUser(`d-${randomUUID()}@example.com`, null);
  t.deepEqual(await manage.disconnect({ userId, platform: 'myspace' }), { ok: false, code: 'NOT_FOUND', message: 'No social platform named "myspace" (supported: YOUTUBE, TIKTOK)' });
  t.deepEqual(await manage.disconnect({ userId, platform: 'youtube' }), { ok: true, value: undefined });
  t.deepEqual(revoked, []);
});

test('unlinking: the last identity of a user without a password, or of a user who is gone, is CONFLICT', async (t) => {
  const w = world();
  const unlink = new UnlinkIdentity({ uow: new MemoryUnitOfWork(w.store) });
  const passwordless = await w.addUser(`u-${randomUUID()}@example.com`, null);
  await w.repos.identities.link({ userId: passwordless, provider: 'acme', subject: `s-${randomUUID()}`, email: null, createdAt: NOW });
  t.like(await unlink.execute({ userId: passwordless, provider: 'acme' }), { ok: false, code: 'CONFLICT' });
  w.store.users.delete(passwordless);
  t.like(await unlink.execute({ userId: passwordless, provider: 'acme' }), { ok: false, code: 'CONFLICT' });
  t.is((await w.repos.identities.listForUser(passwordless)).length, 1);
});

test('a refused attempt is told to wait at least a second, even at the very end of its window', async (t) => {
  const cache = { increment: async () => ({ count: 2, ttlSeconds: 0 }), decrement: async () => undefined } as unknown as Cache;
  t.deepEqual(await reserveAttempt(cache, [{ key: 'k', max: 1 }], 60), { ok: false, retryAfterSeconds: 1 });
});
