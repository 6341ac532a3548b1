/**
 * Worker, refund, retention and relay defects, reproduced at the use-case level on the real Sequelize
 * adapters (SQLite and MariaDB), LocalObjectStorage and the builtin engine. Each test asserts the
 * correct behaviour; see the comment above each one for the defect it pins down. They were written red
 * against the code before the exactly-once redesign (issue 8), and ported to its ports unchanged in intent.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import type { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { queueMessageModel, SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { Outbox } from '../../core/ports/outbox.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import type { EngineRunRequest, EngineRunResult, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { failOnce, interceptTransactions } from '../support/faults.ts';
import { failingWorkflow, generationHarness, imageWorkflow, quietLogger, type HarnessOptions } from '../support/generation-harness.ts';

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  settled: boolean;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve: (value) => {
      d.settled = true;
      resolve(value);
    },
    reject: (error) => {
      d.settled = true;
      reject(error);
    },
  };
  promise.catch(() => undefined);
  return d;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
}

/** Two images from one SaveImage: the builtin engine writes two output files. */
const twoImageWorkflow = (): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 2, color: 0x0000ff } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'pair' } },
});

/** Every file below `root` (dot-files included), by relative path, with its modification time. */
async function fileTimes(root: string): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else times.set(path.relative(root, full), (await stat(full)).mtimeMs);
    }
  };
  await walk(root);
  return times;
}

/** Every file below `root` whose path mentions `needle`. */
const filesMentioning = async (root: string, needle: string): Promise<string[]> => [...(await fileTimes(root)).keys()].filter((file) => file.includes(needle));

// ---------------------------------------------------------------------------------------------
// Harness: the shared generation harness on a real database, with local storage on disk
// ---------------------------------------------------------------------------------------------

async function harness(t: ExecutionContext, kind: TestDatabase, options: HarnessOptions = {}) {
  const base = await generationHarness({ backend: kind, localStorage: true, ...options });
  const cleanups: (() => Promise<void> | void)[] = [];
  // One teardown: our own cleanups (newest first), then the harness (engine, database, files).
  t.teardown(async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch(() => undefined);
    await base.dispose();
  });
  return {
    ...base,
    kind,
    cleanups,
    jobs: base.repos.jobs,
    history: base.repos.history,
    async refunds(userId: string, jobId: string) {
      return (await base.repos.ledger.findByRelatedEntity(userId, jobId)).filter((tx) => tx.reason === 'generation_refund');
    },
    /** Submits a job of a fresh template; fails the test when the submit is refused. */
    async submitJob(userId: string, workflow: WorkflowGraph, cost: number): Promise<string> {
      const templateId = await base.addTemplate(cost, workflow, {});
      const submitted = await base.submit.execute({ userId, role: 'user', templateId });
      if (!submitted.ok) throw new Error(`submit refused: ${JSON.stringify(submitted)}`);
      return submitted.value.job.id;
    },
  };
}

/** The refund credit of every ending throws once (the database connection lost mid-transaction). */
const refundCreditFailsOnce = () => failOnce((call) => call.repo === 'ledger' && call.method === 'apply' && (call.args[0] as { reason: string }).reason === 'generation_refund', new Error('database connection lost during the refund credit'));

/** Builtin engine wrapper: the n-th run() waits for gates[n] before it runs, and records what it saw. */
class GatedEngine implements WorkflowEngine {
  readonly started: Deferred[] = [];
  readonly gates: Deferred[] = [];
  readonly runIds: string[] = [];
  /** Per run: the folders under <workDir>/output where that run wrote (or rewrote) files. */
  readonly runFolders: string[][] = [];
  private calls = 0;

  constructor(
    private readonly inner: BuiltinEngine,
    private readonly workDir: string,
    slots = 4,
  ) {
    for (let i = 0; i < slots; i += 1) {
      this.started.push(deferred());
      this.gates.push(deferred());
    }
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    const n = this.calls++;
    this.runIds[n] = request.runId;
    this.started[n]!.resolve();
    await this.gates[n]!.promise;
    const outputDir = path.join(this.workDir, 'output');
    const before = await fileTimes(outputDir);
    const result = await this.inner.run(request);
    const after = await fileTimes(outputDir);
    const written = [...after].filter(([file, mtime]) => before.get(file) !== mtime).map(([file]) => path.dirname(file));
    this.runFolders[n] = [...new Set(written)];
    return result;
  }

  release(runId: string): Promise<void> {
    return this.inner.release(runId);
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

for (const kind of DATABASES) {
  // Sanity check of the harness: an ordinary job runs to the end on these adapters.
  test(`${kind}: harness check: a normal job succeeds, stores its output and is charged once`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(10);
    const jobId = await h.submitJob(userId, imageWorkflow(), 1);
    t.is(await h.balance(userId), 9);
    t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
    const job = await h.jobs.findById(jobId);
    t.is(job!.status, 'succeeded', JSON.stringify(job!.error));
    const items = await h.history.listForJob(jobId);
    t.is(items.length, 1);
    t.not(await h.storage.head(items[0]!.storageKey), null);
    t.is(await h.balance(userId), 9);
    t.deepEqual(await h.refunds(userId, jobId), []);
  });

  // Defect: a second delivery (visibility expired while attempt 1 was still in the engine) reaches
  // complete() after attempt 1 succeeded; its transition fails and the `!done` branch discards
  // *every* history row and file of the job, including the succeeded attempt's. Both attempts also
  // run in the same engine folder (runId = job id), so one attempt's release() can delete the other's files.
  test(`${kind}: a job delivered twice keeps the outputs of its succeeded attempt`, async (t) => {
    let gated!: GatedEngine;
    const h = await harness(t, kind, { wrapEngine: (engine, workDir) => (gated = new GatedEngine(engine, workDir)) });
    const orphans = async () => {
      const keep = new Set((await h.history.listForJob(jobId)).map((item) => path.basename(item.storageKey)));
      // A kept object's sidecar (`.<name>.meta.json`, local storage's content type) belongs to it.
      return (await filesMentioning(h.storageDir, jobId)).filter((file) => ![...keep].some((name) => path.basename(file) === name || path.basename(file) === `.${name}.meta.json`));
    };
    h.cleanups.push(() => gated.gates.forEach((gate) => gate.resolve()));
    const userId = await h.newUser(10);
    const jobId = await h.submitJob(userId, imageWorkflow(), 1);

    const first = h.run.execute(h.delivery(jobId, 1));
    await Promise.race([gated.started[0]!.promise, first]);
    t.true(gated.started[0]!.settled, 'attempt 1 reached the engine');

    // The visibility timeout ran out: the queue hands the same message to another worker.
    const second = h.run.execute(h.delivery(jobId, 2));
    await Promise.race([gated.started[1]!.promise, second]);

    // Attempt 2 took the job over (its own run id): attempt 1, finishing first, has lost its claim. It may
    // not move the job, write history or delete anything of attempt 2's; it removes only its own files.
    gated.gates[0]!.resolve();
    t.deepEqual(await first, { action: 'ack' });
    const afterFirst = await h.jobs.findById(jobId);
    t.is(afterFirst!.status, 'running', 'attempt 1 could not finish a job attempt 2 holds');
    t.deepEqual(await h.history.listForJob(jobId), [], 'nor record its outputs');

    gated.gates[1]!.resolve();
    t.deepEqual(await second, { action: 'ack' });

    const job = await h.jobs.findById(jobId);
    t.is(job!.status, 'succeeded');
    const items = await h.history.listForJob(jobId);
    t.is(items.length, 1, 'exactly one set of outputs survives the second delivery');
    const listed = await h.outputs.list({ userId });
    t.true(listed.ok && listed.value.items.length === 1, 'GET /outputs shows the output');
    for (const item of items) t.not(await h.storage.head(item.storageKey), null, `the file of ${item.fileName} is still stored`);
    t.is(await h.balance(userId), 9, 'charged once');
    t.deepEqual(await h.refunds(userId, jobId), [], 'no refund for a succeeded job');
    t.deepEqual(await orphans(), [], 'no file of the losing attempt is left behind');

    // The two attempts must not share the engine's run folder.
    if (gated.runFolders[0] && gated.runFolders[1]) {
      t.true(gated.runFolders[0].length > 0 && gated.runFolders[1].length > 0, 'both attempts wrote their files');
      const shared = gated.runFolders[1].filter((folder) => gated.runFolders[0]!.includes(folder));
      t.deepEqual(shared, [], `attempts 1 and 2 wrote into the same engine run folder (runIds ${gated.runIds.join(', ')})`);
    }
  });

  // The same race, later: attempt 1 has staged and is uploading its files when attempt 2 takes the job over.
  // Attempt 1 must not commit its outputs (the success is fenced by its run id, not only by the status) and
  // must delete the files it uploaded; attempt 2's result is the job's.
  test(`${kind}: an attempt taken over while uploading cannot commit its outputs and deletes its own files`, async (t) => {
    let gated!: GatedEngine;
    const uploading = deferred();
    const resumeUpload = deferred();
    let puts = 0;
    const h = await harness(t, kind, {
      wrapEngine: (engine, workDir) => (gated = new GatedEngine(engine, workDir)),
      storage: (storage) =>
        Object.assign(Object.create(storage) as ObjectStorage, {
          put: async (...args: Parameters<ObjectStorage['put']>) => {
            if (++puts === 1) {
              uploading.resolve();
              await resumeUpload.promise;
            }
            return storage.put(...args);
          },
        }),
    });
    h.cleanups.push(() => {
      resumeUpload.resolve();
      gated.gates.forEach((gate) => gate.resolve());
    });
    const userId = await h.newUser(10);
    const jobId = await h.submitJob(userId, imageWorkflow(), 1);

    gated.gates[0]!.resolve();
    const first = h.run.execute(h.delivery(jobId, 1));
    await Promise.race([uploading.promise, first]);
    t.true(uploading.settled, 'attempt 1 staged its file and is uploading it');
    const second = h.run.execute(h.delivery(jobId, 2));
    await Promise.race([gated.started[1]!.promise, second]);
    t.true(gated.started[1]!.settled, 'attempt 2 took the job over and is in the engine');

    resumeUpload.resolve();
    t.deepEqual(await first, { action: 'ack' });
    const afterFirst = await h.jobs.findById(jobId);
    t.is(afterFirst!.status, 'running', 'attempt 1 could not finish the job attempt 2 holds');
    t.is(afterFirst!.runId, gated.runIds[1]);
    t.deepEqual(await h.history.listForJob(jobId), [], 'nor record its outputs');
    const tagOf = (runId: string) => runId.replace(/-/g, '').slice(0, 12);
    t.deepEqual((await filesMentioning(h.storageDir, jobId)).filter((file) => file.includes(tagOf(gated.runIds[0]!))), [], 'and its uploaded file is gone');

    gated.gates[1]!.resolve();
    t.deepEqual(await second, { action: 'ack' });
    const job = await h.jobs.findById(jobId);
    t.is(job!.status, 'succeeded');
    const items = await h.history.listForJob(jobId);
    t.is(items.length, 1);
    t.true(items[0]!.storageKey.includes(tagOf(gated.runIds[1]!)), "attempt 2's output");
    t.not(await h.storage.head(items[0]!.storageKey), null);
    t.is(await h.balance(userId), 9, 'charged once');
    t.deepEqual(await h.refunds(userId, jobId), []);
  });

  // Defect: the worker moves the job to `failed` first and refunds in a separate unit of work
  // afterwards. When the refund throws, the job stays failed with refundedCoins 0; the redelivery
  // sees a finished job and acks, so the coins never come back.
  test(`${kind}: an error between the terminal transition and the refund still refunds (failed job, redelivered)`, async (t) => {
    const fault = refundCreditFailsOnce();
    const h = await harness(t, kind, { uow: (inner) => interceptTransactions(inner, fault.interceptor) });
    const userId = await h.newUser(5);
    const jobId = await h.submitJob(userId, failingWorkflow(), 2);
    t.is(await h.balance(userId), 3);

    // Attempt 1: the engine fails; the refund credit throws. The handler may throw (the queue then redelivers).
    await h.run.execute(h.delivery(jobId, 1)).catch(() => undefined);
    t.is(fault.state.fired, 1, 'the injected refund failure happened');
    // Attempt 2: what the queue does with a message whose handler threw.
    await h.run.execute(h.delivery(jobId, 2)).catch(() => undefined);

    const job = await h.jobs.findById(jobId);
    t.is(job!.status, 'failed');
    t.is(job!.refundedCoins, 2, 'the failed job is refunded');
    t.is(await h.balance(userId), 5, 'the 2 coins came back');
    t.is((await h.refunds(userId, jobId)).length, 1, 'exactly one generation_refund row');
  });

  // Defect: CancelGeneration also moves the job to `cancelled` before refunding. When the refund throws,
  // a retried cancel answers JOB.FINISHED and nothing ever refunds the job.
  test(`${kind}: an error between the terminal transition and the refund still refunds (cancel, retried)`, async (t) => {
    const fault = refundCreditFailsOnce();
    const h = await harness(t, kind, { uow: (inner) => interceptTransactions(inner, fault.interceptor) });
    const userId = await h.newUser(5);
    const jobId = await h.submitJob(userId, imageWorkflow(), 2);
    t.is(await h.balance(userId), 3);

    await h.cancel.execute({ userId, jobId }).catch(() => undefined);
    t.is(fault.state.fired, 1, 'the injected refund failure happened');
    // The client retries the cancel (its first request failed).
    await h.cancel.execute({ userId, jobId }).catch(() => undefined);

    const job = await h.jobs.findById(jobId);
    t.is(job!.status, 'cancelled');
    t.is(job!.refundedCoins, 2, 'the cancelled job is refunded');
    t.is(await h.balance(userId), 5, 'the 2 coins came back');
    t.is((await h.refunds(userId, jobId)).length, 1, 'exactly one generation_refund row');
  });

  // Defect: outputs are recorded one by one while uploading. A worker that dies mid-upload leaves the
  // first file's history row and file behind; the cancel refunds the job but nothing removes them, so a
  // refunded, cancelled job keeps an output (visible in GET /outputs) forever.
  test(`${kind}: a cancelled job keeps no outputs of an earlier attempt`, async (t) => {
    let hangingJob = '';
    const puts = new Map<string, number>();
    const hung = deferred();
    const hang = deferred<never>();
    const hungBodies: Readable[] = [];
    const h = await harness(t, kind, {
      storage: (storage) =>
        Object.assign(Object.create(storage) as ObjectStorage, {
          put: async (key: string, body: Readable | Buffer, info: { contentType: string; contentLength?: number }) => {
            if (hangingJob && key.includes(hangingJob)) {
              const n = (puts.get(hangingJob) ?? 0) + 1;
              puts.set(hangingJob, n);
              if (n === 2) {
                // The worker process dies while uploading the second file: this put never returns.
                if (!Buffer.isBuffer(body)) hungBodies.push(body);
                hung.resolve();
                return hang.promise;
              }
            }
            return storage.put(key, body, info);
          },
        }),
    });
    const userId = await h.newUser(5);
    const jobId = await h.submitJob(userId, twoImageWorkflow(), 1);
    hangingJob = jobId;

    const first = h.run.execute(h.delivery(jobId, 1));
    // Let the abandoned attempt finish at teardown, before the database closes.
    h.cleanups.push(async () => {
      hang.reject(new Error('test over'));
      for (const body of hungBodies) body.destroy();
      await first.catch(() => undefined);
    });
    await Promise.race([hung.promise, first]);
    t.true(hung.settled, 'attempt 1 stored its first file and hangs on the second');

    const cancelled = await h.cancel.execute({ userId, jobId });
    t.true(cancelled.ok, JSON.stringify(cancelled));

    // Whatever cleanup the service offers: the queue redelivers the never-settled message, the retention sweep
    // runs, and the reconciler deletes what the dead attempt staged once it is old enough.
    await h.run.execute(h.delivery(jobId, 2)).catch(() => undefined);
    await h.outputs.sweepExpired().catch(() => undefined);
    h.advance(61);
    await h.reconciler.execute();

    const job = await h.jobs.findById(jobId);
    t.is(job!.status, 'cancelled');
    t.is(await h.balance(userId), 5, 'refunded');
    t.deepEqual(
      (await h.history.listForJob(jobId)).map((item) => item.fileName),
      [],
      'a refunded, cancelled job has no history items',
    );
    const listed = await h.outputs.list({ userId });
    t.true(listed.ok && listed.value.items.length === 0, 'GET /outputs shows nothing of the cancelled job');
    t.deepEqual(await filesMentioning(h.storageDir, jobId), [], 'no stored file of the cancelled job remains');
  });

  // Defect: OutputHistory.sweepExpired() removes items one by one with no error handling: the first
  // storage.delete() that throws aborts the sweep, and every later expired output stays forever
  // (the failing one is first in line at every run).
  test(`${kind}: one failing file delete does not stop the retention sweep`, async (t) => {
    const failing = new Set<string>();
    const h = await harness(t, kind, {
      storage: (storage) =>
        Object.assign(Object.create(storage) as ObjectStorage, {
          delete: async (key: string) => {
            if (failing.has(key)) throw new Error(`EACCES: permission denied, unlink '${key}'`);
            return storage.delete(key);
          },
        }),
    });
    const userId = await h.newUser(10);
    const jobIds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const jobId = await h.submitJob(userId, imageWorkflow(0x100000 * (i + 1)), 1);
      t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
      jobIds.push(jobId);
      h.advance(1); // distinct expiry times: the failing one is swept first
    }
    const items = (await Promise.all(jobIds.map((id) => h.history.listForJob(id)))).flat();
    t.is(items.length, 3, 'three outputs stored');
    const [stuck, ...others] = items.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime());
    failing.add(stuck!.storageKey);

    h.advance(31 * 24 * 60); // past the 30-day retention of all three
    let swept: number | undefined;
    try {
      swept = await h.outputs.sweepExpired();
    } catch (error) {
      t.log(`sweepExpired threw: ${(error as Error).message}`);
    }
    for (const item of others) {
      t.is(await h.history.findForUser(item.id, userId), null, `the expired record ${item.fileName} of job ${item.jobId} is deleted`);
      t.is(await h.storage.head(item.storageKey), null, `the expired file ${item.storageKey} is deleted`);
    }
    t.not(swept, undefined, 'sweepExpired returns instead of throwing');

    // Once the file can be deleted again, the next sweep takes the one that failed.
    failing.clear();
    await h.outputs.sweepExpired();
    t.is(await h.history.findForUser(stuck!.id, userId), null);
    t.is(await h.storage.head(stuck!.storageKey), null);
  });

  // Defect: a relay published an entry, a consumer took and acknowledged it (the queue row was deleted), and a
  // relay that had read the entry as pending before (or that found it again after the first relay died before
  // marking it) published it a second time: the job was delivered twice. Now relays lease entries (one relay
  // at a time per entry) and the database queue keeps acknowledged ids as tombstones.
  test(`${kind}: the relay never republishes an entry already consumed`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(5);
    const jobId = await h.submitJob(userId, imageWorkflow(), 1);
    const db = h.backend.db!;
    const queue = new SequelizeMessageQueue(db, { clock: h.clock, logger: quietLogger, pollIntervalMs: 50 });
    h.cleanups.push(() => queue.close());
    const relay = (outbox: Outbox) => new RelayOutbox({ outbox, queue, ids: { newId: () => randomUUID() }, clock: h.clock, logger: quietLogger });

    const deliveries: DeliveredMessage[] = [];
    const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 30 }, async (message) => {
      deliveries.push(message);
      return { action: 'ack' };
    });
    h.cleanups.push(() => consumer.stop());

    // Relay A publishes, then dies before marking the entry published.
    const dying = Object.assign(Object.create(h.backend.outbox) as Outbox, {
      markPublished: async () => {
        throw new Error('relay process killed after publishing');
      },
    });
    await t.throwsAsync(relay(dying).execute(), { message: /killed/ });
    t.true(await waitFor(() => deliveries.length >= 1, 5000), 'the consumer took and acked the message');
    t.is((deliveries[0]!.body as { jobId: string }).jobId, jobId);

    // Relay B, meanwhile: the entry is A's until its lease ends, so B publishes nothing.
    t.is(await relay(h.backend.outbox).execute(), 0);
    // After the lease, B takes the entry (A is gone) and publishes it again: the queue refuses the known id.
    h.advance(1);
    t.is(await relay(h.backend.outbox).execute(), 1);
    await waitFor(() => deliveries.length > 1, 1500);
    t.is(deliveries.length, 1, `the message was delivered ${deliveries.length} times`);
    const rows = await queueMessageModel(db.sequelize).findAll({ raw: true });
    t.deepEqual(rows.map((row) => (row as unknown as { status: string }).status), ['done'], 'one row: the tombstone of the acknowledged message');
    t.is(await h.pendingMessages(), 0, 'the entry is published');
  });
}
