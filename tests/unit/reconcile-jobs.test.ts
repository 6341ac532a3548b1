import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import { ReconcileJobs } from '../../core/use-cases/generation/reconcile-jobs.use-case.ts';
import { generationHarness, quietLogger, type Harness } from '../support/generation-harness.ts';

const recording = () => {
  const warnings: string[] = [];
  const logger: Logger = { ...quietLogger, warn: (message) => void warnings.push(message), child: () => logger };
  return { logger, warnings };
};

const setup = async (t: { teardown(fn: () => Promise<void>): void }, storage?: (inner: ObjectStorage) => ObjectStorage) => {
  const h = await generationHarness(storage ? { storage } : {});
  t.teardown(() => h.dispose());
  const { logger, warnings } = recording();
  const reconciler = new ReconcileJobs({
    uow: h.uow,
    jobs: h.repos.jobs,
    staged: h.repos.staged,
    storage: h.storage,
    lifecycle: h.lifecycle,
    payment: h.payment,
    clock: h.clock,
    logger,
    stalledAfterSeconds: 30 * 60,
    orphanedAfterSeconds: 60 * 60,
  });
  return { h, reconciler, warnings };
};

const submitted = async (h: Harness, cost: number) => {
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(cost);
  const result = await h.submit.execute({ userId, role: 'user', templateId });
  if (!result.ok) throw new Error(JSON.stringify(result));
  return { userId, jobId: result.value.job.id };
};

test('a finished job that owes a refund gets it once, and the repair is logged', async (t) => {
  const { h, reconciler, warnings } = await setup(t);
  const { userId, jobId } = await submitted(h, 4);
  // Failed without its refund: data from before the ending and the refund were one transaction.
  await h.repos.jobs.transition(jobId, { to: 'failed', changes: { finishedAt: h.clock.now() } }, h.clock.now());
  t.is(await h.balance(userId), 6);
  t.deepEqual((await reconciler.execute()).refunded, [jobId]);
  t.is(await h.balance(userId), 10);
  t.is((await h.repos.jobs.findById(jobId))!.refundedCoins, 4);
  t.deepEqual((await reconciler.execute()).refunded, [], 'once');
  t.is(await h.balance(userId), 10);
  t.true(warnings.some((w) => w.startsWith('reconciler: refunded')));
});

test('a running job whose lease ended long ago is failed and refunded; a live one, or one taken over meanwhile, is left alone', async (t) => {
  const { h, reconciler, warnings } = await setup(t);
  const stalled = await submitted(h, 3);
  const live = await submitted(h, 3);
  const now = h.clock.now();
  const lease = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
  await h.repos.jobs.transition(stalled.jobId, { to: 'running', runId: randomUUID(), changes: { leaseUntil: lease(0) } }, now);
  await h.repos.jobs.transition(live.jobId, { to: 'running', runId: randomUUID(), changes: { leaseUntil: lease(40) } }, now);
  h.advance(20);
  t.deepEqual((await reconciler.execute()).abandoned, [], 'not yet: 30 minutes');
  h.advance(11);
  t.deepEqual((await reconciler.execute()).abandoned, [stalled.jobId]);
  const job = (await h.repos.jobs.findById(stalled.jobId))!;
  t.is(job.status, 'failed');
  t.is(job.error?.code, 'JOB.ABANDONED');
  t.is(await h.balance(stalled.userId), 10, 'refunded');
  t.is((await h.repos.jobs.findById(live.jobId))!.status, 'running');
  t.true(warnings.some((w) => w.startsWith('reconciler: failed and refunded')));
  t.is((await h.eventsOf(stalled.userId)).filter((e) => e.type === 'job.failed').length, 1, 'its owner hears of it');
});

// The reconciler (and a failing or cancelled attempt) ends a job fenced by the run id it saw. A later attempt that took
// the job over holds it under another run id: the stale ending must move nothing, refund nothing and tell nobody.
test('an ending fenced by an attempt that was taken over does nothing: the job stays with the new attempt, charged, and no end is told', async (t) => {
  const { h } = await setup(t);
  const { userId, jobId } = await submitted(h, 3);
  const [first, second] = [randomUUID(), randomUUID()];
  t.true(await h.repos.jobs.transition(jobId, { to: 'running', runId: first, changes: {} }, h.clock.now()));
  t.true(await h.repos.jobs.transition(jobId, { to: 'running', runId: second, changes: {} }, h.clock.now()), 'taken over');
  const endings = [{ to: 'failed', error: { code: 'JOB.ABANDONED', message: 'late' }, fence: first }, { to: 'cancelled', fence: first }] as const;
  for (const ending of endings) t.like(await h.uow.run((tx) => h.lifecycle.end(tx, jobId, ending)), { ended: false }, ending.to);
  t.like(await h.repos.jobs.findById(jobId), { status: 'running', runId: second, refundedCoins: 0, error: null });
  t.is(await h.balance(userId), 7);
  t.deepEqual((await h.eventsOf(userId)).map((e) => e.type).filter((type) => type === 'job.failed' || type === 'job.cancelled'), []);
});

test('files staged by attempts that can no longer commit them are deleted once old enough; a failing delete is retried later', async (t) => {
  let failDelete = true;
  const { h, reconciler } = await setup(t, (inner) =>
    Object.assign(Object.create(inner) as ObjectStorage, {
      delete: async (key: string) => {
        if (failDelete && key.endsWith('first.png')) throw new Error('EACCES');
        return inner.delete(key);
      },
    }),
  );
  const { jobId } = await submitted(h, 1);
  const runId = randomUUID();
  // A live attempt: its lease runs well past the test's hour.
  await h.repos.jobs.transition(jobId, { to: 'running', runId, changes: { leaseUntil: new Date(h.clock.now().getTime() + 3 * 3600_000) } }, h.clock.now());
  for (const name of ['first.png', 'second.png']) {
    const key = `outputs/u/${jobId}/${name}`;
    await h.repos.staged.add({ storageKey: key, jobId, runId: randomUUID(), createdAt: h.clock.now() });
    await h.storage.put(key, Buffer.from(name), { contentType: 'image/png' });
  }
  const liveKey = `outputs/u/${jobId}/live.png`;
  await h.repos.staged.add({ storageKey: liveKey, jobId, runId, createdAt: h.clock.now() });
  await h.storage.put(liveKey, Buffer.from('live'), { contentType: 'image/png' });

  t.is((await reconciler.execute()).filesDeleted, 0, 'too young');
  h.advance(61);
  t.is((await reconciler.execute()).filesDeleted, 1, 'the failing delete does not stop the other');
  t.is(await h.storage.head(`outputs/u/${jobId}/second.png`), null);
  t.not(await h.storage.head(`outputs/u/${jobId}/first.png`), null);
  failDelete = false;
  t.is((await reconciler.execute()).filesDeleted, 1, 'retried');
  t.is(await h.storage.head(`outputs/u/${jobId}/first.png`), null);
  t.not(await h.storage.head(liveKey), null, 'the running attempt keeps its staged file');
  t.deepEqual((await h.repos.staged.listForRun(runId)).map((s) => s.storageKey), [liveKey]);
});

// Pins that a job refunded by someone else between the reconciler's listing and its own refund (the worker's failure,
// say) is neither refunded again nor reported or logged as repaired.
test('a job refunded after it was listed is not reported or logged as refunded', async (t) => {
  const { h, warnings } = await setup(t);
  const { userId, jobId } = await submitted(h, 4);
  await h.repos.jobs.transition(jobId, { to: 'failed', changes: { finishedAt: h.clock.now() } }, h.clock.now());
  const listed = await h.repos.jobs.listUnrefunded(['failed', 'cancelled', 'expired'], 10);
  // The refund lands first; the reconciler then works from its older listing.
  await h.uow.run(async (tx) => h.payment.refundJob(tx, (await tx.jobs.findById(jobId))!, h.clock.now()));
  const { logger } = recording();
  const reconciler = new ReconcileJobs({
    uow: h.uow,
    jobs: Object.assign(Object.create(h.repos.jobs) as typeof h.repos.jobs, { listUnrefunded: async () => listed }),
    staged: h.repos.staged,
    storage: h.storage,
    lifecycle: h.lifecycle,
    payment: h.payment,
    clock: h.clock,
    logger: { ...logger, warn: (message: string) => void warnings.push(message) },
    stalledAfterSeconds: 30 * 60,
    orphanedAfterSeconds: 60 * 60,
  });
  t.deepEqual((await reconciler.execute()).refunded, []);
  t.is(await h.balance(userId), 10);
  t.false(warnings.some((w) => w.startsWith('reconciler: refunded')));
});
