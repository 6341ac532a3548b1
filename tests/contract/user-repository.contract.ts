import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { User } from '../../core/domain/user.ts';
import type { NewUser, UserRepository } from '../../core/ports/user-repository.port.ts';
import { at, freshBackend, newUser, sharedBackend, type MakeBackend } from './fixtures.ts';

/** The public view `create` leaves: balance 0, updated when created. */
const stored = (user: NewUser): User => ({
  id: user.id,
  email: user.email,
  displayName: user.displayName,
  role: user.role,
  coinBalance: 0,
  createdAt: user.createdAt,
  updatedAt: user.createdAt,
});

const ids = (users: User[]) => users.map((user) => user.id);

/** Registers the UserRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function userRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let users: UserRepository;
  test.before(async () => {
    users = (await backend()).repos.users;
  });
  /** A tag of the test's own in names and emails, so a search finds that test's users only. */
  const tag = () => `t${randomUUID().slice(0, 8)}`;

  test(`${name}: create, then findById and findByEmail read the user back (the latter with its password hash)`, async (t) => {
    const user = newUser({ displayName: 'Zoë “Quotes” ✓', role: 'admin', passwordHash: 'scrypt$abc$def', createdAt: at(4321) });
    t.true(await users.create(user));
    t.deepEqual(await users.findById(user.id), stored(user));
    t.deepEqual(await users.findByEmail(user.email), { ...stored(user), passwordHash: 'scrypt$abc$def' });
    const social = newUser({ passwordHash: null });
    t.true(await users.create(social));
    t.deepEqual(await users.findByEmail(social.email), { ...stored(social), passwordHash: null });
    t.false('passwordHash' in (await users.findById(user.id))!, 'findById never carries the hash');
  });

  test(`${name}: unknown ids and emails are null`, async (t) => {
    t.is(await users.findById(randomUUID()), null);
    t.is(await users.findByEmail(`${randomUUID()}@example.com`), null);
  });

  test(`${name}: create is false for an email that is taken and stores nothing`, async (t) => {
    const first = newUser();
    t.true(await users.create(first));
    const second = newUser({ email: first.email, displayName: 'Second' });
    t.false(await users.create(second));
    t.is(await users.findById(second.id), null);
    t.deepEqual(await users.findByEmail(first.email), { ...stored(first), passwordHash: null });
  });

  test(`${name}: setRole changes the role and the update time; an unknown id is harmless`, async (t) => {
    const user = newUser();
    await users.create(user);
    await users.setRole(user.id, 'admin', at(99_000));
    t.deepEqual(await users.findById(user.id), { ...stored(user), role: 'admin', updatedAt: at(99_000) });
    await users.setRole(user.id, 'user', at(100_000));
    t.like(await users.findById(user.id), { role: 'user', updatedAt: at(100_000) });
    await users.setRole(randomUUID(), 'admin', at(1));
  });

  // Pins setRole's WHERE: promoting one user leaves every other user as stored.
  test(`${name}: setRole changes the named user only`, async (t) => {
    const promoted = newUser();
    const bystander = newUser();
    await users.create(promoted);
    await users.create(bystander);
    await users.setRole(promoted.id, 'admin', at(7_000));
    t.like(await users.findById(promoted.id), { role: 'admin' });
    t.deepEqual(await users.findById(bystander.id), stored(bystander));
  });

  test(`${name}: setDisplayName changes the name and the update time of the named user only; unknown is null`, async (t) => {
    const user = newUser();
    const bystander = newUser();
    await users.create(user);
    await users.create(bystander);
    t.deepEqual(await users.setDisplayName(user.id, 'Renamed ✓', at(5_000)), { ...stored(user), displayName: 'Renamed ✓', updatedAt: at(5_000) });
    t.deepEqual(await users.findById(user.id), { ...stored(user), displayName: 'Renamed ✓', updatedAt: at(5_000) });
    t.deepEqual(await users.findById(bystander.id), stored(bystander));
    t.is(await users.setDisplayName(randomUUID(), 'Nobody', at(1)), null);
  });

  test(`${name}: a reset link is found by its hash while live, and is used once: the hash is set and the link is gone`, async (t) => {
    const user = newUser({ passwordHash: 'old' });
    const bystander = newUser({ passwordHash: 'theirs' });
    await users.create(user);
    await users.create(bystander);
    const hash = randomUUID().replace(/-/g, '');
    t.true(await users.setPasswordReset(user.id, { tokenHash: hash, expiresAt: at(60_000) }, at(1_000)));
    t.false(await users.setPasswordReset(randomUUID(), { tokenHash: randomUUID(), expiresAt: at(60_000) }, at(1_000)));
    t.deepEqual(await users.findByPasswordReset(hash, at(59_999)), { ...stored(user), updatedAt: at(1_000) });
    t.is(await users.findByPasswordReset(hash, at(60_000)), null, 'expired at expiresAt');
    t.is(await users.findByPasswordReset(randomUUID().replace(/-/g, ''), at(2_000)), null);
    t.false(await users.resetPassword(user.id, 'another hash', 'new', at(2_000)), 'another token');
    t.false(await users.resetPassword(bystander.id, hash, 'new', at(2_000)), "another user's row");
    t.false(await users.resetPassword(user.id, hash, 'new', at(60_000)), 'expired');
    t.is((await users.findByEmail(user.email))!.passwordHash, 'old');
    t.is((await users.findByEmail(bystander.email))!.passwordHash, 'theirs');
    t.true(await users.resetPassword(user.id, hash, 'new', at(3_000)));
    t.deepEqual(await users.findByEmail(user.email), { ...stored(user), updatedAt: at(3_000), passwordHash: 'new' });
    t.false(await users.resetPassword(user.id, hash, 'newer', at(4_000)), 'used once');
    t.is(await users.findByPasswordReset(hash, at(4_000)), null);
    t.is((await users.findByEmail(user.email))!.passwordHash, 'new');
  });

  test(`${name}: a new reset link replaces the last; setPasswordHash ends a live link; of concurrent uses one wins`, async (t) => {
    const user = newUser({ passwordHash: 'old' });
    await users.create(user);
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    await users.setPasswordReset(user.id, { tokenHash: first, expiresAt: at(60_000) }, at(1_000));
    await users.setPasswordReset(user.id, { tokenHash: second, expiresAt: at(60_000) }, at(2_000));
    t.is(await users.findByPasswordReset(first, at(3_000)), null);
    t.false(await users.resetPassword(user.id, first, 'by first', at(3_000)));
    t.true(await users.setPasswordHash(user.id, 'changed', 'old', at(4_000)));
    t.deepEqual(await users.findByEmail(user.email), { ...stored(user), updatedAt: at(4_000), passwordHash: 'changed' });
    t.is(await users.findByPasswordReset(second, at(5_000)), null, 'a password change ends the link');
    t.false(await users.resetPassword(user.id, second, 'by second', at(5_000)));
    await users.setPasswordReset(user.id, { tokenHash: third, expiresAt: at(60_000) }, at(6_000));
    const uses = await Promise.all(['a', 'b', 'c', 'd'].map((name) => users.resetPassword(user.id, third, name, at(7_000))));
    t.is(uses.filter(Boolean).length, 1);
    t.is((await users.findByEmail(user.email))!.passwordHash, ['a', 'b', 'c', 'd'][uses.indexOf(true)]);
  });

  // Pins setPasswordHash's WHERE: only the named user, only while the hash is the one the caller proved.
  test(`${name}: setPasswordHash changes the hash only while it is the previous one, of the named user only`, async (t) => {
    const user = newUser({ passwordHash: 'proven' });
    const bystander = newUser({ passwordHash: 'proven' });
    await users.create(user);
    await users.create(bystander);
    t.false(await users.setPasswordHash(user.id, 'stale write', 'not the hash', at(1_000)));
    t.is((await users.findByEmail(user.email))!.passwordHash, 'proven');
    t.true(await users.setPasswordHash(user.id, 'new', 'proven', at(2_000)));
    t.is((await users.findByEmail(bystander.email))!.passwordHash, 'proven');
    t.false(await users.setPasswordHash(user.id, 'newer', 'proven', at(3_000)), 'the proof of a replaced hash');
    t.deepEqual(await users.findByEmail(user.email), { ...stored(user), updatedAt: at(2_000), passwordHash: 'new' });
    t.false(await users.setPasswordHash(randomUUID(), 'x', 'proven', at(4_000)));
    const racing = await Promise.all(['a', 'b', 'c'].map((hash) => users.setPasswordHash(user.id, hash, 'new', at(5_000))));
    t.is(racing.filter(Boolean).length, 1);
  });

  test(`${name}: list searches emails and display names (ignoring case) and pages newest first`, async (t) => {
    const mark = tag();
    const byEmail = newUser({ email: `${mark}.mail@example.com`, displayName: 'Plain', createdAt: at(3000) });
    const byName = newUser({ displayName: `Keeper ${mark.toUpperCase()}`, createdAt: at(2000) });
    const both = newUser({ email: `${mark}@example.org`, displayName: `${mark} twice`, createdAt: at(1000) });
    for (const user of [byName, both, byEmail]) await users.create(user);
    await users.create(newUser({ displayName: 'Someone else' }));
    const found = await users.list({ page: 1, limit: 10 }, mark);
    t.deepEqual(found, { items: [byEmail, byName, both].map(stored), page: 1, limit: 10, total: 3, totalPages: 1 });
    t.deepEqual(ids((await users.list({ page: 2, limit: 2 }, mark)).items), [both.id]);
    t.deepEqual(ids((await users.list({ page: 1, limit: 10 }, mark.toUpperCase())).items), [byEmail.id, byName.id, both.id]);
    t.deepEqual((await users.list({ page: 1, limit: 10 }, `${mark}-nobody`)).total, 0);
  });

  test(`${name}: list takes the search text literally (% and _ are not wildcards)`, async (t) => {
    const mark = tag();
    const percent = newUser({ displayName: `${mark} 100% sure` });
    const underscore = newUser({ displayName: `${mark} snake_case` });
    await users.create(newUser({ displayName: `${mark} 100 percent and more` }));
    await users.create(newUser({ displayName: `${mark} snakeXcase` }));
    await users.create(percent);
    await users.create(underscore);
    t.deepEqual(ids((await users.list({ page: 1, limit: 10 }, '100%')).items), [percent.id]);
    t.deepEqual(ids((await users.list({ page: 1, limit: 10 }, 'snake_case')).items), [underscore.id]);
  });

  test(`${name}: list without a search pages every user newest first`, async (t) => {
    const { repos } = await freshBackend(t, make);
    const made = [newUser({ createdAt: at(1) }), newUser({ createdAt: at(3) }), newUser({ createdAt: at(2) })];
    for (const user of made) await repos.users.create(user);
    t.deepEqual(await repos.users.list({ page: 1, limit: 2 }), { items: [made[1]!, made[2]!].map(stored), page: 1, limit: 2, total: 3, totalPages: 2 });
    t.deepEqual(ids((await repos.users.list({ page: 2, limit: 2 })).items), [made[0]!.id]);
  });
}
