/**
 * The account use cases' guards on the in-memory adapters (ADR 062): what the HTTP tests cannot reach there, an
 * account made through an identity provider, a link that expires while its password is hashed, a made-up token
 * that must cost no hashing, and a link made for a user who is gone.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemorySessionRepository } from '../../adapters/memory/memory-session-repository.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { SESSION_CHANNEL, type SessionRevoked } from '../../core/ports/user-events.port.ts';
import type { PasswordHasher } from '../../core/ports/password-hasher.port.ts';
import { ChangePassword } from '../../core/use-cases/auth/change-password.use-case.ts';
import { IssuePasswordReset } from '../../core/use-cases/auth/issue-password-reset.use-case.ts';
import { ResetPassword } from '../../core/use-cases/auth/reset-password.use-case.ts';
import { SessionRevocations } from '../../core/use-cases/auth/session-revocations.service.ts';
import { UpdateProfile } from '../../core/use-cases/auth/update-profile.use-case.ts';
import { quietLogger } from '../support/generation-harness.ts';

const T0 = Date.parse('2031-07-01T12:00:00.000Z');
const NEW_PASSWORD = 'a brand new passphrase 9';

function world() {
  let now = T0;
  const clock = { now: () => new Date(now), advance: (ms: number) => (now += ms) };
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const repos = uow.autocommit;
  const hashed: string[] = [];
  /** Plain, and it records what it hashed; `during` runs while a hash is made (the time scrypt takes). */
  const hasher: PasswordHasher & { during?: () => void } = {
    async hash(password) {
      hashed.push(password);
      hasher.during?.();
      return `plain:${password}`;
    },
    async verify(password, hash) {
      return hash === `plain:${password}`;
    },
  };
  const tokens = new JwtTokenIssuer({ secret: 'x'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 });
  const bus = new InProcessEventBus();
  const announced: SessionRevoked[] = [];
  bus.subscribe(SESSION_CHANNEL, (notice) => void announced.push(notice as SessionRevoked));
  const revocations = new SessionRevocations({ sessions: repos.sessions, bus, clock, logger: quietLogger });
  const commonPasswords = new Set(['password']);
  const addUser = async (passwordHash: string | null) => {
    const id = randomUUID();
    const email = `${id}@example.com`;
    await repos.users.create({ id, email, displayName: 'Someone', role: 'user', passwordHash, createdAt: new Date(T0) });
    return { id, email };
  };
  const issue = new IssuePasswordReset({ uow, tokens, ids: { newId: randomUUID }, clock, frontendUrl: 'https://app.example/', ttlSeconds: 600 });
  const reset = new ResetPassword({ users: repos.users, uow, hasher, tokens, clock, revocations, commonPasswords });
  const change = new ChangePassword({
    users: repos.users,
    uow,
    hasher,
    cache: new MemoryCache(() => T0),
    clock,
    revocations,
    commonPasswords,
    limits: { perAccountAndAddress: 10, perAccount: 100, perAddress: 20, windowSeconds: 900 },
  });
  return { store, uow, repos, announced, clock, hasher, hashed, addUser, issue, reset, change };
}

const tokenOf = (url: string) => url.slice(url.indexOf('#token=') + '#token='.length);

test('an account without a password (made through an identity provider) cannot get one by a change: 409, nothing stored', async (t) => {
  const w = world();
  const user = await w.addUser(null);
  const result = await w.change.execute({ userId: user.id, email: user.email, sessionId: randomUUID(), currentPassword: 'anything at all', newPassword: NEW_PASSWORD, clientAddress: '10.0.0.1' });
  t.like(result, { ok: false, code: 'CONFLICT' });
  t.is(w.store.users.get(user.id)!.passwordHash, null);
  t.deepEqual(w.hashed, []);
});

test('a change for a user who is gone, or whose email now names another user, is NOT_FOUND', async (t) => {
  const w = world();
  const user = await w.addUser('plain:correct horse battery');
  const other = await w.addUser('plain:correct horse battery');
  const input = { sessionId: randomUUID(), currentPassword: 'correct horse battery', newPassword: NEW_PASSWORD, clientAddress: '10.0.0.1' };
  t.like(await w.change.execute({ ...input, userId: user.id, email: other.email }), { ok: false, code: 'NOT_FOUND' });
  t.is(w.store.users.get(other.id)!.passwordHash, 'plain:correct horse battery');
  w.store.users.delete(user.id);
  t.like(await w.change.execute({ ...input, userId: user.id, email: user.email }), { ok: false, code: 'NOT_FOUND' });
});

test('a reset link expires at its time; one that expires while the password is hashed changes nothing', async (t) => {
  const w = world();
  const user = await w.addUser('plain:old password here');
  const link = await w.issue.execute({ actorId: randomUUID(), userId: user.id });
  if (!link.ok) return t.fail();
  t.is(link.value.resetUrl.slice(0, 'https://app.example/reset-password#token='.length), 'https://app.example/reset-password#token=');
  t.is(link.value.expiresAt.getTime(), T0 + 600_000);
  w.hasher.during = () => w.clock.advance(600_000);
  const late = await w.reset.execute({ token: tokenOf(link.value.resetUrl), newPassword: NEW_PASSWORD });
  t.like(late, { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'token' }] });
  t.is(w.store.users.get(user.id)!.passwordHash, 'plain:old password here');
  w.hasher.during = undefined;
  const again = await w.reset.execute({ token: tokenOf(link.value.resetUrl), newPassword: NEW_PASSWORD });
  t.like(again, { ok: false, details: [{ field: 'token' }] }, 'and it stays expired');
});

test('a made-up or dead token is refused before any hashing', async (t) => {
  const w = world();
  const user = await w.addUser('plain:old password here');
  const link = await w.issue.execute({ actorId: randomUUID(), userId: user.id });
  if (!link.ok) return t.fail();
  for (const token of ['made-up', tokenOf(link.value.resetUrl).slice(1), '', 42]) {
    t.like(await w.reset.execute({ token, newPassword: NEW_PASSWORD }), { ok: false, details: [{ field: 'token' }] });
  }
  w.clock.advance(600_000);
  t.like(await w.reset.execute({ token: tokenOf(link.value.resetUrl), newPassword: NEW_PASSWORD }), { ok: false, details: [{ field: 'token' }] });
  t.deepEqual(w.hashed, []);
});

test('a link for a user who is gone is NOT_FOUND and leaves no audit entry; a link made is audited without its token', async (t) => {
  const w = world();
  const actorId = randomUUID();
  t.like(await w.issue.execute({ actorId, userId: randomUUID() }), { ok: false, code: 'NOT_FOUND' });
  t.is((await w.repos.audit.list({ page: 1, limit: 10 })).total, 0);
  const user = await w.addUser(null);
  const link = await w.issue.execute({ actorId, userId: user.id });
  if (!link.ok) return t.fail();
  const entries = (await w.repos.audit.list({ page: 1, limit: 10 })).items;
  t.like(entries, [{ actorId, action: 'user.password_reset_link', targetUserId: user.id, details: { expiresAt: new Date(T0 + 600_000).toISOString() } }]);
  t.false(JSON.stringify(entries).includes(tokenOf(link.value.resetUrl)));
  // A link sets a password on an account that had none: the administrator's way in for a forgotten provider.
  t.true((await w.reset.execute({ token: tokenOf(link.value.resetUrl), newPassword: NEW_PASSWORD })).ok);
  t.is(w.store.users.get(user.id)!.passwordHash, `plain:${NEW_PASSWORD}`);
});

test('a display name for a user who is gone is NOT_FOUND', async (t) => {
  const w = world();
  const update = new UpdateProfile({ users: w.repos.users, clock: w.clock });
  t.like(await update.execute({ userId: randomUUID(), displayName: 'Ghost' }), { ok: false, code: 'NOT_FOUND' });
});

/** The in-process bus delivers on a later turn of the event loop. */
const delivered = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Two logins of the user, and the sockets the bus was told to close. */
async function withLogins(w: ReturnType<typeof world>, userId: string) {
  const families = [randomUUID(), randomUUID()];
  for (const familyId of families) {
    await w.repos.sessions.create({ id: randomUUID(), userId, familyId, tokenHash: randomUUID(), expiresAt: new Date(T0 + 86_400_000), createdAt: new Date(T0) });
  }
  return families;
}

/**
 * Runs `work` with the memory adapter's revokeFamily failing after `succeeding` calls went through: a database that
 * fails between the password's write and the sessions' (or between two logins' revocations).
 */
async function withFailingRevocation<T>(work: () => Promise<T>, succeeding = 0): Promise<T> {
  const original = MemorySessionRepository.prototype.revokeFamily;
  let calls = 0;
  MemorySessionRepository.prototype.revokeFamily = async function (this: MemorySessionRepository, ...args) {
    if (++calls > succeeding) throw new Error('injected: the session table is unreachable');
    return original.apply(this, args);
  };
  try {
    return await work();
  } finally {
    MemorySessionRepository.prototype.revokeFamily = original;
  }
}

test.serial('a reset whose sessions cannot be ended sets no password and leaves the link usable; the retry ends them', async (t) => {
  const w = world();
  const user = await w.addUser('plain:old password here');
  const [first, second] = await withLogins(w, user.id);
  const link = await w.issue.execute({ actorId: null, userId: user.id });
  if (!link.ok) return t.fail();
  const token = tokenOf(link.value.resetUrl);
  await t.throwsAsync(withFailingRevocation(() => w.reset.execute({ token, newPassword: NEW_PASSWORD })), { message: /injected/ });
  t.is(w.store.users.get(user.id)!.passwordHash, 'plain:old password here', 'rolled back with the revocation');
  t.like(await w.repos.sessions.loginState(user.id, first!), { state: 'active' });
  // The first login revoked, the second one failing: all of it rolled back, and no socket closed for the first.
  await t.throwsAsync(withFailingRevocation(() => w.reset.execute({ token, newPassword: NEW_PASSWORD }), 2), { message: /injected/ });
  t.is(w.store.users.get(user.id)!.passwordHash, 'plain:old password here');
  for (const family of [first!, second!]) t.like(await w.repos.sessions.loginState(user.id, family), { state: 'active' });
  await delivered();
  t.deepEqual(w.announced, [], 'no socket closed for a login the rollback kept');
  t.true((await w.reset.execute({ token, newPassword: NEW_PASSWORD })).ok, 'the link still works');
  t.is(w.store.users.get(user.id)!.passwordHash, `plain:${NEW_PASSWORD}`);
  for (const family of [first!, second!]) t.like(await w.repos.sessions.loginState(user.id, family), { state: 'revoked' });
  await delivered();
  t.deepEqual(w.announced.map((notice) => notice.sessionId).sort(), [first!, second!].sort(), 'sockets closed after the commit only');
});

test.serial('a change whose other sessions cannot be ended keeps the old password; the retry ends them and keeps this one', async (t) => {
  const w = world();
  const user = await w.addUser('plain:old password here');
  const [mine, other] = await withLogins(w, user.id);
  const input = { userId: user.id, email: user.email, sessionId: mine!, currentPassword: 'old password here', newPassword: NEW_PASSWORD, clientAddress: '10.0.0.1' };
  await t.throwsAsync(withFailingRevocation(() => w.change.execute(input)), { message: /injected/ });
  t.is(w.store.users.get(user.id)!.passwordHash, 'plain:old password here');
  await delivered();
  t.deepEqual(w.announced, []);
  t.like(await w.change.execute(input), { ok: true, value: { otherSessionsEnded: 1 } });
  t.like(await w.repos.sessions.loginState(user.id, mine!), { state: 'active' });
  t.like(await w.repos.sessions.loginState(user.id, other!), { state: 'revoked' });
  await delivered();
  t.deepEqual(w.announced.map((notice) => notice.sessionId), [other!]);
});

test('a change whose proven password was replaced meanwhile (a reset committed while it hashed) changes nothing: 409', async (t) => {
  const w = world();
  const user = await w.addUser('plain:old password here');
  const [mine, other] = await withLogins(w, user.id);
  w.hasher.during = () => {
    w.store.users.get(user.id)!.passwordHash = 'plain:set by a reset';
  };
  const result = await w.change.execute({ userId: user.id, email: user.email, sessionId: mine!, currentPassword: 'old password here', newPassword: NEW_PASSWORD, clientAddress: '10.0.0.1' });
  t.like(result, { ok: false, code: 'CONFLICT' });
  t.is(w.store.users.get(user.id)!.passwordHash, 'plain:set by a reset', "the reset's password stands");
  t.like(await w.repos.sessions.loginState(user.id, other!), { state: 'active' }, 'nothing ended by the refused change');
});
