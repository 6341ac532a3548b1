import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { RefreshTokenRecord, SessionRepository } from '../../core/ports/session-repository.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, DAY, sharedBackend, type MakeBackend } from './fixtures.ts';

type NewSession = Omit<RefreshTokenRecord, 'rotatedAt' | 'revokedAt'>;

/** Registers the SessionRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function sessionRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let sessions: SessionRepository;
  test.before(async () => {
    ({ repos } = await backend());
    sessions = repos.sessions;
  });

  const token = (userId: string, familyId = randomUUID(), createdAt = at(0)): NewSession => ({
    id: randomUUID(),
    userId,
    familyId,
    tokenHash: randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, ''),
    expiresAt: new Date(createdAt.getTime() + 30 * DAY),
    createdAt,
  });
  const read = async (session: NewSession) => (await sessions.findByTokenHash(session.tokenHash))!;

  test(`${name}: create, then findByTokenHash reads the token back, fresh`, async (t) => {
    const userId = await addUser(repos.users);
    const session = token(userId, randomUUID(), at(777));
    await sessions.create(session);
    t.deepEqual(await sessions.findByTokenHash(session.tokenHash), { ...session, rotatedAt: null, revokedAt: null });
    t.is(await sessions.findByTokenHash('0'.repeat(64)), null);
  });

  test(`${name}: markRotated succeeds once; a second use is false and keeps the first time`, async (t) => {
    const userId = await addUser(repos.users);
    const session = token(userId);
    await sessions.create(session);
    t.true(await sessions.markRotated(session.id, at(10)));
    t.deepEqual((await read(session)).rotatedAt, at(10));
    t.false(await sessions.markRotated(session.id, at(20)));
    t.deepEqual((await read(session)).rotatedAt, at(10));
    t.false(await sessions.markRotated(randomUUID(), at(20)), 'unknown token');
  });

  test(`${name}: of concurrent rotations of one token exactly one wins`, async (t) => {
    const userId = await addUser(repos.users);
    const session = token(userId);
    await sessions.create(session);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => sessions.markRotated(session.id, at(i))));
    t.is(outcomes.filter(Boolean).length, 1);
  });

  test(`${name}: a revoked token cannot be rotated`, async (t) => {
    const userId = await addUser(repos.users);
    const session = token(userId);
    await sessions.create(session);
    await sessions.revokeFamily(session.familyId, at(5));
    t.false(await sessions.markRotated(session.id, at(6)));
    t.like(await read(session), { rotatedAt: null, revokedAt: at(5) });
  });

  test(`${name}: revokeFamily revokes every token of that family and no other`, async (t) => {
    const userId = await addUser(repos.users);
    const familyId = randomUUID();
    const first = token(userId, familyId, at(1));
    const second = token(userId, familyId, at(2));
    const sameUserOtherLogin = token(userId, randomUUID(), at(3));
    const otherUser = token(await addUser(repos.users), randomUUID(), at(4));
    for (const session of [first, second, sameUserOtherLogin, otherUser]) await sessions.create(session);
    t.true(await sessions.markRotated(first.id, at(5)));
    await sessions.revokeFamily(familyId, at(9));
    t.deepEqual(await read(first), { ...first, rotatedAt: at(5), revokedAt: at(9) });
    t.deepEqual(await read(second), { ...second, rotatedAt: null, revokedAt: at(9) });
    t.deepEqual(await read(sameUserOtherLogin), { ...sameUserOtherLogin, rotatedAt: null, revokedAt: null });
    t.deepEqual(await read(otherUser), { ...otherUser, rotatedAt: null, revokedAt: null });
    t.true(await sessions.markRotated(sameUserOtherLogin.id, at(10)), 'the other login still works');
    await sessions.revokeFamily(randomUUID(), at(11));
  });

  // A second logout (or a reuse detected after one) must not move the first revocation time: it is when the login ended.
  test(`${name}: revoking a family again keeps each token's first revocation time, and revokes a token added since`, async (t) => {
    const userId = await addUser(repos.users);
    const familyId = randomUUID();
    const first = token(userId, familyId, at(1));
    await sessions.create(first);
    await sessions.revokeFamily(familyId, at(5));
    const later = token(userId, familyId, at(6));
    await sessions.create(later);
    await sessions.revokeFamily(familyId, at(9));
    t.deepEqual((await read(first)).revokedAt, at(5));
    t.deepEqual((await read(later)).revokedAt, at(9));
  });

  // As a row read from the database: a record read earlier does not change under later writes, nor does editing it write.
  // Pins activeFamilies' three conditions: the user's own logins, none revoked (by any of its tokens), none expired.
  test(`${name}: activeFamilies lists the user's live logins once each: not another user's, not revoked, not expired`, async (t) => {
    const userId = await addUser(repos.users);
    const other = await addUser(repos.users);
    const live = randomUUID();
    const first = token(userId, live, at(0));
    await sessions.create(first);
    await sessions.markRotated(first.id, at(1000));
    await sessions.create(token(userId, live, at(1000)));
    const rotatedThenRevoked = randomUUID();
    const revokedOld = token(userId, rotatedThenRevoked, at(0));
    await sessions.create(revokedOld);
    await sessions.revokeFamily(rotatedThenRevoked, at(2000));
    // A token added to a revoked family after the revocation does not bring it back.
    await sessions.create(token(userId, rotatedThenRevoked, at(3000)));
    const expired = { ...token(userId, randomUUID(), at(0)), expiresAt: at(5000) };
    await sessions.create(expired);
    await sessions.create(token(other, randomUUID(), at(0)));
    t.deepEqual(await sessions.activeFamilies(userId, at(6000)), [live]);
    t.deepEqual((await sessions.activeFamilies(userId, at(4000))).sort(), [live, expired.familyId].sort(), 'not yet expired at 4 s');
    t.deepEqual(await sessions.activeFamilies(randomUUID(), at(0)), []);
  });

  test(`${name}: a token read is a snapshot, neither changed by later writes nor writing back when edited`, async (t) => {
    const userId = await addUser(repos.users);
    const session = token(userId);
    await sessions.create(session);
    const before = await read(session);
    t.true(await sessions.markRotated(session.id, at(10)));
    await sessions.revokeFamily(session.familyId, at(11));
    t.deepEqual(before, { ...session, rotatedAt: null, revokedAt: null });
    const after = await read(session);
    after.revokedAt = null;
    after.rotatedAt = null;
    t.like(await read(session), { rotatedAt: at(10), revokedAt: at(11) });
  });

  test(`${name}: loginState is revoked only for a family that was revoked (rotated or not), no-user for an unknown user`, async (t) => {
    const userId = await addUser(repos.users);
    const familyId = randomUUID();
    const first = token(userId, familyId, at(1));
    const other = token(userId, randomUUID(), at(2));
    for (const session of [first, other]) await sessions.create(session);
    t.is((await sessions.loginState(userId, familyId)).state, 'active');
    t.true(await sessions.markRotated(first.id, at(3)));
    t.is((await sessions.loginState(userId, familyId)).state, 'active', 'a rotation is no revocation');
    await sessions.create(token(userId, familyId, at(4)));
    await sessions.revokeFamily(familyId, at(5));
    t.is((await sessions.loginState(userId, familyId)).state, 'revoked');
    t.is((await sessions.loginState(userId, other.familyId)).state, 'active');
    t.is((await sessions.loginState(userId, randomUUID())).state, 'active', 'an unknown family');
    t.is((await sessions.loginState(userId, null)).state, 'active', 'no family: the user decides');
    t.is((await sessions.loginState(randomUUID(), familyId)).state, 'no-user');
    t.is((await sessions.loginState(randomUUID(), null)).state, 'no-user');
    t.deepEqual(await sessions.loginState(userId, familyId), { state: 'revoked' }, 'no user record with a refusal');
    const active = await sessions.loginState(userId, other.familyId);
    t.deepEqual(active, { state: 'active', user: (await repos.users.findById(userId))! }, 'an active login brings the user as stored');
  });

  test(`${name}: loginState calls made at once (batched by the SQL adapters) answer each as a lone call does`, async (t) => {
    const [alice, bob] = [await addUser(repos.users), await addUser(repos.users)];
    const [aliceIn, aliceOut, bobIn] = [token(alice), token(alice), token(bob)];
    for (const session of [aliceIn, aliceOut, bobIn]) await sessions.create(session);
    await sessions.revokeFamily(aliceOut.familyId, at(1));
    const keys: [string, string | null][] = [
      [alice, aliceIn.familyId],
      [alice, aliceOut.familyId],
      [alice, null],
      [bob, bobIn.familyId],
      [randomUUID(), aliceIn.familyId],
      [alice, aliceIn.familyId],
      [bob, aliceOut.familyId],
      [bob, null],
      [randomUUID(), null],
      [alice, randomUUID()],
    ];
    const alone = [];
    for (const [userId, familyId] of keys) alone.push(await sessions.loginState(userId, familyId));
    t.deepEqual(
      alone.map((check) => check.state),
      ['active', 'revoked', 'active', 'active', 'no-user', 'active', 'revoked', 'active', 'no-user', 'active'],
    );
    for (let round = 0; round < 3; round++) {
      t.deepEqual(await Promise.all(keys.map(([userId, familyId]) => sessions.loginState(userId, familyId))), alone, `round ${round}`);
    }
  });
}
