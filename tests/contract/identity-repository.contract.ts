import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { IdentityRepository, LinkedIdentity } from '../../core/ports/identity-repository.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { UnlinkIdentity } from '../../core/use-cases/auth/unlink-identity.use-case.ts';
import { addUser, at, sharedBackend, type MakeBackend } from './fixtures.ts';

/** Registers the IdentityRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function identityRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let fixture: { identities: IdentityRepository; uow: UnitOfWork; addUser(): Promise<string> };
  test.before(async () => {
    const { repos, uow } = await backend();
    fixture = { identities: repos.identities, uow, addUser: () => addUser(repos.users) };
  });

  const identity = (userId: string, provider: string, overrides: Partial<LinkedIdentity> = {}): LinkedIdentity => ({
    userId,
    provider,
    subject: `sub-${randomUUID()}`,
    email: 'someone@example.com',
    createdAt: at(0),
    ...overrides,
  });

  test(`${name}: link, then find by (provider, subject) and list the user's identities oldest first`, async (t) => {
    const user = await fixture.addUser();
    const acme = identity(user, 'acme', { createdAt: at(2000) });
    const google = identity(user, 'google', { createdAt: at(1000), email: null });
    t.true(await fixture.identities.link(acme));
    t.true(await fixture.identities.link(google));
    t.deepEqual(await fixture.identities.findBySubject('acme', acme.subject), acme);
    t.is(await fixture.identities.findBySubject('google', acme.subject), null);
    t.is(await fixture.identities.findBySubject('acme', 'nobody'), null);
    t.deepEqual(await fixture.identities.listForUser(user), [google, acme]);
    t.deepEqual(await fixture.identities.listForUser(await fixture.addUser()), []);
  });

  test(`${name}: a (provider, subject) links to one user only, and a user has one identity per provider`, async (t) => {
    const first = await fixture.addUser();
    const second = await fixture.addUser();
    const taken = identity(first, 'acme');
    t.true(await fixture.identities.link(taken));
    t.false(await fixture.identities.link({ ...taken, userId: second }));
    t.false(await fixture.identities.link(identity(first, 'acme')));
    t.is((await fixture.identities.findBySubject('acme', taken.subject))!.userId, first);
    t.deepEqual(await fixture.identities.listForUser(second), []);
    t.true(await fixture.identities.link(identity(second, 'acme')));
  });

  test(`${name}: unlink removes the user's identity at one provider only`, async (t) => {
    const user = await fixture.addUser();
    const other = await fixture.addUser();
    const mine = identity(user, 'acme');
    const theirs = identity(other, 'acme');
    await fixture.identities.link(mine);
    await fixture.identities.link(theirs);
    await fixture.identities.link(identity(user, 'google'));
    t.false(await fixture.identities.unlink(user, 'nowhere'));
    t.true(await fixture.identities.unlink(user, 'acme'));
    t.false(await fixture.identities.unlink(user, 'acme'));
    t.is(await fixture.identities.findBySubject('acme', mine.subject), null);
    t.deepEqual((await fixture.identities.listForUser(user)).map((i) => i.provider), ['google']);
    t.deepEqual(await fixture.identities.findBySubject('acme', theirs.subject), theirs);
    // The subject is free again: it may be linked anew.
    t.true(await fixture.identities.link({ ...mine, createdAt: at(5) }));
  });

  test(`${name}: a link made in a unit of work that rolls back is not there`, async (t) => {
    const user = await fixture.addUser();
    const lost = identity(user, 'acme');
    await t.throwsAsync(
      fixture.uow.run(async (tx) => {
        t.true(await tx.identities.link(lost));
        t.is((await tx.identities.listForUser(user)).length, 1);
        throw new Error('rolled back');
      }),
    );
    t.is(await fixture.identities.findBySubject('acme', lost.subject), null);
  });

  test(`${name}: listing a user's identities in a transaction holds them: two removals at once never leave a passwordless user with none`, async (t) => {
    const unlink = new UnlinkIdentity({ uow: fixture.uow });
    for (let round = 0; round < 8; round += 1) {
      const user = await addUser((await backend()).repos.users, { passwordHash: null });
      await fixture.identities.link(identity(user, 'acme'));
      await fixture.identities.link(identity(user, 'google'));
      const results = await Promise.all([unlink.execute({ userId: user, provider: 'acme' }), unlink.execute({ userId: user, provider: 'google' })]);
      t.is(results.filter((result) => result.ok).length, 1, `round ${round}: ${JSON.stringify(results)}`);
      t.is((await fixture.identities.listForUser(user)).length, 1);
    }
  });
}
