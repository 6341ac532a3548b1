import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Publication } from '../../core/domain/social.ts';
import type { Backend } from '../support/backends.ts';
import { at, freshBackend, newPublication, sharedBackend, sleep, videoOutput, within, type MakeBackend } from './fixtures.ts';

/**
 * The PublicationRepository guards that social-repositories.contract.ts leaves out: a failed attempt stays
 * ended, requests made inside transactions (as RequestPublication makes them) race safely, a request stores
 * a clean attempt, publications need and go with their output and user, and what callers hold is never the
 * stored row.
 */
export function publicationRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let b: Backend;
  test.before(async () => {
    b = await backend();
  });

  const output = () => videoOutput(b.repos);
  // At the domain's limits: the longest title and description fit their columns.
  const publication = (outputId: string, userId: string, over: Partial<Publication> = {}): Publication =>
    newPublication(outputId, userId, { title: 'T'.repeat(100), description: 'd'.repeat(4999) + '✓', privacy: 'unlisted', ...over });

  test(`${name}: publications: a failed attempt neither begins, keeps a remote ref nor ends again`, async (t) => {
    const { userId, outputId } = await output();
    const { publications } = b.repos;
    const p = publication(outputId, userId);
    t.true((await publications.request(p)).started);
    t.true(await publications.begin(outputId, 'YOUTUBE', p.attemptId, at(1)));
    t.true(await publications.saveRemoteRef(outputId, 'YOUTUBE', p.attemptId, '{"session":"s"}', at(2)));
    t.true(await publications.end(outputId, 'YOUTUBE', p.attemptId, { status: 'failed', error: 'e'.repeat(2000) }, at(3)));
    const failed = await publications.find(outputId, 'YOUTUBE');
    t.deepEqual(failed, { ...p, status: 'failed', error: 'e'.repeat(2000), remoteRef: '{"session":"s"}', updatedAt: at(3) }, 'stored at the domain limits');
    t.false(await publications.begin(outputId, 'YOUTUBE', p.attemptId, at(4)), 'a failed attempt does not begin again');
    t.false(await publications.saveRemoteRef(outputId, 'YOUTUBE', p.attemptId, 'late', at(4)));
    t.false(await publications.end(outputId, 'YOUTUBE', p.attemptId, { status: 'published', url: 'u' }, at(4)));
    t.deepEqual(await publications.find(outputId, 'YOUTUBE'), failed, 'unchanged');
    t.false(await publications.begin(outputId, 'TIKTOK', p.attemptId, at(4)), 'no row, no transition');
  });

  test(`${name}: publications: a request in a transaction that read before another request committed answers the stored row`, async (t) => {
    const { userId, outputId } = await output();
    const winner = publication(outputId, userId);
    const loser = publication(outputId, userId);
    let readDone!: () => void;
    const read = new Promise<void>((resolve) => (readDone = resolve));
    let otherSettled!: () => void;
    const otherDone = new Promise<void>((resolve) => (otherSettled = resolve));
    const inTransaction = b.uow.run(async (tx) => {
      // A read first, as RequestPublication's loop makes for the platform before: on MariaDB it fixes the
      // transaction's snapshot before the other request commits.
      t.deepEqual(await tx.publications.listForOutput(outputId), []);
      readDone();
      // SQLite and memory run one writer at a time, so there the other request waits for this transaction.
      await Promise.race([otherDone, sleep(300)]);
      return tx.publications.request(loser);
    });
    await read;
    const other = b.repos.publications.request(winner);
    void other.finally(otherSettled).catch(() => undefined);
    const [mine, theirs] = await within(Promise.all([inTransaction, other]), 15_000, 'two requests');
    t.is([mine, theirs].filter((r) => r.started).length, 1, 'exactly one started');
    const started = mine.started ? loser : winner;
    t.is(mine.publication?.attemptId, started.attemptId, 'the transaction answers the row as stored');
    t.is(theirs.publication?.attemptId, started.attemptId);
    t.like(await b.repos.publications.find(outputId, 'YOUTUBE'), { attemptId: started.attemptId, status: 'pending' });
  });

  test(`${name}: publications: ten concurrent requests on a failed publication start exactly one new attempt`, async (t) => {
    const { userId, outputId } = await output();
    const first = publication(outputId, userId);
    await b.repos.publications.request(first);
    t.true(await b.repos.publications.end(outputId, 'YOUTUBE', first.attemptId, { status: 'failed', error: 'quota' }, at(1)));
    const attempts = Array.from({ length: 10 }, () => publication(outputId, userId, { updatedAt: at(2) }));
    const results = await within(Promise.all(attempts.map((p) => b.repos.publications.request(p))), 15_000, 'ten requests');
    t.is(results.filter((r) => r.started).length, 1);
    const stored = (await b.repos.publications.find(outputId, 'YOUTUBE'))!;
    t.is(stored.attemptId, attempts[results.findIndex((r) => r.started)]!.attemptId);
    t.like(stored, { status: 'pending', error: null });
    t.true(results.every((r) => r.publication.attemptId === stored.attemptId));
  });

  test(`${name}: publications: ten concurrent requests, each in its own transaction with the output read first, start exactly one`, async (t) => {
    const { userId, outputId } = await output();
    const results = await within(
      Promise.all(
        Array.from({ length: 10 }, () =>
          b.uow.run(async (tx) => {
            await tx.publications.listForOutput(outputId);
            return tx.publications.request(publication(outputId, userId));
          }),
        ),
      ),
      30_000,
      'ten transactions',
    );
    t.is(results.filter((r) => r.started).length, 1);
    const stored = (await b.repos.publications.find(outputId, 'YOUTUBE'))!;
    t.true(results.every((r) => r.publication?.attemptId === stored.attemptId), 'every caller sees the one attempt');
  });

  test(`${name}: publications: a request restarted after a failure in a transaction that rolls back leaves the failed row`, async (t) => {
    const { userId, outputId } = await output();
    const p = publication(outputId, userId);
    await b.repos.publications.request(p);
    await b.repos.publications.end(outputId, 'YOUTUBE', p.attemptId, { status: 'failed', error: 'quota' }, at(1));
    const failed = await b.repos.publications.find(outputId, 'YOUTUBE');
    await t.throwsAsync(
      b.uow.run(async (tx) => {
        t.true((await tx.publications.request(publication(outputId, userId))).started);
        throw new Error('boom');
      }),
      { message: 'boom' },
    );
    t.deepEqual(await b.repos.publications.find(outputId, 'YOUTUBE'), failed);
  });

  test(`${name}: publications: a request needs its output and its user`, async (t) => {
    const { userId, outputId } = await output();
    await t.throwsAsync(b.repos.publications.request(publication(randomUUID(), userId)), undefined, 'no output');
    await t.throwsAsync(b.repos.publications.request(publication(outputId, randomUUID())), undefined, 'no user');
    t.deepEqual(await b.repos.publications.listForOutput(outputId), []);
  });

  test(`${name}: publications: a request stores its attempt pending with nothing of an earlier one; a restart keeps when it was first requested`, async (t) => {
    const { userId, outputId } = await output();
    const { publications } = b.repos;
    const cleared = { status: 'pending', url: null, error: null, remoteRef: null } as const;
    const first = publication(outputId, userId, { status: 'published', url: 'https://example.com/a', error: 'e', remoteRef: 'r', createdAt: at(1), updatedAt: at(1) });
    t.deepEqual(await publications.request(first), { started: true, publication: { ...first, ...cleared } });
    t.deepEqual(await publications.find(outputId, 'YOUTUBE'), { ...first, ...cleared });
    t.true(await publications.end(outputId, 'YOUTUBE', first.attemptId, { status: 'failed', error: 'quota' }, at(2)));
    const next = publication(outputId, userId, { title: 'Second', description: 'Other', privacy: 'public', status: 'failed', url: 'https://example.com/b', error: 'old', remoteRef: 'old', createdAt: at(3), updatedAt: at(3) });
    const restarted = { ...next, ...cleared, createdAt: at(1) };
    t.deepEqual(await publications.request(next), { started: true, publication: restarted });
    t.deepEqual(await publications.find(outputId, 'YOUTUBE'), restarted);
  });

  test(`${name}: publications: one output's publications on two platforms are told apart`, async (t) => {
    const { userId, outputId } = await output();
    const { publications } = b.repos;
    const youtube = publication(outputId, userId);
    const tiktok = publication(outputId, userId, { platform: 'TIKTOK', title: 'On TikTok' });
    t.deepEqual(await publications.request(tiktok), { started: true, publication: tiktok });
    t.deepEqual(await publications.request(youtube), { started: true, publication: youtube }, "TikTok's pending attempt is not YouTube's");
    t.true(await publications.end(outputId, 'YOUTUBE', youtube.attemptId, { status: 'failed', error: 'quota' }, at(2)));
    t.deepEqual(await publications.find(outputId, 'TIKTOK'), tiktok);
    t.like(await publications.find(outputId, 'YOUTUBE'), { platform: 'YOUTUBE', status: 'failed', error: 'quota' });
  });

  test(`${name}: publications: listForOutput lists that output's publications only, by platform`, async (t) => {
    const mine = await output();
    const other = await output();
    const youtube = publication(mine.outputId, mine.userId);
    const tiktok = publication(mine.outputId, mine.userId, { platform: 'TIKTOK' });
    await b.repos.publications.request(youtube);
    await b.repos.publications.request(tiktok);
    await b.repos.publications.request(publication(other.outputId, other.userId, { platform: 'TIKTOK' }));
    t.deepEqual(await b.repos.publications.listForOutput(mine.outputId), [tiktok, youtube]);
  });

  test(`${name}: publications: changing an object passed in or handed out changes no stored publication`, async (t) => {
    // A backend of its own: another test's rollback puts copies back in the store, which would hide a shared row.
    const own = await freshBackend(t, make);
    const { userId, outputId } = await videoOutput(own.repos);
    const { publications } = own.repos;
    const given = publication(outputId, userId);
    const expected = structuredClone(given);
    const made = await publications.request(given);
    given.createdAt.setTime(0);
    given.updatedAt.setTime(0);
    given.title = 'changed';
    t.deepEqual(await publications.find(outputId, 'YOUTUBE'), expected, 'the requested object changed afterwards');
    const repeated = await publications.request(publication(outputId, userId));
    const handedOut = [made.publication, repeated.publication, (await publications.find(outputId, 'YOUTUBE'))!, (await publications.listForOutput(outputId))[0]!];
    for (const handed of handedOut) {
      handed.createdAt.setTime(0);
      handed.updatedAt.setTime(0);
      handed.title = 'changed';
    }
    t.deepEqual(await publications.find(outputId, 'YOUTUBE'), expected, 'a publication handed out changed');
    const began = at(1);
    t.true(await publications.begin(outputId, 'YOUTUBE', expected.attemptId, began));
    began.setTime(0);
    t.deepEqual((await publications.find(outputId, 'YOUTUBE'))!.updatedAt, at(1), 'the time of begin changed afterwards');
    const saved = at(2);
    t.true(await publications.saveRemoteRef(outputId, 'YOUTUBE', expected.attemptId, 'ref', saved));
    saved.setTime(0);
    t.deepEqual((await publications.find(outputId, 'YOUTUBE'))!.updatedAt, at(2), 'the time of saveRemoteRef changed afterwards');
    const ended = at(3);
    t.true(await publications.end(outputId, 'YOUTUBE', expected.attemptId, { status: 'published', url: 'u' }, ended));
    ended.setTime(0);
    t.deepEqual(await publications.find(outputId, 'YOUTUBE'), { ...expected, status: 'published', url: 'u', remoteRef: 'ref', updatedAt: at(3) }, 'the time of end changed afterwards');
  });

  test(`${name}: publications go with their user`, async (t) => {
    const { userId, outputId } = await output();
    const p = publication(outputId, userId);
    await b.repos.publications.request(p);
    await b.repos.publications.request(publication(outputId, userId, { platform: 'TIKTOK' }));
    await deleteUser(b, userId);
    t.deepEqual(await b.repos.publications.listForOutput(outputId), []);
    t.is(await b.repos.publications.find(outputId, 'YOUTUBE'), null);
    t.false(await b.repos.publications.begin(outputId, 'YOUTUBE', p.attemptId, at(1)));
  });
}

/** Removes a user as an operator would (the product has no such use case): the database cascades. */
export async function deleteUser(b: Backend, userId: string): Promise<void> {
  if (b.store) {
    b.store.users.delete(userId);
    return;
  }
  await b.db!.autocommit.write((s) => s.sequelize.query('DELETE FROM users WHERE id = :userId', { replacements: { userId }, ...s.options }));
}
