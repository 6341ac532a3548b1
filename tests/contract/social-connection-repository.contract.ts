import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { SocialConnection } from '../../core/domain/social.ts';
import type { Backend } from '../support/backends.ts';
import { addUser, at, freshBackend, newConnection, sharedBackend, within, type MakeBackend } from './fixtures.ts';
import { deleteUser } from './publication-repository.contract.ts';

/**
 * The SocialConnectionRepository guards that social-repositories.contract.ts leaves out: a stale refresh
 * changes no field, a refresh writes the tokens only, a removal hands the tokens to one caller only,
 * connections need and go with their user, and what callers hold is never the stored row.
 */
export function socialConnectionRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let b: Backend;
  test.before(async () => {
    b = await backend();
  });

  // At the columns' limits: a long sealed token, the longest account id and scope.
  const connection = (userId: string, over: Partial<SocialConnection> = {}): Omit<SocialConnection, 'version'> =>
    newConnection(userId, { platform: 'TIKTOK', accessToken: `v1.k.${'a'.repeat(2000)}`, refreshToken: 'v1.k.refresh', expiresAt: at(86_400_000), accountId: 'o'.repeat(255), scope: 's'.repeat(1024), ...over });

  test(`${name}: connections: a refresh from a stale version changes no field; the current one keeps what it does not replace`, async (t) => {
    const userId = await addUser(b.repos.users);
    const { connections } = b.repos;
    await connections.save(connection(userId));
    const saved = (await connections.find(userId, 'TIKTOK'))!;
    t.deepEqual(saved, { ...connection(userId), version: 1 }, 'stored at the column limits');
    const tokens = { accessToken: 'v1.k.new', refreshToken: null, expiresAt: null, updatedAt: at(5) };
    t.false(await connections.replaceTokens(userId, 'TIKTOK', 0, tokens));
    t.deepEqual(await connections.find(userId, 'TIKTOK'), saved);
    t.true(await connections.replaceTokens(userId, 'TIKTOK', 1, tokens));
    t.deepEqual(await connections.find(userId, 'TIKTOK'), { ...saved, ...tokens, version: 2 });
    t.false(await connections.replaceTokens(userId, 'TIKTOK', 1, { ...tokens, accessToken: 'v1.k.late' }), 'the same version wins once');
    t.is((await connections.find(userId, 'TIKTOK'))!.accessToken, 'v1.k.new');
  });

  test(`${name}: connections: a refresh in a transaction that rolls back leaves the version and the tokens`, async (t) => {
    const userId = await addUser(b.repos.users);
    await b.repos.connections.save(connection(userId));
    const saved = await b.repos.connections.find(userId, 'TIKTOK');
    await t.throwsAsync(
      b.uow.run(async (tx) => {
        t.true(await tx.connections.replaceTokens(userId, 'TIKTOK', 1, { accessToken: 'x', refreshToken: 'y', expiresAt: null, updatedAt: at(1) }));
        throw new Error('boom');
      }),
      { message: 'boom' },
    );
    t.deepEqual(await b.repos.connections.find(userId, 'TIKTOK'), saved);
  });

  test(`${name}: connections: of concurrent removals exactly one answers the tokens`, async (t) => {
    const userId = await addUser(b.repos.users);
    await b.repos.connections.save(connection(userId));
    const removed = await within(Promise.all(Array.from({ length: 5 }, () => b.repos.connections.delete(userId, 'TIKTOK'))), 15_000, 'five removals');
    t.is(removed.filter((r) => r !== null).length, 1, 'the grant is revoked once');
    t.like(removed.find((r) => r !== null), { accessToken: connection(userId).accessToken, refreshToken: 'v1.k.refresh' });
    t.is(await b.repos.connections.find(userId, 'TIKTOK'), null);
  });

  test(`${name}: connections: removing one platform's connection keeps the user's others`, async (t) => {
    const userId = await addUser(b.repos.users);
    await b.repos.connections.save(connection(userId));
    await b.repos.connections.save(connection(userId, { platform: 'YOUTUBE', accessToken: 'v1.k.youtube' }));
    t.like(await b.repos.connections.delete(userId, 'YOUTUBE'), { platform: 'YOUTUBE', accessToken: 'v1.k.youtube' });
    t.is(await b.repos.connections.find(userId, 'YOUTUBE'), null);
    t.like(await b.repos.connections.find(userId, 'TIKTOK'), { platform: 'TIKTOK', accessToken: connection(userId).accessToken, version: 1 });
    t.deepEqual((await b.repos.connections.listForUser(userId)).map((c) => c.platform), ['TIKTOK']);
  });

  test(`${name}: connections go with their user`, async (t) => {
    const userId = await addUser(b.repos.users);
    await b.repos.connections.save(connection(userId));
    await b.repos.connections.save(connection(userId, { platform: 'YOUTUBE' }));
    await deleteUser(b, userId);
    t.is(await b.repos.connections.find(userId, 'TIKTOK'), null);
    t.deepEqual(await b.repos.connections.listForUser(userId), []);
    t.false(await b.repos.connections.replaceTokens(userId, 'YOUTUBE', 1, { accessToken: 'x', refreshToken: null, expiresAt: null, updatedAt: at(1) }));
    t.is(await b.repos.connections.delete(userId, 'YOUTUBE'), null);
    t.false((await b.repos.connections.listAfter(null, 1000)).some((c) => c.userId === userId), 'not walked');
  });

  test(`${name}: connections: a connection needs its user`, async (t) => {
    const userId = randomUUID();
    await t.throwsAsync(b.repos.connections.save(connection(userId)));
    t.is(await b.repos.connections.find(userId, 'TIKTOK'), null);
  });

  test(`${name}: connections: a scope longer than its column keeps its first 1024 characters`, async (t) => {
    const userId = await addUser(b.repos.users);
    await b.repos.connections.save(connection(userId, { scope: `${'s'.repeat(1000)}${'t'.repeat(500)}` }));
    t.is((await b.repos.connections.find(userId, 'TIKTOK'))!.scope, `${'s'.repeat(1000)}${'t'.repeat(24)}`);
  });

  test(`${name}: connections: a refresh writes the tokens and nothing else the caller's object holds`, async (t) => {
    const userId = await addUser(b.repos.users);
    const { connections } = b.repos;
    await connections.save(connection(userId));
    const saved = (await connections.find(userId, 'TIKTOK'))!;
    // A whole connection passed as the tokens (the port's type lets it through): its other fields are not the refresh.
    const refreshed = { ...connection(randomUUID(), { platform: 'YOUTUBE', accountId: 'someone-else', scope: 'other', createdAt: at(9) }), version: 7, accessToken: 'v1.k.new', refreshToken: 'v1.k.r2', expiresAt: at(7), updatedAt: at(8) };
    t.true(await connections.replaceTokens(userId, 'TIKTOK', 1, refreshed));
    t.deepEqual(await connections.find(userId, 'TIKTOK'), { ...saved, accessToken: 'v1.k.new', refreshToken: 'v1.k.r2', expiresAt: at(7), updatedAt: at(8), version: 2 });
  });

  test(`${name}: connections: changing an object passed in or handed out changes no stored connection`, async (t) => {
    // A backend of its own: another test's rollback puts copies back in the store, which would hide a shared row.
    const own = await freshBackend(t, make);
    const userId = await addUser(own.repos.users);
    const { connections } = own.repos;
    const given = connection(userId);
    const expected = { ...connection(userId), version: 1 };
    await connections.save(given);
    for (const date of [given.expiresAt!, given.createdAt, given.updatedAt]) date.setTime(0);
    t.deepEqual(await connections.find(userId, 'TIKTOK'), expected, 'the saved object changed afterwards');
    const handedOut = [
      (await connections.find(userId, 'TIKTOK'))!,
      (await connections.listForUser(userId))[0]!,
      (await connections.listAfter(null, 100_000)).find((c) => c.userId === userId)!,
    ];
    for (const handed of handedOut) {
      for (const date of [handed.expiresAt!, handed.createdAt, handed.updatedAt]) date.setTime(0);
      handed.accessToken = 'changed';
    }
    t.deepEqual(await connections.find(userId, 'TIKTOK'), expected, 'a connection handed out changed');
    const tokens = { accessToken: 'v1.k.new', refreshToken: null, expiresAt: at(7), updatedAt: at(8) };
    t.true(await connections.replaceTokens(userId, 'TIKTOK', 1, tokens));
    tokens.expiresAt.setTime(0);
    tokens.updatedAt.setTime(0);
    t.deepEqual(await connections.find(userId, 'TIKTOK'), { ...expected, accessToken: 'v1.k.new', refreshToken: null, expiresAt: at(7), updatedAt: at(8), version: 2 }, 'the tokens changed afterwards');
  });
}
