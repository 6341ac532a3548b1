import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Backend } from '../support/backends.ts';
import { addUser, at, newConnection, newPublication, sharedBackend, videoOutput, type MakeBackend } from './fixtures.ts';

/** The SocialConnectionRepository and PublicationRepository contracts for one backend. */
export function socialRepositoriesContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let b: Backend;
  test.before(async () => {
    b = await backend();
  });

  const connection = newConnection;
  const output = () => videoOutput(b.repos);
  const publication = newPublication;

  test(`${name}: connections: save (version 1), find, list; save again replaces; delete answers what it removed`, async (t) => {
    const userId = await addUser(b.repos.users);
    const { connections } = b.repos;
    await connections.save(connection(userId));
    await connections.save(connection(userId, { platform: 'TIKTOK', refreshToken: null, expiresAt: null, accountId: null, scope: null }));
    t.deepEqual(await connections.find(userId, 'YOUTUBE'), { ...connection(userId), version: 1 });
    t.deepEqual((await connections.listForUser(userId)).map((c) => c.platform), ['TIKTOK', 'YOUTUBE']);
    t.true(await connections.replaceTokens(userId, 'YOUTUBE', 1, { accessToken: 'a2', refreshToken: 'r2', expiresAt: null, updatedAt: at(5) }));
    await connections.save(connection(userId, { accessToken: 'again' }));
    t.like(await connections.find(userId, 'YOUTUBE'), { accessToken: 'again', version: 1 });
    t.like(await connections.delete(userId, 'YOUTUBE'), { accessToken: 'again', refreshToken: 'v1.k.sealed-refresh' });
    t.is(await connections.delete(userId, 'YOUTUBE'), null);
    t.is(await connections.find(userId, 'YOUTUBE'), null);
    t.deepEqual(await connections.listForUser(await addUser(b.repos.users)), []);
  });

  test(`${name}: connections: replaceTokens only from the current version; of two racing refreshes exactly one wins`, async (t) => {
    const userId = await addUser(b.repos.users);
    const { connections } = b.repos;
    await connections.save(connection(userId));
    t.false(await connections.replaceTokens(userId, 'YOUTUBE', 2, { accessToken: 'stale', refreshToken: 'stale', expiresAt: null, updatedAt: at(1) }));
    t.like(await connections.find(userId, 'YOUTUBE'), { accessToken: 'v1.k.sealed-access', version: 1 });
    const results = await Promise.all(
      ['one', 'two', 'three'].map((token) => connections.replaceTokens(userId, 'YOUTUBE', 1, { accessToken: token, refreshToken: token, expiresAt: at(9), updatedAt: at(2) })),
    );
    t.is(results.filter(Boolean).length, 1);
    const after = (await connections.find(userId, 'YOUTUBE'))!;
    t.is(after.version, 2);
    t.is(after.accessToken, ['one', 'two', 'three'][results.indexOf(true)]);
    t.false(await connections.replaceTokens(userId, 'TIKTOK', 1, { accessToken: 'x', refreshToken: null, expiresAt: null, updatedAt: at(3) }), 'no connection, no write');
  });

  test(`${name}: connections: listAfter walks every connection once, by user then platform`, async (t) => {
    const users = [await addUser(b.repos.users), await addUser(b.repos.users)];
    for (const userId of users) {
      await b.repos.connections.save(connection(userId));
      await b.repos.connections.save(connection(userId, { platform: 'TIKTOK' }));
    }
    const seen: string[] = [];
    let after: { userId: string; platform: 'YOUTUBE' | 'TIKTOK' } | null = null;
    for (;;) {
      const page = await b.repos.connections.listAfter(after, 3);
      seen.push(...page.map((c) => `${c.userId}/${c.platform}`));
      if (page.length < 3) break;
      after = { userId: page[2]!.userId, platform: page[2]!.platform };
    }
    t.is(new Set(seen).size, seen.length, 'none twice');
    const ours = seen.filter((key) => users.some((userId) => key.startsWith(userId)));
    t.deepEqual(ours, [...users].sort().flatMap((userId) => [`${userId}/TIKTOK`, `${userId}/YOUTUBE`]));
  });

  test(`${name}: publications: request starts once; a repeat keeps the row; only a failed one starts again, cleared`, async (t) => {
    const { userId, outputId } = await output();
    const { publications } = b.repos;
    const first = publication(outputId, userId);
    t.deepEqual(await publications.request(first), { started: true, publication: first });
    const repeat = await publications.request(publication(outputId, userId, { title: 'Other' }));
    t.false(repeat.started);
    t.deepEqual(repeat.publication, first);
    t.true(await publications.begin(outputId, 'YOUTUBE', first.attemptId, at(1)));
    t.false((await publications.request(publication(outputId, userId))).started, 'uploading stays');
    t.true(await publications.saveRemoteRef(outputId, 'YOUTUBE', first.attemptId, '{"session":"s"}', at(2)));
    t.true(await publications.end(outputId, 'YOUTUBE', first.attemptId, { status: 'failed', error: 'quota' }, at(3)));
    const next = publication(outputId, userId, { title: 'Second', createdAt: at(4), updatedAt: at(4) });
    const restarted = await publications.request(next);
    t.true(restarted.started);
    t.like(restarted.publication, { status: 'pending', attemptId: next.attemptId, title: 'Second', url: null, error: null, remoteRef: null });
    t.true(await publications.begin(outputId, 'YOUTUBE', next.attemptId, at(5)));
    t.true(await publications.end(outputId, 'YOUTUBE', next.attemptId, { status: 'published', url: 'https://www.youtube.com/watch?v=x' }, at(6)));
    const published = await publications.request(publication(outputId, userId));
    t.false(published.started, 'published stays published');
    t.like(published.publication, { status: 'published', url: 'https://www.youtube.com/watch?v=x', error: null });
  });

  test(`${name}: publications: ten concurrent requests start exactly one`, async (t) => {
    const { userId, outputId } = await output();
    const results = await Promise.all(Array.from({ length: 10 }, () => b.repos.publications.request(publication(outputId, userId))));
    t.is(results.filter((r) => r.started).length, 1);
    const winner = results.find((r) => r.started)!.publication.attemptId;
    t.true(results.every((r) => r.publication.attemptId === winner));
  });

  test(`${name}: publications: every transition is fenced by attempt and state`, async (t) => {
    const { userId, outputId } = await output();
    const { publications } = b.repos;
    const p = publication(outputId, userId);
    await publications.request(p);
    const other = randomUUID();
    t.false(await publications.saveRemoteRef(outputId, 'YOUTUBE', p.attemptId, 'ref', at(1)), 'no remote ref before the upload began');
    t.false(await publications.begin(outputId, 'YOUTUBE', other, at(1)), 'another attempt cannot begin');
    t.true(await publications.begin(outputId, 'YOUTUBE', p.attemptId, at(1)));
    t.true(await publications.begin(outputId, 'YOUTUBE', p.attemptId, at(2)), 'a redelivery of the same attempt goes on');
    t.false(await publications.saveRemoteRef(outputId, 'YOUTUBE', other, 'ref', at(2)));
    t.false(await publications.end(outputId, 'YOUTUBE', other, { status: 'published', url: 'u' }, at(3)), 'another attempt cannot end it');
    t.true(await publications.end(outputId, 'YOUTUBE', p.attemptId, { status: 'published', url: 'u' }, at(3)));
    t.false(await publications.end(outputId, 'YOUTUBE', p.attemptId, { status: 'failed', error: 'late' }, at(4)), 'ended once');
    t.false(await publications.begin(outputId, 'YOUTUBE', p.attemptId, at(4)), 'a finished publication does not begin again');
    t.false(await publications.saveRemoteRef(outputId, 'YOUTUBE', p.attemptId, 'late', at(4)));
    t.like(await publications.find(outputId, 'YOUTUBE'), { status: 'published', url: 'u', error: null, remoteRef: null });
  });

  test(`${name}: publications and connections roll back with their unit of work and go with their output`, async (t) => {
    const { userId, outputId } = await output();
    await t.throwsAsync(
      b.uow.run(async (tx) => {
        await tx.publications.request(publication(outputId, userId));
        await tx.connections.save(connection(userId));
        throw new Error('boom');
      }),
      { message: 'boom' },
    );
    t.deepEqual(await b.repos.publications.listForOutput(outputId), []);
    t.is(await b.repos.connections.find(userId, 'YOUTUBE'), null);
    await b.repos.publications.request(publication(outputId, userId));
    await b.repos.publications.request(publication(outputId, userId, { platform: 'TIKTOK' }));
    t.is((await b.repos.publications.listForOutput(outputId)).length, 2);
    await b.repos.history.delete(outputId);
    t.deepEqual(await b.repos.publications.listForOutput(outputId), []);
  });
}
