/**
 * The refusals of a refresh (RefreshSession) that need no server, and a revocation whose announcement the
 * event bus refuses, on the in-memory adapters. Rotation, reuse and races are in
 * tests/integration/auth.test.ts and tests/integration/session-guards.test.ts.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { EventBus } from '../../core/ports/user-events.port.ts';
import { RefreshSession } from '../../core/use-cases/auth/refresh-session.use-case.ts';
import { SessionRevocations } from '../../core/use-cases/auth/session-revocations.service.ts';
import { issueSession } from '../../core/use-cases/auth/session-tokens.service.ts';
import { quietLogger } from '../support/generation-harness.ts';

const NOW = new Date('2031-09-01T08:00:00.000Z');

async function world(bus: EventBus) {
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const repos = uow.autocommit;
  const clock = { now: () => NOW };
  const deps = {
    sessions: repos.sessions,
    tokens: new JwtTokenIssuer({ secret: 'r'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 }),
    ids: { newId: () => randomUUID() },
    clock,
    refreshTokenTtlSeconds: 3600,
  };
  const revocations = new SessionRevocations({ sessions: repos.sessions, bus, clock, logger: quietLogger });
  const refresh = new RefreshSession({ ...deps, uow, revocations });
  const userId = randomUUID();
  await repos.users.create({ id: userId, email: `${userId}@example.com`, displayName: 'R', role: 'user', passwordHash: null, createdAt: NOW });
  const login = async () => issueSession(deps, repos.sessions, (await repos.users.findById(userId))!, randomUUID());
  return { store, refresh, revocations, userId, login };
}

const silentBus: EventBus = { publish: async () => undefined, subscribe: async () => async () => undefined, close: async () => undefined };
const UNAUTHENTICATED = { ok: false, code: 'AUTH.UNAUTHENTICATED', message: 'Refresh token is missing, invalid or expired' };

test('a refresh without a token, with a token nobody issued, or of a user who is gone is AUTH.UNAUTHENTICATED', async (t) => {
  const w = await world(silentBus);
  t.deepEqual(await w.refresh.execute({ refreshToken: undefined }), UNAUTHENTICATED);
  t.deepEqual(await w.refresh.execute({ refreshToken: '' }), UNAUTHENTICATED);
  t.deepEqual(await w.refresh.execute({ refreshToken: 'never-issued' }), UNAUTHENTICATED);
  const session = await w.login();
  w.store.users.delete(w.userId);
  t.deepEqual(await w.refresh.execute({ refreshToken: session.refreshToken }), UNAUTHENTICATED);
  t.is(w.store.sessions.size, 1, 'no token issued for a user who is gone');
});

test('a revocation whose announcement the bus refuses still revokes the login, and does not fail', async (t) => {
  const refusing: EventBus = {
    publish: async () => {
      throw new Error('bus is down');
    },
    subscribe: async () => async () => undefined,
    close: async () => undefined,
  };
  const w = await world(refusing);
  const session = await w.login();
  const familyId = [...w.store.sessions.values()][0]!.familyId;
  await t.notThrowsAsync(w.revocations.revokeFamily(w.userId, familyId));
  t.like([...w.store.sessions.values()][0], { familyId, revokedAt: NOW });
  t.deepEqual(await w.refresh.execute({ refreshToken: session.refreshToken }), UNAUTHENTICATED);
});
