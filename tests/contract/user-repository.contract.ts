import { randomUUID } from 'node:crypto';
import test from 'ava';
import { QueryTypes } from 'sequelize';
import type { User } from '../../core/domain/user.ts';
import type { NewUser, UserRepository } from '../../core/ports/user-repository.port.ts';
import { deletedEmail } from '../../core/domain/user.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, freshBackend, historyItem, newJob, newUser, sharedBackend, type MakeBackend } from './fixtures.ts';

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

  test(`${name}: a change of email is found by its hash while live, and applied once: the email is the new one`, async (t) => {
    const user = newUser();
    const bystander = newUser();
    await users.create(user);
    await users.create(bystander);
    const hash = randomUUID().replace(/-/g, '');
    const newEmail = `moved-${randomUUID()}@example.com`;
    t.true(await users.setEmailChange(user.id, { email: newEmail, tokenHash: hash, expiresAt: at(60_000) }, at(1_000)));
    t.false(await users.setEmailChange(randomUUID(), { email: `x-${randomUUID()}@example.com`, tokenHash: randomUUID(), expiresAt: at(60_000) }, at(1_000)));
    t.deepEqual(await users.findByEmailChange(hash, at(59_999)), { user: { ...stored(user), updatedAt: at(1_000) }, newEmail });
    t.is(await users.findByEmailChange(hash, at(60_000)), null, 'expired at expiresAt');
    t.is(await users.findByEmailChange(randomUUID().replace(/-/g, ''), at(2_000)), null);
    t.is(await users.findByEmail(newEmail), null, 'nothing changes before the link is used');
    t.is(await users.applyEmailChange(user.id, { tokenHash: 'another hash', newEmail }, at(2_000)), 'dead', 'another token');
    t.is(await users.applyEmailChange(bystander.id, { tokenHash: hash, newEmail }, at(2_000)), 'dead', "another user's row");
    t.is(await users.applyEmailChange(user.id, { tokenHash: hash, newEmail: `other-${randomUUID()}@example.com` }, at(2_000)), 'dead', 'another email');
    t.is(await users.applyEmailChange(user.id, { tokenHash: hash, newEmail }, at(60_000)), 'dead', 'expired');
    t.like(await users.findByEmail(user.email), { id: user.id });
    t.is(await users.applyEmailChange(user.id, { tokenHash: hash, newEmail }, at(3_000)), 'changed');
    t.deepEqual(await users.findByEmail(newEmail), { ...stored(user), email: newEmail, updatedAt: at(3_000), passwordHash: user.passwordHash });
    t.is(await users.findByEmail(user.email), null, 'the old email names nobody');
    t.deepEqual(await users.findById(bystander.id), stored(bystander));
    t.is(await users.applyEmailChange(user.id, { tokenHash: hash, newEmail }, at(4_000)), 'dead', 'used once');
    t.is(await users.findByEmailChange(hash, at(4_000)), null);
  });

  test(`${name}: a new change of email replaces the last; one whose email was taken meanwhile changes nothing; of concurrent uses one wins`, async (t) => {
    const user = newUser();
    await users.create(user);
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    const [firstEmail, secondEmail] = [`first-${randomUUID()}@example.com`, `second-${randomUUID()}@example.com`];
    await users.setEmailChange(user.id, { email: firstEmail, tokenHash: first, expiresAt: at(60_000) }, at(1_000));
    await users.setEmailChange(user.id, { email: secondEmail, tokenHash: second, expiresAt: at(60_000) }, at(2_000));
    t.is(await users.findByEmailChange(first, at(3_000)), null);
    t.is(await users.applyEmailChange(user.id, { tokenHash: first, newEmail: firstEmail }, at(3_000)), 'dead');
    await users.create(newUser({ email: secondEmail }));
    t.is(await users.applyEmailChange(user.id, { tokenHash: second, newEmail: secondEmail }, at(4_000)), 'taken');
    t.like(await users.findById(user.id), { email: user.email, updatedAt: at(2_000) }, 'nothing changed');
    const thirdEmail = `third-${randomUUID()}@example.com`;
    await users.setEmailChange(user.id, { email: thirdEmail, tokenHash: third, expiresAt: at(60_000) }, at(5_000));
    const uses = await Promise.all([1, 2, 3, 4].map(() => users.applyEmailChange(user.id, { tokenHash: third, newEmail: thirdEmail }, at(6_000))));
    t.deepEqual(uses.filter((use) => use === 'changed').length, 1);
    t.deepEqual(uses.filter((use) => use !== 'changed'), ['dead', 'dead', 'dead']);
    t.like(await users.findById(user.id), { email: thirdEmail });
  });

  test(`${name}: a change of email ends the reset link (of the old address); a new password ends a pending change of email`, async (t) => {
    const pending = async (id: string, hash: string) => (await users.findByEmailChange(hash, at(10_000)))?.user.id === id;
    const moved = newUser({ passwordHash: 'old' });
    await users.create(moved);
    const newEmail = `moved-${randomUUID()}@example.com`;
    await users.setPasswordReset(moved.id, { tokenHash: `reset-${moved.id}`, expiresAt: at(60_000) }, at(1_000));
    await users.setEmailChange(moved.id, { email: newEmail, tokenHash: `change-${moved.id}`, expiresAt: at(60_000) }, at(1_000));
    t.is(await users.applyEmailChange(moved.id, { tokenHash: `change-${moved.id}`, newEmail }, at(2_000)), 'changed');
    t.is(await users.findByPasswordReset(`reset-${moved.id}`, at(3_000)), null, 'the link mailed to the old address is dead');

    const reset = newUser({ passwordHash: 'old' });
    await users.create(reset);
    await users.setEmailChange(reset.id, { email: `intruder-${randomUUID()}@example.com`, tokenHash: `change-${reset.id}`, expiresAt: at(60_000) }, at(1_000));
    await users.setPasswordReset(reset.id, { tokenHash: `reset-${reset.id}`, expiresAt: at(60_000) }, at(1_000));
    t.true(await pending(reset.id, `change-${reset.id}`));
    t.true(await users.resetPassword(reset.id, `reset-${reset.id}`, 'new', at(2_000)));
    t.false(await pending(reset.id, `change-${reset.id}`), 'a reset ends it');

    const changed = newUser({ passwordHash: 'old' });
    await users.create(changed);
    await users.setEmailChange(changed.id, { email: `intruder-${randomUUID()}@example.com`, tokenHash: `change-${changed.id}`, expiresAt: at(60_000) }, at(1_000));
    t.true(await users.setPasswordHash(changed.id, 'new', 'old', at(2_000)));
    t.false(await pending(changed.id, `change-${changed.id}`), 'a change of password ends it');
  });

  test(`${name}: clearEmailChange drops the pending change only while it is the one with that hash`, async (t) => {
    const user = newUser();
    await users.create(user);
    const newEmail = `moved-${randomUUID()}@example.com`;
    await users.setEmailChange(user.id, { email: newEmail, tokenHash: `kept-${user.id}`, expiresAt: at(60_000) }, at(1_000));
    t.false(await users.clearEmailChange(user.id, 'another hash', at(2_000)));
    t.false(await users.clearEmailChange(randomUUID(), `kept-${user.id}`, at(2_000)));
    t.like(await users.findByEmailChange(`kept-${user.id}`, at(3_000)), { newEmail });
    t.true(await users.clearEmailChange(user.id, `kept-${user.id}`, at(4_000)));
    t.is(await users.findByEmailChange(`kept-${user.id}`, at(5_000)), null);
    t.like(await users.findById(user.id), { email: user.email, updatedAt: at(4_000) });
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

  /** A user with a login, a ledger row, a finished job with an output, an upload, an API key and an identity. */
  const fullAccount = async (repos: Repositories) => {
    const userId = await addUser(repos.users, { passwordHash: 'scrypt$old' });
    await repos.sessions.create({ id: randomUUID(), userId, familyId: randomUUID(), tokenHash: randomUUID(), expiresAt: at(3_600_000), createdAt: at(0) });
    await repos.ledger.apply({ id: randomUUID(), userId, amount: 40, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(1) });
    const job = newJob(userId, { status: 'queued' });
    await repos.jobs.create(job);
    const output = historyItem(userId, job.id);
    await repos.history.add(output);
    const upload = { id: randomUUID(), userId, storageKey: `uploads/${userId}/in.png`, mimeType: 'image/png', width: 8, height: 8, sizeBytes: 10, createdAt: at(2), contentHash: null, fileName: null };
    await repos.uploads.create(upload);
    const keyId = randomUUID();
    await repos.apiKeys.create({ id: keyId, userId, name: 'k', scopes: ['generate'], prefix: `mgs_${keyId.slice(0, 12)}`, secretHash: randomUUID(), createdAt: at(0), expiresAt: null, lastUsedAt: null, revokedAt: null });
    await repos.identities.link({ userId, provider: 'google', subject: `sub-${userId}`, email: null, createdAt: at(0) });
    return { userId, job, output, upload, keyId };
  };

  test(`${name}: markDeleted makes a husk once: no email, name, password or reset link; nothing finds, lists or changes it`, async (t) => {
    const backend = await freshBackend(t, make);
    const { repos } = backend;
    /** The row as stored, read past the repository (which shows a husk to nobody). */
    const stored = async (id: string) => {
      if (backend.store) {
        const { email, displayName, passwordHash, passwordReset, emailChange } = backend.store.users.get(id)!;
        return { email, displayName, passwordHash, resetHash: passwordReset?.tokenHash ?? null, pendingEmail: emailChange?.email ?? null, changeHash: emailChange?.tokenHash ?? null };
      }
      const [row] = await backend.db!.sequelize.query<{
        email: string;
        display_name: string;
        password_hash: string | null;
        password_reset_hash: string | null;
        pending_email: string | null;
        email_change_hash: string | null;
      }>('SELECT email, display_name, password_hash, password_reset_hash, pending_email, email_change_hash FROM users WHERE id = ?', { replacements: [id], type: QueryTypes.SELECT });
      return {
        email: row!.email,
        displayName: row!.display_name,
        passwordHash: row!.password_hash,
        resetHash: row!.password_reset_hash,
        pendingEmail: row!.pending_email,
        changeHash: row!.email_change_hash,
      };
    };
    const husk = (id: string) => ({ email: deletedEmail(id), displayName: 'Deleted user', passwordHash: null, resetHash: null, pendingEmail: null, changeHash: null });
    const keep = await addUser(repos.users, { createdAt: at(1) });
    const user = newUser({ passwordHash: 'scrypt$x', createdAt: at(2) });
    await repos.users.create(user);
    await repos.users.setPasswordReset(user.id, { tokenHash: 'reset-hash', expiresAt: at(60_000) }, at(3));
    await repos.users.setEmailChange(user.id, { email: `pending-${user.id}@example.com`, tokenHash: 'change-hash', expiresAt: at(60_000) }, at(4));
    t.true(await repos.users.markDeleted(user.id, at(10)));
    t.deepEqual(await stored(user.id), husk(user.id), 'nothing of the person is kept');
    t.false(await repos.users.markDeleted(user.id, at(11)), 'only a live account is deleted');
    t.false(await repos.users.markDeleted(randomUUID(), at(11)));
    t.is(await repos.users.findById(user.id), null);
    t.is(await repos.users.findByEmail(user.email), null);
    t.is(await repos.users.findByEmail(deletedEmail(user.id)), null);
    t.is(await repos.users.findByPasswordReset('reset-hash', at(20)), null);
    t.deepEqual(ids((await repos.users.list({ page: 1, limit: 10 })).items), [keep]);
    t.is((await repos.users.list({ page: 1, limit: 10 }, 'deleted')).total, 0, 'a search skips it too');
    t.is(await repos.users.setDisplayName(user.id, 'Back', at(30)), null);
    t.false(await repos.users.setPasswordReset(user.id, { tokenHash: 'again', expiresAt: at(60_000) }, at(30)));
    t.false(await repos.users.setEmailChange(user.id, { email: `again-${user.id}@example.com`, tokenHash: 'again', expiresAt: at(60_000) }, at(30)));
    t.deepEqual(await stored(user.id), husk(user.id), 'and nothing changed it');
    // A pending change written past the repository (as if the husk had kept one): nothing finds or applies it.
    const smuggled = `smuggled-${user.id}@example.com`;
    if (backend.store) backend.store.users.get(user.id)!.emailChange = { email: smuggled, tokenHash: `smuggled-${user.id}`, expiresAt: at(60_000) };
    else {
      await backend.db!.sequelize.query('UPDATE users SET pending_email = ?, email_change_hash = ?, email_change_expires_at = ? WHERE id = ?', {
        replacements: [smuggled, `smuggled-${user.id}`, new Date(at(60_000).getTime()), user.id],
      });
    }
    t.is(await repos.users.findByEmailChange(`smuggled-${user.id}`, at(31)), null);
    t.is(await repos.users.applyEmailChange(user.id, { tokenHash: `smuggled-${user.id}`, newEmail: smuggled }, at(31)), 'dead');
    t.is((await stored(user.id)).email, deletedEmail(user.id));
    t.is((await repos.sessions.loginState(user.id, null)).state, 'no-user', 'a token of it names no user');
    t.true(await repos.users.create(newUser({ email: user.email })), 'its email signs up afresh at once');
    t.deepEqual(await repos.users.listDeleted(10), [user.id]);
  });

  test(`${name}: a login of a deleted account names no user, asked alone or with others in one batch`, async (t) => {
    const { repos } = await freshBackend(t, make);
    const live = await addUser(repos.users);
    const gone = await addUser(repos.users);
    t.true(await repos.users.markDeleted(gone, at(5)));
    const states = await Promise.all([live, gone, live, gone].map((userId) => repos.sessions.loginState(userId, randomUUID())));
    t.deepEqual(states.map((state) => state.state), ['active', 'no-user', 'active', 'no-user']);
    t.is((await repos.sessions.loginState(gone, null)).state, 'no-user');
  });

  test(`${name}: listDeleted lists husks longest deleted first, at most max`, async (t) => {
    const { repos } = await freshBackend(t, make);
    const [a, b, c] = [await addUser(repos.users), await addUser(repos.users), await addUser(repos.users)];
    await repos.users.markDeleted(b, at(5));
    await repos.users.markDeleted(c, at(9));
    await repos.users.markDeleted(a, at(7));
    t.deepEqual(await repos.users.listDeleted(10), [b, a, c]);
    t.deepEqual(await repos.users.listDeleted(2), [b, a]);
  });

  test(`${name}: purge refuses each thing that keeps a husk alone: being live, an output, an upload, a queued or running job`, async (t) => {
    const { repos } = await freshBackend(t, make);
    const live = await addUser(repos.users);
    t.false(await repos.users.purge(live), 'a live account with nothing is never purged');
    const husk = async () => {
      const userId = await addUser(repos.users);
      t.true(await repos.users.markDeleted(userId, at(10)));
      return userId;
    };
    const withOutput = await husk();
    const finished = newJob(withOutput, { status: 'succeeded' });
    await repos.jobs.create(finished);
    await repos.history.add(historyItem(withOutput, finished.id));
    t.false(await repos.users.purge(withOutput), 'an output is left');
    const withUpload = await husk();
    await repos.uploads.create({ id: randomUUID(), userId: withUpload, storageKey: `uploads/${withUpload}/a.png`, mimeType: 'image/png', width: 1, height: 1, sizeBytes: 1, createdAt: at(1), contentHash: null, fileName: null });
    t.false(await repos.users.purge(withUpload), 'an upload is left');
    const withQueued = await husk();
    await repos.jobs.create(newJob(withQueued, { status: 'queued' }));
    t.false(await repos.users.purge(withQueued), 'a queued job is left');
    const withRunning = await husk();
    const running = newJob(withRunning, { status: 'queued' });
    await repos.jobs.create(running);
    t.true(await repos.jobs.transition(running.id, { to: 'running', runId: randomUUID(), changes: { startedAt: at(2) } }, at(2)));
    t.false(await repos.users.purge(withRunning), 'a running job is left');
    const withFinished = await husk();
    await repos.jobs.create(newJob(withFinished, { status: 'failed' }));
    t.true(await repos.users.purge(withFinished), 'a finished job does not keep it');
    t.deepEqual((await repos.users.listDeleted(10)).sort(), [withOutput, withUpload, withQueued, withRunning].sort());
    t.truthy(await repos.users.findById(live));
  });

  test(`${name}: purge deletes a husk only once no output, upload or unfinished job is left, and takes its rows with it`, async (t) => {
    const { repos } = await freshBackend(t, make);
    const other = await fullAccount(repos);
    const { userId, job, output, upload, keyId } = await fullAccount(repos);
    t.false(await repos.users.purge(userId), 'a live account is never purged');
    t.true(await repos.users.markDeleted(userId, at(100)));
    t.deepEqual(await repos.apiKeys.revokeAllForUser(userId, at(100)), [keyId]);
    t.deepEqual(await repos.apiKeys.revokeAllForUser(userId, at(101)), [], 'revoked keys are not revoked again');
    t.is(await repos.identities.unlinkAll(userId), 1);
    t.is(await repos.identities.findBySubject('google', `sub-${userId}`), null);
    t.deepEqual((await repos.uploads.listForUser(userId, 10)).map((row) => row.id), [upload.id]);

    t.false(await repos.users.purge(userId), 'an output is left');
    await repos.history.delete(output.id);
    t.false(await repos.users.purge(userId), 'an upload is left');
    await repos.uploads.delete(upload.id);
    t.false(await repos.users.purge(userId), 'a queued job is left');
    t.true(await repos.jobs.transition(job.id, { to: 'running', runId: randomUUID(), changes: { leaseUntil: at(200), startedAt: at(150) } }, at(150)));
    t.false(await repos.users.purge(userId), 'a running job is left');
    t.true(await repos.jobs.transition(job.id, { to: 'cancelled', changes: { finishedAt: at(160) } }, at(160)));
    t.true(await repos.users.purge(userId));
    t.false(await repos.users.purge(userId), 'once');
    t.deepEqual(await repos.users.listDeleted(10), []);
    t.is(await repos.jobs.findById(job.id), null, 'its jobs went with it');
    t.is((await repos.ledger.list(userId, { page: 1, limit: 10 })).total, 0, 'and its ledger');
    t.deepEqual(await repos.sessions.activeFamilies(userId, at(0)), [], 'and its logins');
    t.deepEqual(await repos.apiKeys.listByUser(userId), []);

    t.truthy(await repos.users.findById(other.userId), 'another account keeps everything');
    t.truthy(await repos.jobs.findById(other.job.id));
    t.truthy(await repos.history.findForUser(other.output.id, other.userId));
    t.is((await repos.uploads.listForUser(other.userId, 10)).length, 1);
    t.is((await repos.apiKeys.listByUser(other.userId)).length, 1);
    t.truthy(await repos.identities.findBySubject('google', `sub-${other.userId}`));
    t.is((await repos.ledger.list(other.userId, { page: 1, limit: 10 })).total, 1);
    t.is((await repos.sessions.activeFamilies(other.userId, at(0))).length, 1);
  });
}
