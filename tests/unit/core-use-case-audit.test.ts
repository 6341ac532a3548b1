import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { NO_JOB_METRICS } from '../../core/ports/metrics.port.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { EngineRunRequest, EngineRunResult, EngineSlot, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { Blake3ContentHasher } from '../../adapters/crypto/blake3-content-hasher.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { SharpImageInspector } from '../../adapters/sharp/sharp-image-inspector.ts';
import { StoreUpload } from '../../core/use-cases/uploads/store-upload.use-case.ts';
import { DeleteUpload, FindUploadByHash, MintUploadFromHash, UploadDownloadUrl } from '../../core/use-cases/uploads/upload-assets.use-case.ts';
import { blake3Of, makeImage } from '../support/images.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { PublishTemplate } from '../../core/use-cases/templates/publish-template.use-case.ts';
import { SetParameterMap } from '../../core/use-cases/templates/set-parameter-map.use-case.ts';
import { AdminAdjustCoins } from '../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import { generationHarness, type Harness, type HarnessOptions } from '../support/generation-harness.ts';

/** The audit of the core use cases' guards: each test pins what a user or operator would see if one guard went. */

const T0 = new Date('2026-01-01T00:00:00Z').getTime();

const harness = async (t: ExecutionContext, options: HarnessOptions = {}): Promise<Harness> => {
  const h = await generationHarness(options);
  t.teardown(() => h.dispose());
  return h;
};

type Script = (request: EngineRunRequest) => Promise<EngineRunResult>;

/** An engine whose runs answer as the script says; it records every run and every release. */
const scripted = (script: Script, extra: Partial<WorkflowEngine> = {}) => {
  const runs: EngineRunRequest[] = [];
  const released: string[] = [];
  const engine: WorkflowEngine = {
    async run(request) {
      runs.push(request);
      return script(request);
    },
    async release(runId) {
      released.push(runId);
    },
    async check() {},
    async close() {},
    ...extra,
  };
  return { engine, runs, released };
};

const failure = (code: 'ENGINE.EXECUTION' | 'ENGINE.UNAVAILABLE', transient: boolean, nodeId?: string): EngineRunResult => ({
  ok: false,
  error: { code, message: `${code} from the script`, ...(nodeId ? { nodeId } : {}) },
  transient,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user with `coins`, a template costing `cost`, and one submitted (queued, paid) job of theirs. */
const queuedJob = async (h: Harness, coins = 10, cost = 3, extra: { startDeadlineSeconds?: number } = {}) => {
  const userId = await h.newUser(coins);
  const templateId = await h.addTemplate(cost);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId, ...extra });
  if (!submitted.ok) throw new Error(JSON.stringify(submitted));
  return { userId, templateId, jobId: submitted.value.job.id };
};

// ---------------------------------------------------------------- RunGeneration

// Pins: a delivery whose body names no job goes dead saying so (not looked up as a job "null").
test('run: a message without a job id goes dead as not a generation message', async (t) => {
  const h = await harness(t);
  const outcome = await h.run.execute({ ...h.delivery(randomUUID()), body: { something: 'else' } });
  t.deepEqual(outcome, { action: 'dead', reason: 'not a generation message (no job id)' });
});

// Pins: a delivery of a job that does not exist goes dead naming the job (it does not crash the handler).
test('run: a message of an unknown job goes dead naming it', async (t) => {
  const h = await harness(t);
  const jobId = randomUUID();
  t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'dead', reason: `job ${jobId} does not exist` });
});

// Pins: a job past its start deadline when its delivery comes is acked, never run on the engine, ends expired and refunded.
test('run: a job expired before its delivery is acked, not run, refunded', async (t) => {
  const { engine, runs } = scripted(async () => failure('ENGINE.EXECUTION', false));
  const h = await harness(t, { engine });
  const { userId, jobId } = await queuedJob(h, 10, 3, { startDeadlineSeconds: 5 });
  h.advance(1);
  t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
  t.is(runs.length, 0, 'the engine never ran it');
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'expired');
  t.is(await h.balance(userId), 10);
});

// Pins: a transient engine failure before the last attempt is a retry after the backoff (1 s, then 2 s), the job stays
// running with a lease covering the wait, its owner is told, and nothing is refunded.
test('run: a transient engine failure is retried with backoff, the job kept and its owner told', async (t) => {
  const { engine } = scripted(async () => failure('ENGINE.UNAVAILABLE', true));
  const h = await harness(t, { engine, maxAttempts: 3 });
  const { userId, jobId } = await queuedJob(h, 10, 3);

  t.deepEqual(await h.run.execute(h.delivery(jobId, 1)), { action: 'retry', delaySeconds: 1 });
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'running');
  t.is(job!.statusText, 'Retrying after a temporary problem (attempt 1 of 3)');
  t.is(job!.leaseUntil!.getTime(), T0 + 31_000, 'visibility (30 s) plus the 1 s wait');
  t.is(job!.retryAt!.getTime(), T0 + 1_000);
  t.is(await h.balance(userId), 7, 'still charged');
  const texts = (await h.eventsOf(userId)).flatMap((event) => (event.type === 'job.status' ? [event.text] : []));
  t.true(texts.includes('Retrying after a temporary problem (attempt 1 of 3)'));

  t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'retry', delaySeconds: 2 });
  t.is((await h.repos.jobs.findById(jobId))!.leaseUntil!.getTime(), T0 + 32_000);
});

// Pins: the last allowed attempt's transient failure goes dead and fails the job, refunded, saying it gave up.
test('run: a transient failure on the last attempt fails the job and refunds it', async (t) => {
  const { engine } = scripted(async () => failure('ENGINE.UNAVAILABLE', true));
  const h = await harness(t, { engine, maxAttempts: 3 });
  const { userId, jobId } = await queuedJob(h, 10, 3);
  const outcome = await h.run.execute(h.delivery(jobId, 3));
  t.is(outcome.action, 'dead');
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'failed');
  t.is(job!.error!.code, 'ENGINE.UNAVAILABLE');
  t.is(job!.error!.message, 'ENGINE.UNAVAILABLE from the script (gave up after 3 attempts)');
  t.is(await h.balance(userId), 10);
});

// Pins: a transient failure of an attempt whose job was cancelled meanwhile writes no "retrying" status for it.
test('run: a transient failure after the job was cancelled tells its owner nothing of a retry', async (t) => {
  let cancel: () => Promise<unknown> = async () => undefined;
  const { engine } = scripted(async () => {
    await cancel();
    return failure('ENGINE.UNAVAILABLE', true);
  });
  const h = await harness(t, { engine });
  const { userId, jobId } = await queuedJob(h, 10, 3);
  cancel = () => h.cancel.execute({ userId, jobId });
  await h.run.execute(h.delivery(jobId, 1));
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'cancelled');
  t.is(job!.statusText, 'Cancelled');
  const texts = (await h.eventsOf(userId)).flatMap((event) => (event.type === 'job.status' ? [event.text] : []));
  t.false(texts.some((text) => text.startsWith('Retrying')), JSON.stringify(texts));
  t.is(await h.balance(userId), 10);
});

// Pins: a permanent engine failure fails the job at once with the engine's code, message and node, refunded.
test('run: a permanent engine failure fails the job with its node and refunds it', async (t) => {
  const { engine } = scripted(async () => failure('ENGINE.EXECUTION', false, '7'));
  const h = await harness(t, { engine });
  const { userId, jobId } = await queuedJob(h, 10, 3);
  t.deepEqual(await h.run.execute(h.delivery(jobId, 1)), { action: 'ack' });
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'failed');
  t.deepEqual(job!.error, { code: 'ENGINE.EXECUTION', message: 'ENGINE.EXECUTION from the script', nodeId: '7' });
  t.is(await h.balance(userId), 10);
});

// Pins: storage failing while the outputs are stored is a transient STORAGE.UNAVAILABLE (retried), the job kept and charged,
// nothing left staged; and the engine is told to free the run's files.
test('run: a storage outage while storing outputs is retried, nothing left staged', async (t) => {
  let down = true;
  const released: string[] = [];
  const h = await harness(t, {
    storage: (inner: ObjectStorage): ObjectStorage =>
      Object.assign(Object.create(inner) as ObjectStorage, {
        put: (...args: Parameters<ObjectStorage['put']>) => (down ? Promise.reject(new Error('disk full')) : inner.put(...args)),
      }),
    wrapEngine: (builtin: BuiltinEngine): WorkflowEngine =>
      Object.assign(Object.create(builtin) as WorkflowEngine, {
        release: async (runId: string) => {
          released.push(runId);
          await builtin.release?.(runId);
        },
      }),
  });
  const { userId, jobId } = await queuedJob(h, 10, 3);
  t.deepEqual(await h.run.execute(h.delivery(jobId, 1)), { action: 'retry', delaySeconds: 1 });
  const job = await h.repos.jobs.findById(jobId);
  t.is(job!.status, 'running');
  t.is(await h.balance(userId), 7);
  t.deepEqual(await h.repos.staged.listForRun(job!.runId!), []);
  t.deepEqual(released, [job!.runId]);

  down = false;
  t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'ack' });
  const done = await h.repos.jobs.findById(jobId);
  t.is(done!.status, 'succeeded');
  t.deepEqual(released, [job!.runId, done!.runId], 'each run freed on the engine');
});

// Pins: while the engine runs, the heartbeat extends the message's visibility by the visibility timeout and renews the job's lease.
test('run: the heartbeat extends the delivery and renews the lease while the engine runs', async (t) => {
  let h: Harness;
  let jobId = '';
  let lease = null as number | null;
  const { engine } = scripted(async () => {
    h.advance(1);
    await sleep(80);
    lease = (await h.repos.jobs.findById(jobId))!.leaseUntil!.getTime();
    return failure('ENGINE.EXECUTION', false);
  });
  h = await harness(t, { engine, visibilitySeconds: 0.03 });
  ({ jobId } = await queuedJob(h, 10, 3));
  const extended: number[] = [];
  await h.run.execute(h.delivery(jobId, 1, async (seconds) => void extended.push(seconds)));
  t.true(extended.length > 0, 'visibility extended');
  t.true(extended.every((seconds) => seconds === 0.03));
  t.is(lease, T0 + 60_000 + 30, 'renewed from the advanced clock');
});

// Pins: a heartbeat whose lease renewal fails (a database hiccup) does not stop the run: the engine is not aborted.
test('run: a failing lease renewal does not abort the engine run', async (t) => {
  let aborted = null as boolean | null;
  const { engine } = scripted(async (request) => {
    await sleep(80);
    aborted = request.signal!.aborted;
    return failure('ENGINE.EXECUTION', false);
  });
  const h = await harness(t, { engine, visibilitySeconds: 0.03 });
  const { jobId } = await queuedJob(h, 10, 3);
  h.repos.jobs.updateRunning = async () => {
    throw new Error('database hiccup');
  };
  await h.run.execute(h.delivery(jobId, 1));
  t.is(aborted, false);
  t.is((await h.repos.jobs.findById(jobId))!.error!.code, 'ENGINE.EXECUTION');
});

// Pins: a cancel while the engine runs reaches the engine call (its signal aborts); the job ends cancelled and refunded.
test('run: cancelling a running job aborts its engine call', async (t) => {
  let h: Harness;
  let userId = '';
  let jobId = '';
  let sawAbort = false;
  const { engine } = scripted(async (request) => {
    await h.cancel.execute({ userId, jobId });
    for (let waited = 0; waited < 1500 && !request.signal!.aborted; waited += 10) await sleep(10);
    sawAbort = request.signal!.aborted;
    return sawAbort ? { ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'aborted' }, transient: true } : failure('ENGINE.EXECUTION', false);
  });
  h = await harness(t, { engine });
  ({ userId, jobId } = await queuedJob(h, 10, 3));
  t.deepEqual(await h.run.execute(h.delivery(jobId, 1)), { action: 'ack' });
  t.true(sawAbort, 'the engine call was aborted');
  t.is((await h.repos.jobs.findById(jobId))!.status, 'cancelled');
  t.is(await h.balance(userId), 10);
});

// Pins: the engine run's time and the storing's time reach the operator's metrics (one each per successful attempt).
test('run: the engine run and the storing of outputs are timed', async (t) => {
  const runs: number[] = [];
  const uploads: number[] = [];
  let h: Harness;
  h = await harness(t, {
    metrics: { ...NO_JOB_METRICS, runTime: (seconds: number) => void runs.push(seconds), uploadTime: (seconds: number) => void uploads.push(seconds) },
    wrapEngine: (builtin: BuiltinEngine): WorkflowEngine =>
      Object.assign(Object.create(builtin) as WorkflowEngine, {
        run: async (request: EngineRunRequest) => {
          const result = await builtin.run(request);
          h.advance(2);
          return result;
        },
      }),
  });
  const { jobId } = await queuedJob(h, 10, 3);
  t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
  t.deepEqual(runs, [120]);
  t.deepEqual(uploads, [0]);
});

// Pins: an engine that fails to free a run's files changes nothing of the attempt: a permanent failure still fails the job (refunded).
test('run: a failing engine release does not change the outcome', async (t) => {
  const { engine } = scripted(async () => failure('ENGINE.EXECUTION', false), {
    async release() {
      throw new Error('engine gone');
    },
  });
  const h = await harness(t, { engine });
  const { userId, jobId } = await queuedJob(h, 10, 3);
  t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
  t.is((await h.repos.jobs.findById(jobId))!.status, 'failed');
  t.is(await h.balance(userId), 10);
});

// Pins: the engine's last progress events are all recorded, in order, before the job ends (the run waits for its relay).
test('run: every progress event of the run is recorded before the job ends', async (t) => {
  const { engine } = scripted(async (request) => {
    for (let value = 1; value <= 3; value++) request.onEvent({ type: 'progress', value, max: 3 });
    request.onEvent({ type: 'status', text: 'Saving' });
    return failure('ENGINE.EXECUTION', false);
  });
  const h = await harness(t, { engine });
  const { userId, jobId } = await queuedJob(h, 10, 3);
  await h.run.execute(h.delivery(jobId));
  const seen = (await h.eventsOf(userId)).flatMap((event) =>
    event.type === 'job.progress' ? [`progress ${event.value}/${event.max}`] : event.type === 'job.status' && event.text === 'Saving' ? ['Saving'] : event.type === 'job.failed' ? ['failed'] : [],
  );
  t.deepEqual(seen, ['progress 1/3', 'progress 2/3', 'progress 3/3', 'Saving', 'failed']);
});

/** An engine that reserves slots: each slot records its releases. */
const slotEngine = () => {
  const slots: { releases: number }[] = [];
  const base = scripted(async () => failure('ENGINE.EXECUTION', false), {
    async reserve(): Promise<EngineSlot> {
      const slot = { releases: 0 };
      slots.push(slot);
      return { release: () => void (slot.releases += 1) };
    },
  });
  return { ...base, slots };
};

// Pins: the slot a job waited for is given back once its run ends (an engine that did not take it back would starve the pool).
test('run: the reserved slot is released when the run ends', async (t) => {
  const { engine, runs, slots } = slotEngine();
  const h = await harness(t, { engine });
  const { jobId } = await queuedJob(h, 10, 3);
  await h.run.execute(h.delivery(jobId, 1));
  t.is(runs.length, 1);
  t.is(slots.length, 1);
  t.true(slots[0]!.releases >= 1, 'released');
});

// Pins: when taking the job fails (the database is down), the reserved slot is given back before the error goes up.
test('run: a reserved slot is released when the job cannot be started', async (t) => {
  const { engine, slots } = slotEngine();
  let broken = false;
  const h = await harness(t, {
    engine,
    uow: (inner: UnitOfWork): UnitOfWork => Object.assign(Object.create(inner) as UnitOfWork, { run: (work: Parameters<UnitOfWork['run']>[0]) => (broken ? Promise.reject(new Error('database down')) : inner.run(work)) }),
  });
  const { jobId } = await queuedJob(h, 10, 3);
  broken = true;
  await t.throwsAsync(h.run.execute(h.delivery(jobId, 1)), { message: 'database down' });
  t.is(slots.length, 1);
  t.is(slots[0]!.releases, 1);
});

// ---------------------------------------------------------------- SubmitGeneration

// Pins: a requestId is matched whatever its case: the upper-case spelling of a submitted id answers with that job, charging nothing.
test('submit: a requestId in upper case is the same request', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  const requestId = randomUUID();
  const first = await h.submit.execute({ userId, role: 'user', templateId, requestId: requestId.toUpperCase() });
  if (!first.ok) return t.fail(JSON.stringify(first));
  t.is(first.value.job.id, requestId);
  const again = await h.submit.execute({ userId, role: 'user', templateId, requestId: requestId.toUpperCase() });
  t.like(again, { ok: true, value: { created: false, job: { id: requestId } } });
  t.is(await h.balance(userId), 7);
});

// Pins: startDeadlineSeconds takes integers 1 to 86400 (the deadline is that many seconds after the submit); 0, 86401 and 1.5 are refused.
test('submit: the start deadline takes 1 to 86400 whole seconds', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(100);
  const templateId = await h.addTemplate(1);
  for (const [seconds, at] of [[1, T0 + 1_000], [86_400, T0 + 86_400_000]] as const) {
    const accepted = await h.submit.execute({ userId, role: 'user', templateId, startDeadlineSeconds: seconds });
    if (!accepted.ok) return t.fail(`${seconds}: ${JSON.stringify(accepted)}`);
    t.is(accepted.value.job.startDeadline!.getTime(), at, String(seconds));
  }
  for (const seconds of [0, 86_401, 1.5]) {
    const refused = await h.submit.execute({ userId, role: 'user', templateId, startDeadlineSeconds: seconds });
    t.like(refused, { ok: false, code: 'VALIDATION.FAILED' }, String(seconds));
  }
  t.is(await h.balance(userId), 98);
});

// Pins: a request refused by the preparation (unknown template) gives the linked deduction back at once.
test('submit: a request for an unknown template gives its linked deduction back', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(5);
  const requestId = randomUUID();
  await h.deduct(userId, 2, requestId);
  t.is(await h.balance(userId), 3);
  const refused = await h.submit.execute({ userId, role: 'user', templateId: randomUUID(), requestId });
  t.false(refused.ok);
  t.is(await h.balance(userId), 5);
});

// Pins: a request refused for too few coins answers COIN.INSUFFICIENT and gives its linked deduction back; no job exists.
test('submit: a request short of coins gives its linked deduction back', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(5);
  const templateId = await h.addTemplate(20);
  const requestId = randomUUID();
  await h.deduct(userId, 2, requestId);
  const refused = await h.submit.execute({ userId, role: 'user', templateId, requestId });
  t.like(refused, { ok: false, code: 'COIN.INSUFFICIENT' });
  t.is(await h.balance(userId), 5);
  t.is(await h.repos.jobs.findById(requestId), null);
});

// Pins: a user at the active-job cap is refused with JOB.TOO_MANY_ACTIVE and Retry-After 10 s, and the linked deduction comes back.
test('submit: a user at the active-job cap is asked to wait 10 s and gets the deduction back', async (t) => {
  const h = await harness(t, { maxActiveJobsPerUser: 1 });
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  const first = await h.submit.execute({ userId, role: 'user', templateId });
  t.true(first.ok);
  const requestId = randomUUID();
  await h.deduct(userId, 3, requestId);
  t.is(await h.balance(userId), 4);
  const refused = await h.submit.execute({ userId, role: 'user', templateId, requestId });
  t.like(refused, { ok: false, code: 'JOB.TOO_MANY_ACTIVE', retryAfterSeconds: 10 });
  t.is(await h.balance(userId), 7);
});

// Pins: alsoCommit runs inside the submit's transaction with the new job; when it throws, neither job nor charge remains.
test('submit: alsoCommit commits with the job, and its failure undoes job and charge', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  const seen: string[] = [];
  const done = await h.submit.execute({ userId, role: 'user', templateId, alsoCommit: async (_tx, value) => void seen.push(value.job.id) });
  if (!done.ok) return t.fail(JSON.stringify(done));
  t.deepEqual(seen, [done.value.job.id]);
  const requestId = randomUUID();
  await t.throwsAsync(
    h.submit.execute({
      userId,
      role: 'user',
      templateId,
      requestId,
      alsoCommit: async () => {
        throw new Error('response not stored');
      },
    }),
    { message: 'response not stored' },
  );
  t.is(await h.repos.jobs.findById(requestId), null);
  t.is(await h.balance(userId), 7);
});

// Pins: two submits of one requestId at once: one job, charged once; the one that lost the race answers with that job.
test('submit: two submits of one requestId at once make one job, charged once', async (t) => {
  const h = await harness(t);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(3);
  const requestId = randomUUID();
  const [a, b] = await Promise.all([0, 1].map(() => h.submit.execute({ userId, role: 'user', templateId, requestId })));
  if (!a!.ok || !b!.ok) return t.fail(JSON.stringify({ a, b }));
  t.deepEqual([a!.value.created, b!.value.created].sort(), [false, true]);
  t.is(a!.value.job.id, requestId);
  t.is(b!.value.job.id, requestId);
  t.is(await h.balance(userId), 7);
});

// ---------------------------------------------------------------- AdminAdjustCoins

const ADMIN = '00000000-0000-4000-8000-0000000000ad';
const NOW = new Date('2030-05-01T12:00:00.000Z');

const coinsSetup = async (balance: number) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const { users, ledger, audit } = uow.autocommit;
  const userId = randomUUID();
  await users.create({ id: userId, email: `${userId}@example.com`, displayName: 'U', role: 'user', passwordHash: null, createdAt: NOW });
  if (balance > 0) await ledger.apply({ id: randomUUID(), userId, amount: balance, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: NOW });
  const adjust = new AdminAdjustCoins({ users, uow, ids: { newId: () => randomUUID() }, clock: { now: () => NOW } });
  return { users, ledger, audit, userId, adjust };
};

// Pins: a deduction takes coins (it never adds them); the answer carries the new balance; the ledger row names the admin as actor
// with the reason; the audit row says coin.deduct with the signed amount, the balance after and the ledger row.
test('admin adjust: a deduction takes coins, answers the new balance, and is audited as coin.deduct', async (t) => {
  const { adjust, users, ledger, audit, userId } = await coinsSetup(50);
  const result = await adjust.execute({ actorId: ADMIN, userId, direction: 'deduct', amount: 20, reason: 'admin_adjustment' });
  if (!result.ok) return t.fail(JSON.stringify(result));
  t.is(result.value.coinBalance, 30);
  t.deepEqual(result.value.updatedAt, NOW);
  t.is((await users.findById(userId))!.coinBalance, 30);
  const [row] = (await ledger.list(userId, { page: 1, limit: 1 })).items;
  t.like(row, { amount: -20, reason: 'admin_adjustment', actorId: ADMIN, relatedEntityId: null, balanceAfter: 30 });
  const entries = (await audit.list({ page: 1, limit: 10 })).items;
  t.is(entries.length, 1);
  t.like(entries[0], { actorId: ADMIN, action: 'coin.deduct', targetUserId: userId });
  t.deepEqual(entries[0]!.details, { amount: -20, reason: 'admin_adjustment', balanceAfter: 30, transactionId: row!.id });
});

// Pins: an addition is audited as coin.add with its positive amount.
test('admin adjust: an addition is audited as coin.add', async (t) => {
  const { adjust, audit, userId } = await coinsSetup(0);
  const result = await adjust.execute({ actorId: ADMIN, userId, direction: 'add', amount: 7, reason: 'admin_adjustment' });
  t.like(result, { ok: true, value: { coinBalance: 7 } });
  const [entry] = (await audit.list({ page: 1, limit: 10 })).items;
  t.like(entry, { action: 'coin.add', details: { amount: 7, balanceAfter: 7 } });
});

// Pins: a missing amount or reason is "is required" (not the format message), both reported at once.
test('admin adjust: a missing amount and reason are each "is required"', async (t) => {
  const { adjust, userId } = await coinsSetup(5);
  const result = await adjust.execute({ actorId: ADMIN, userId, direction: 'add', amount: undefined, reason: undefined });
  t.like(result, { ok: false, code: 'VALIDATION.FAILED' });
  if (!result.ok) {
    t.deepEqual(result.details, [
      { field: 'amount', message: 'is required' },
      { field: 'reason', message: 'is required' },
    ]);
  }
});

// ---------------------------------------------------------------- OutputHistory

/** A succeeded job of a new user's, with its one output. */
const withOutput = async (h: Harness) => {
  const { userId, jobId } = await queuedJob(h, 10, 1);
  t_ok(await h.run.execute(h.delivery(jobId)));
  const [item] = await h.repos.history.listForJob(jobId);
  if (!item) throw new Error('no output');
  return { userId, jobId, item };
};
const t_ok = (outcome: unknown) => {
  if (JSON.stringify(outcome) !== '{"action":"ack"}') throw new Error(`run: ${JSON.stringify(outcome)}`);
};

// Pins: a bad page request is VALIDATION.FAILED (not a listing).
test('history: a malformed page request is refused', async (t) => {
  const h = await harness(t);
  const { userId } = await withOutput(h);
  t.like(await h.outputs.list({ userId, page: 'x', limit: 10 }), { ok: false, code: 'VALIDATION.FAILED' });
  t.like(await h.outputs.list({ userId, page: 1, limit: 10 }), { ok: true, value: { total: 1 } });
});

// Pins: links: another user's output, an unknown id and a malformed one are NOT_FOUND; an upper-case id is found; a view link
// is inline for 900 s, a download link an attachment for 300 s.
test('history: links are the owner\'s only, inline to view and attachment to download', async (t) => {
  const h = await harness(t);
  const { userId, item } = await withOutput(h);
  const stranger = await h.newUser(0);
  const notFound = { ok: false, code: 'NOT_FOUND' };
  t.like(await h.outputs.link({ userId: stranger, outputId: item.id, kind: 'view' }), notFound);
  t.like(await h.outputs.link({ userId: stranger, outputId: item.id, kind: 'download' }), notFound);
  t.like(await h.outputs.link({ userId, outputId: randomUUID(), kind: 'view' }), notFound);
  t.like(await h.outputs.link({ userId, outputId: 'not-a-uuid', kind: 'view' }), notFound);
  const view = await h.outputs.link({ userId, outputId: item.id.toUpperCase(), kind: 'view' });
  const download = await h.outputs.link({ userId, outputId: item.id, kind: 'download' });
  if (!view.ok || !download.ok) return t.fail(JSON.stringify({ view, download }));
  const query = (url: string) => new URL(url.replace('memory://', 'http://x/')).searchParams;
  t.is(query(view.value).get('disp'), 'inline');
  t.is(query(view.value).get('exp'), String(T0 / 1000 + 900));
  t.is(query(download.value).get('disp'), 'attachment');
  t.is(query(download.value).get('exp'), String(T0 / 1000 + 300));
  t.is(query(download.value).get('name'), item.fileName);
});

// Pins: deleting: another user's output is NOT_FOUND and stays; the owner's goes, record and file.
test('history: only the owner deletes an output, record and file', async (t) => {
  const h = await harness(t);
  const { userId, jobId, item } = await withOutput(h);
  const stranger = await h.newUser(0);
  t.like(await h.outputs.delete({ userId: stranger, outputId: item.id }), { ok: false, code: 'NOT_FOUND' });
  t.is((await h.repos.history.listForJob(jobId)).length, 1);
  t.deepEqual(await h.outputs.delete({ userId, outputId: item.id }), { ok: true, value: undefined });
  t.deepEqual(await h.repos.history.listForJob(jobId), []);
  t.is(await h.storage.head(item.storageKey), null);
});

// Pins: the retention sweep deletes outputs past their retention (30 days) and says how many.
test('history: the retention sweep counts what it deleted', async (t) => {
  const h = await harness(t);
  const { jobId, item } = await withOutput(h);
  t.is(await h.outputs.sweepExpired(), 0);
  h.advance(31 * 24 * 60);
  t.is(await h.outputs.sweepExpired(), 1);
  t.deepEqual(await h.repos.history.listForJob(jobId), []);
  t.is(await h.storage.head(item.storageKey), null);
});

// ---------------------------------------------------------------- StoreUpload and the v2 assets

const uploadsSetup = async () => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const { users, uploads, jobs } = uow.autocommit;
  const storage = new MemoryObjectStorage(() => NOW);
  const ids = { newId: () => randomUUID() };
  const clock = { now: () => NOW };
  const owner = randomUUID();
  const stranger = randomUUID();
  for (const id of [owner, stranger]) await users.create({ id, email: `${id}@example.com`, displayName: 'U', role: 'user', passwordHash: null, createdAt: NOW });
  const store = new StoreUpload({ uploads, storage, inspector: new SharpImageInspector(), hasher: new Blake3ContentHasher(), ids, clock, maxBytes: 1 << 20, maxImagePixels: 1 << 20 });
  const keys = () => storage.keys();
  return {
    uploads,
    storage,
    owner,
    stranger,
    store,
    keys,
    find: new FindUploadByHash({ uploads }),
    mint: new MintUploadFromHash({ uploads, storage, ids, clock }),
    url: new UploadDownloadUrl({ uploads, storage, ttlSeconds: 120 }),
    remove: new DeleteUpload({ uploads, jobs, storage }),
    async upload(userId: string, fileName: string | null = 'in.png') {
      const stored = await store.execute({ userId, body: await makeImage('png', 5, 2), fileName });
      if (!stored.ok) throw new Error(`upload refused: ${stored.code}`);
      return stored.value;
    },
  };
};

// Pins: an expected_hash that is not blake3:<hex> is refused on expected_hash, and nothing is stored.
test('upload: a malformed expected_hash is refused before anything is stored', async (t) => {
  const u = await uploadsSetup();
  const result = await u.store.execute({ userId: u.owner, body: await makeImage('png', 5, 2), expectedHash: 'sha256:abc' });
  t.like(result, { ok: false, code: 'VALIDATION.FAILED' });
  t.is(!result.ok && result.details?.[0]?.field, 'expected_hash');
  t.deepEqual(u.keys(), []);
});

// Pins: the file name is kept trimmed; a blank one is no name.
test('upload: the file name is trimmed and a blank one is none', async (t) => {
  const u = await uploadsSetup();
  t.is((await u.upload(u.owner, '  cat.png  ')).fileName, 'cat.png');
  t.is((await u.upload(u.owner, '   ')).fileName, null);
});

// Pins: what a refused file is told: an empty file "is empty"; a file declared as a type we do not take names that type.
test('upload: an empty file and a file declared as another kind are told why', async (t) => {
  const u = await uploadsSetup();
  const empty = await u.store.execute({ userId: u.owner, body: new Uint8Array(0) });
  t.deepEqual(!empty.ok && empty.details, [{ field: 'file', message: 'is empty' }]);
  const gif = await u.store.execute({ userId: u.owner, body: await makeImage('png', 5, 2), claimedMimeType: 'image/gif' });
  t.deepEqual(!gif.ok && gif.details, [{ field: 'file', message: 'is declared as image/gif; only image/png, image/jpeg and image/webp are accepted' }]);
  t.deepEqual(u.keys(), []);
});

// Pins: a file sent as a stream of chunks is stored byte for byte, under the owner's folder, hashed over every chunk
// (the hash the client computed matches); a buffer is hashed too. The stored type is the bytes' (not the claimed generic one).
test('upload: a streamed file is stored whole and hashed over every chunk', async (t) => {
  const u = await uploadsSetup();
  const bytes = await makeImage('png', 5, 2);
  const hash = await blake3Of(bytes);
  const third = Math.ceil(bytes.length / 3);
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += third) yield bytes.subarray(at, at + third);
  }
  const streamed = await u.store.execute({ userId: u.owner, body: chunks(), expectedHash: hash, claimedMimeType: 'application/octet-stream' });
  if (!streamed.ok) return t.fail(JSON.stringify(streamed));
  t.like(streamed.value, { contentHash: hash, sizeBytes: bytes.length, mimeType: 'image/png', width: 5, height: 2 });
  t.is(streamed.value.storageKey, `uploads/${u.owner}/${streamed.value.id}.png`);
  const stored = await u.storage.get(streamed.value.storageKey);
  const parts: Buffer[] = [];
  for await (const part of stored!.body) parts.push(Buffer.from(part as Uint8Array));
  t.deepEqual(Buffer.concat(parts), bytes);
  t.like(await u.store.execute({ userId: u.owner, body: bytes, expectedHash: hash }), { ok: true, value: { contentHash: hash } });
});

// Pins: by-hash of bytes the caller never uploaded (or only another user did) is NOT_FOUND.
test('assets: by-hash finds the caller\'s own bytes only', async (t) => {
  const u = await uploadsSetup();
  const asset = await u.upload(u.owner);
  t.like(await u.find.execute({ userId: u.owner, hash: asset.contentHash }), { ok: true, value: { id: asset.id } });
  t.like(await u.find.execute({ userId: u.stranger, hash: asset.contentHash }), { ok: false, code: 'NOT_FOUND' });
  t.like(await u.find.execute({ userId: u.owner, hash: `blake3:${'0'.repeat(64)}` }), { ok: false, code: 'NOT_FOUND' });
});

// Pins: from-hash: another user's bytes are NOT_FOUND (nothing copied); the copy owns its file (deleting the source keeps it),
// takes the given name trimmed, else the source's name.
test('assets: from-hash copies the caller\'s bytes into a file of its own', async (t) => {
  const u = await uploadsSetup();
  const asset = await u.upload(u.owner, 'source.png');
  const keys = u.keys();
  t.like(await u.mint.execute({ userId: u.stranger, hash: asset.contentHash }), { ok: false, code: 'NOT_FOUND' });
  t.deepEqual(u.keys(), keys);
  // Unnamed first: the source of a later copy may be an earlier copy (the newest upload with these bytes).
  const unnamed = await u.mint.execute({ userId: u.owner, hash: asset.contentHash });
  const named = await u.mint.execute({ userId: u.owner, hash: asset.contentHash, fileName: '  copy.png ' });
  if (!named.ok || !unnamed.ok) return t.fail(JSON.stringify({ named, unnamed }));
  t.is(named.value.fileName, 'copy.png');
  t.is(unnamed.value.fileName, 'source.png');
  t.is(named.value.storageKey, `uploads/${u.owner}/${named.value.id}.png`);
  t.deepEqual(await u.remove.execute({ userId: u.owner, uploadId: asset.id }), { ok: true, value: undefined });
  t.not(await u.storage.head(named.value.storageKey), null, "the copy's file outlives its source");
});

// Pins: the download link is an attachment named by the upload's file name, else <id>.<ext>.
test('assets: the download link names the file, or the id when it has no name', async (t) => {
  const u = await uploadsSetup();
  const named = await u.upload(u.owner, 'mine.png');
  const unnamed = await u.upload(u.owner, null);
  const name = async (id: string) => {
    const link = await u.url.execute({ userId: u.owner, uploadId: id });
    if (!link.ok) throw new Error(link.code);
    return new URL(link.value.replace('memory://', 'http://x/')).searchParams.get('name');
  };
  t.is(await name(named.id), 'mine.png');
  t.is(await name(unnamed.id), `${unnamed.id}.png`);
});

// Pins: deleting goes file first: when the file cannot be deleted, the upload stays (it can be deleted again).
test('assets: a file that cannot be deleted keeps its upload', async (t) => {
  const u = await uploadsSetup();
  const asset = await u.upload(u.owner);
  u.storage.delete = async () => {
    throw new Error('storage down');
  };
  await t.throwsAsync(u.remove.execute({ userId: u.owner, uploadId: asset.id }), { message: 'storage down' });
  t.not(await u.uploads.findForUser(asset.id, u.owner), null);
});

// ---------------------------------------------------------------- PublishTemplate

const templateSetup = async (withMap: boolean) => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  let tick = Date.parse('2026-01-01T00:00:00Z');
  const write = { uow, clock: { now: () => new Date((tick += 1000)) }, ids: { newId: () => randomUUID() }, rules: {} };
  const created = await new CreateTemplate({ templates: uow.autocommit.templates, ...write }).execute({
    actorId: ADMIN,
    fields: {
      name: 'Blue square',
      category: 'text-to-image',
      cost: 2,
      outputType: 'image',
      workflow: {
        '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
        '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
        '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
        '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
      },
    },
  });
  if (!created.ok) throw new Error(JSON.stringify(created));
  const id = created.value.id;
  if (withMap) {
    const mapped = await new SetParameterMap(write).execute({
      actorId: ADMIN,
      id,
      parameterMap: { prompt: { preset: 'prompt', node_id: '3', input_name: 'value' }, width: { preset: 'width', node_id: '1', input_name: 'width' } },
    });
    if (!mapped.ok) throw new Error(JSON.stringify(mapped));
  }
  const publish = new PublishTemplate(write);
  const actions = async () => (await uow.autocommit.audit.list({ page: 1, limit: 100 })).items.map((entry) => entry.action).filter((action) => action.endsWith('publish'));
  return { id, actions, publish: (publishIt: boolean) => publish.execute({ actorId: ADMIN, id, publish: publishIt }) };
};

// Pins: taking a draft back to a draft needs no complete map (only publishing checks it), and changes and logs nothing.
test('publish: a draft with an empty map may be unpublished (a no-op)', async (t) => {
  const tpl = await templateSetup(false);
  t.like(await tpl.publish(false), { ok: true, value: { id: tpl.id, publishedAt: null } });
  t.deepEqual(await tpl.actions(), []);
  t.like(await tpl.publish(true), { ok: false, code: 'VALIDATION.FAILED' });
});

// Pins: publish, publish again (no change, one log), unpublish (publishedAt null, logged as template.unpublish), again (nothing).
test('publish: each real change is logged once under its own action', async (t) => {
  const tpl = await templateSetup(true);
  const first = await tpl.publish(true);
  if (!first.ok) return t.fail(JSON.stringify(first));
  t.truthy(first.value.publishedAt);
  t.like(await tpl.publish(true), { ok: true, value: { publishedAt: first.value.publishedAt } });
  t.deepEqual(await tpl.actions(), ['template.publish']);
  t.like(await tpl.publish(false), { ok: true, value: { publishedAt: null } });
  t.like(await tpl.publish(false), { ok: true, value: { publishedAt: null } });
  t.deepEqual((await tpl.actions()).sort(), ['template.publish', 'template.unpublish']);
});
