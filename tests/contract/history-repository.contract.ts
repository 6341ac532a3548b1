import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { HistoryItem } from '../../core/domain/job.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, DAY, era, historyItem, HOUR, newJob, sharedBackend, type MakeBackend } from './fixtures.ts';

const ids = (items: HistoryItem[]) => items.map((item) => item.id);

/** Registers the HistoryRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function historyRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let history: HistoryRepository;
  test.before(async () => {
    ({ repos } = await backend());
    history = repos.history;
  });
  const user = () => addUser(repos.users);

  test(`${name}: add stores an item that findForUser reads back exactly`, async (t) => {
    const userId = await user();
    const item = historyItem(userId, randomUUID(), {
      templateId: randomUUID(),
      mimeType: 'video/mp4',
      sizeBytes: 5_000_000_000,
      width: null,
      height: null,
      durationSeconds: 2.5,
      usedParameters: { prompt: 'a "cat" ✓ 🐈', steps: 20, nested: { list: [1, 'two'] } },
      createdAt: at(1234),
      expiresAt: at(1234 + DAY),
    });
    t.true(await history.add(item));
    t.deepEqual(await history.findForUser(item.id, userId), item);
  });

  test(`${name}: add is idempotent per (jobId, fileName): the second is false and changes nothing`, async (t) => {
    const userId = await user();
    const jobId = randomUUID();
    const first = historyItem(userId, jobId, { fileName: 'ComfyUI_00001_.png' });
    t.true(await history.add(first));
    const again = { ...first, id: randomUUID(), storageKey: `${first.storageKey}.retry`, sizeBytes: 1 };
    t.false(await history.add(again));
    t.deepEqual(await history.listForJob(jobId), [first]);
    t.is(await history.findForUser(again.id, userId), null);
    t.true(await history.add(historyItem(userId, jobId, { fileName: 'ComfyUI_00002_.png' })), 'another file of the job');
    t.true(await history.add(historyItem(userId, randomUUID(), { fileName: 'ComfyUI_00001_.png' })), 'the same file name of another job');
  });

  test(`${name}: findForUser finds the owner's item only`, async (t) => {
    const owner = await user();
    const other = await user();
    const item = historyItem(owner, randomUUID());
    await history.add(item);
    t.deepEqual(await history.findForUser(item.id, owner), item);
    t.is(await history.findForUser(item.id, other), null);
    t.is(await history.findForUser(randomUUID(), owner), null);
  });

  test(`${name}: listForUser pages the user's items newest first`, async (t) => {
    const owner = await user();
    const other = await user();
    const jobId = randomUUID();
    const items: HistoryItem[] = [];
    for (const minute of [2, 5, 1, 4, 3]) {
      const item = historyItem(owner, jobId, { fileName: `f${minute}.png`, createdAt: at(minute * 60_000) });
      await history.add(item);
      items.push(item);
    }
    await history.add(historyItem(other, randomUUID(), { createdAt: at(10 * 60_000) }));
    const newestFirst = [...items].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    t.deepEqual(await history.listForUser(owner, { page: 1, limit: 2 }), { items: newestFirst.slice(0, 2), page: 1, limit: 2, total: 5, totalPages: 3 });
    t.deepEqual(ids((await history.listForUser(owner, { page: 2, limit: 2 })).items), ids(newestFirst.slice(2, 4)));
    t.deepEqual(ids((await history.listForUser(owner, { page: 3, limit: 2 })).items), ids(newestFirst.slice(4)));
    t.deepEqual((await history.listForUser(randomUUID(), { page: 1, limit: 2 })).total, 0);
  });

  test(`${name}: listForUser leaves out the outputs of the user's test runs (ADR 043); listForJob still lists them`, async (t) => {
    const owner = await user();
    const ordinary = newJob(owner);
    const testRun = newJob(owner, { testRun: true });
    for (const job of [ordinary, testRun]) if (!(await repos.jobs.create(job))) throw new Error('job not created');
    const kept = historyItem(owner, ordinary.id, { createdAt: at(60_000) });
    const hidden = historyItem(owner, testRun.id, { createdAt: at(120_000) });
    await history.add(kept);
    await history.add(hidden);
    t.deepEqual(await history.listForUser(owner, { page: 1, limit: 10 }), { items: [kept], page: 1, limit: 10, total: 1, totalPages: 1 });
    t.deepEqual(await history.listForJob(testRun.id), [hidden]);
    t.deepEqual(await history.findForUser(hidden.id, owner), hidden);
  });

  test(`${name}: listAllForUser lists every item of the user, test runs' too, oldest first, at most max`, async (t) => {
    const owner = await user();
    const other = await user();
    const ordinary = newJob(owner);
    const testRun = newJob(owner, { testRun: true });
    const theirs = newJob(other);
    for (const job of [ordinary, testRun, theirs]) if (!(await repos.jobs.create(job))) throw new Error('job not created');
    const newest = historyItem(owner, ordinary.id, { createdAt: at(90_000) });
    const oldest = historyItem(owner, testRun.id, { createdAt: at(30_000) });
    const middle = historyItem(owner, ordinary.id, { createdAt: at(60_000) });
    for (const item of [newest, oldest, middle, historyItem(other, theirs.id, { createdAt: at(1_000) })]) await history.add(item);
    t.deepEqual(await history.listAllForUser(owner, 10), [oldest, middle, newest]);
    t.deepEqual(await history.listAllForUser(owner, 2), [oldest, middle]);
    t.deepEqual(await history.listAllForUser(randomUUID(), 10), []);
  });

  test(`${name}: listForJob lists that job's items only`, async (t) => {
    const userId = await user();
    const jobId = randomUUID();
    const mine = [historyItem(userId, jobId, { fileName: 'a.png', createdAt: at(1) }), historyItem(userId, jobId, { fileName: 'b.png', createdAt: at(2) })];
    for (const item of mine) await history.add(item);
    await history.add(historyItem(userId, randomUUID(), { fileName: 'a.png' }));
    t.deepEqual([...(await history.listForJob(jobId))].sort((a, b) => a.fileName.localeCompare(b.fileName)), mine);
    t.deepEqual(await history.listForJob(randomUUID()), []);
  });

  test(`${name}: listForJobs lists the items of exactly those jobs, each job's oldest first`, async (t) => {
    const userId = await user();
    const [first, second, other] = [randomUUID(), randomUUID(), randomUUID()];
    const items = [
      historyItem(userId, first, { fileName: 'b.png', createdAt: at(2) }),
      historyItem(userId, second, { fileName: 'a.png', createdAt: at(5) }),
      historyItem(userId, first, { fileName: 'z.png', createdAt: at(1) }),
      historyItem(userId, first, { fileName: 'a.png', createdAt: at(2) }),
      historyItem(userId, other, { fileName: 'a.png', createdAt: at(3) }),
    ];
    for (const item of items) await history.add(item);
    const listed = await history.listForJobs([second, first, randomUUID()]);
    t.deepEqual(
      listed.filter((item) => item.jobId === first),
      [items[2], items[3], items[0]],
    );
    t.deepEqual(listed.filter((item) => item.jobId === second), [items[1]]);
    t.is(listed.length, 4);
    t.deepEqual(await history.listForJobs([]), []);
    t.deepEqual(await history.listForJobs([other]), [items[4]]);
  });

  test(`${name}: delete removes the item; deleting it again or an unknown id is harmless`, async (t) => {
    const userId = await user();
    const jobId = randomUUID();
    const doomed = historyItem(userId, jobId, { fileName: 'doomed.png' });
    const kept = historyItem(userId, jobId, { fileName: 'kept.png' });
    await history.add(doomed);
    await history.add(kept);
    await history.delete(doomed.id);
    t.is(await history.findForUser(doomed.id, userId), null);
    t.deepEqual(await history.listForJob(jobId), [kept]);
    await history.delete(doomed.id);
    await history.delete(randomUUID());
    t.deepEqual(await history.findForUser(kept.id, userId), kept);
    t.true(await history.add({ ...doomed, id: randomUUID() }), 'its (jobId, fileName) is free again');
  });

  test(`${name}: listExpired lists items that expired before the cut-off, at most max`, async (t) => {
    const time = era(3);
    const userId = await user();
    const jobId = randomUUID();
    const expired = [1, 2, 3].map((hour) => historyItem(userId, jobId, { fileName: `old-${hour}.png`, createdAt: time(0), expiresAt: time(hour * HOUR) }));
    for (const item of expired) await history.add(item);
    await history.add(historyItem(userId, jobId, { fileName: 'young.png', createdAt: time(0), expiresAt: time(10 * HOUR) }));
    const listed = await history.listExpired(time(5 * HOUR), 100);
    t.deepEqual(ids(listed).sort(), ids(expired).sort());
    t.deepEqual(listed.find((item) => item.id === expired[0]!.id), expired[0]);
    t.is((await history.listExpired(time(5 * HOUR), 2)).length, 2);
    t.deepEqual(await history.listExpired(time(0), 100), []);
  });
}
