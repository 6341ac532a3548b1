/**
 * Exactly once, under faults: for every step between a message's claim and its ack (the attempt's start,
 * staging, upload, the terminal transition, the refund, the history write, the events, the file delete, the
 * ack), one failure is injected into an otherwise normal run on the real database queue, and the system is
 * left to recover on its own (redelivery, retries, dead letters, the reconciler). Each job must then be in
 * exactly one terminal state, refunded exactly when it did not succeed, with its outputs kept exactly when
 * it succeeded, its ledger equal to its balance, and no stored file that no history row points at.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { TERMINAL_EVENT_TYPES } from '../support/job-invariants.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { DeliveredMessage, HandlerOutcome } from '../../core/ports/queue.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { interceptTransactions, type Interceptor, type RepositoryName } from '../support/faults.ts';
import { failingWorkflow, generationHarness, imageWorkflow, quietLogger, type Harness } from '../support/generation-harness.ts';

type Outcome = 'succeeded' | 'failed' | 'cancelled';

interface Scenario {
  name: string;
  /** What the job would do without the fault. */
  expect: Outcome;
  workflow: 'image' | 'failing' | 'unavailable';
  /** The repository call to fail once (inside a transaction). */
  repo?: RepositoryName;
  method?: string;
  /** Narrows the call: e.g. only the transition to `succeeded`. */
  when?: (args: unknown[]) => boolean;
  storage?: 'put' | 'delete';
  /** The handler's ack is lost once (it returns, but the message is not settled). */
  ackLost?: boolean;
  /** Cancel the job (its refund credit fails once; the client retries the cancel). */
  cancel?: boolean;
  /** The completion transaction also fails, so the attempt must delete the files it uploaded. */
  alsoFailCompletion?: boolean;
}

const to = (status: string) => (args: unknown[]) => (args[1] as { to: string }).to === status;
const reason = (value: string) => (args: unknown[]) => (args[0] as { reason: string }).reason === value;
const eventType = (type: string) => (args: unknown[]) => (args[1] as { type: string }[]).some((event) => event.type === type);

const SCENARIOS: Scenario[] = [
  { name: 'the attempt cannot take the job', expect: 'succeeded', workflow: 'image', repo: 'jobs', method: 'transition', when: to('running') },
  { name: 'staging a file fails', expect: 'succeeded', workflow: 'image', repo: 'staged', method: 'add' },
  { name: 'the upload fails', expect: 'succeeded', workflow: 'image', storage: 'put' },
  { name: 'the transition to succeeded fails', expect: 'succeeded', workflow: 'image', repo: 'jobs', method: 'transition', when: to('succeeded') },
  { name: 'the history write fails', expect: 'succeeded', workflow: 'image', repo: 'history', method: 'add' },
  { name: 'releasing the staging fails', expect: 'succeeded', workflow: 'image', repo: 'staged', method: 'remove' },
  { name: 'recording job.completed fails', expect: 'succeeded', workflow: 'image', repo: 'events', method: 'appendAll', when: eventType('job.completed') },
  { name: 'the ack is lost', expect: 'succeeded', workflow: 'image', ackLost: true },
  { name: 'deleting an abandoned attempt\'s file fails', expect: 'succeeded', workflow: 'image', storage: 'delete', alsoFailCompletion: true },
  { name: 'the transition to failed fails', expect: 'failed', workflow: 'failing', repo: 'jobs', method: 'transition', when: to('failed') },
  { name: 'marking the refund fails', expect: 'failed', workflow: 'failing', repo: 'jobs', method: 'markRefunded' },
  { name: 'the refund credit fails', expect: 'failed', workflow: 'failing', repo: 'ledger', method: 'apply', when: reason('generation_refund') },
  { name: 'recording job.failed fails', expect: 'failed', workflow: 'failing', repo: 'events', method: 'appendAll', when: eventType('job.failed') },
  { name: 'failing a dead-lettered job fails once', expect: 'failed', workflow: 'unavailable', repo: 'jobs', method: 'transition', when: to('failed') },
  { name: 'the refund of a cancel fails', expect: 'cancelled', workflow: 'image', cancel: true, repo: 'ledger', method: 'apply', when: reason('generation_refund') },
];

const COST = 2;
const MAX_ATTEMPTS = 3;

/** An engine whose every run fails as unavailable (transient): the job is retried, then dead-lettered. */
const unavailable: WorkflowEngine = {
  async run() {
    return { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'connection refused' }, transient: true };
  },
  async check() {},
  async close() {},
};

async function filesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(path.relative(root, full));
    }
  };
  await walk(root);
  return found;
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

async function runScenario(kind: TestDatabase, scenario: Scenario) {
  const faults = { fired: 0, completionFailed: 0 };
  const interceptor: Interceptor = async (call, proceed) => {
    if (scenario.alsoFailCompletion && !faults.completionFailed && call.repo === 'jobs' && call.method === 'transition' && to('succeeded')(call.args)) {
      faults.completionFailed += 1;
      throw new Error('injected: the completion transaction failed');
    }
    const matches = call.repo === scenario.repo && call.method === scenario.method && (!scenario.when || scenario.when(call.args));
    if (matches && faults.fired === 0) {
      faults.fired += 1;
      throw new Error(`injected: ${scenario.name}`);
    }
    return proceed();
  };
  const storageFault = (inner: ObjectStorage): ObjectStorage =>
    Object.assign(Object.create(inner) as ObjectStorage, {
      put: async (...args: Parameters<ObjectStorage['put']>) => {
        if (scenario.storage === 'put' && faults.fired === 0) {
          faults.fired += 1;
          throw new Error('injected: the upload failed');
        }
        return inner.put(...args);
      },
      delete: async (key: string) => {
        if (scenario.storage === 'delete' && faults.fired === 0) {
          faults.fired += 1;
          throw new Error('injected: the file delete failed');
        }
        return inner.delete(key);
      },
    });
  const h: Harness = await generationHarness({
    backend: kind,
    localStorage: true,
    maxAttempts: MAX_ATTEMPTS,
    uow: (inner) => interceptTransactions(inner, interceptor),
    storage: storageFault,
    ...(scenario.workflow === 'unavailable' ? { engine: unavailable } : {}),
  });
  const queue = new SequelizeMessageQueue(h.backend.db!, { logger: quietLogger, pollIntervalMs: 20, backoff: { initialSeconds: 0.05, maxSeconds: 0.2 } });
  try {
    const userId = await h.newUser(10);
    const workflow = scenario.workflow === 'failing' ? failingWorkflow() : imageWorkflow();
    const templateId = await h.addTemplate(COST, workflow, {});
    const submitted = await h.submit.execute({ userId, role: 'user', templateId });
    if (!submitted.ok) throw new Error(`submit refused: ${JSON.stringify(submitted)}`);
    const jobId = submitted.value.job.id;
    await new RelayOutbox({ outbox: h.backend.outbox, queue, ids: { newId: () => randomUUID() }, clock: h.clock, logger: quietLogger }).execute();

    let ackLost = false;
    const handler = async (message: DeliveredMessage): Promise<HandlerOutcome> => {
      if (scenario.cancel) {
        // The user cancels before the worker gets to it; the first cancel's refund fails, the client retries.
        await h.cancel.execute({ userId, jobId }).catch(() => undefined);
        await h.cancel.execute({ userId, jobId }).catch(() => undefined);
      }
      const outcome = await h.run.execute(message);
      if (scenario.ackLost && !ackLost) {
        ackLost = true;
        throw new Error('injected: the ack was lost');
      }
      return outcome;
    };
    const consumer = await queue.consume(
      { taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: MAX_ATTEMPTS, visibilitySeconds: 2, onDeadLetter: (m, r) => h.deadLetters.execute(m, r) },
      handler,
    );
    const settled = await until(async () => (await queue.peek(10)).length === 0 && ['succeeded', 'failed', 'cancelled'].includes((await h.repos.jobs.findById(jobId))!.status), 20_000);
    await until(async () => (await queue.peek(10)).length === 0, 5_000);
    await consumer.stop();
    // Later, the reconciler runs (after the orphan grace period).
    h.advance(61);
    await h.reconciler.execute();
    return { h, userId, jobId, settled, faults };
  } finally {
    await queue.close();
  }
}

for (const kind of DATABASES) {
  for (const scenario of SCENARIOS) {
    test.serial(`${kind}: ${scenario.name}: the job still ends exactly once, refunded exactly when it did not succeed`, async (t) => {
      const { h, userId, jobId, settled, faults } = await runScenario(kind, scenario);
      t.teardown(() => h.dispose());
      t.true(faults.fired === 1 || scenario.ackLost === true, 'the fault was injected');
      t.true(settled, 'the job reached a terminal state and the queue emptied');
      const job = (await h.repos.jobs.findById(jobId))!;
      t.is(job.status, scenario.expect, JSON.stringify(job.error));
      const balance = await h.balance(userId);
      t.is(await h.repos.ledger.sum(userId), balance, 'the ledger adds up to the balance');
      const refunds = (await h.repos.ledger.findByRelatedEntity(userId, jobId)).filter((row) => row.reason === 'generation_refund');
      const history = await h.repos.history.listForJob(jobId);
      if (scenario.expect === 'succeeded') {
        t.is(balance, 10 - COST, 'charged once');
        t.deepEqual(refunds, [], 'no refund');
        t.is(job.refundedCoins, 0);
        t.is(history.length, 1, 'its output is kept, once');
        for (const item of history) t.not(await h.storage.head(item.storageKey), null, 'with its file');
      } else {
        t.is(balance, 10, 'refunded');
        t.is(refunds.length, 1, 'exactly once');
        t.is(job.refundedCoins, COST);
        t.deepEqual(history, [], 'no output');
      }
      const kept = new Set(history.map((item) => path.basename(item.storageKey)));
      const stray = (await filesUnder(h.storageDir)).filter((file) => ![...kept].some((name) => path.basename(file) === name || path.basename(file) === `.${name}.meta.json`));
      t.deepEqual(stray, [], 'no stored file without its history row');
      const terminal = (await h.eventsOf(userId)).filter((event) => TERMINAL_EVENT_TYPES.includes(event.type));
      t.deepEqual(terminal.map((event) => event.type), [scenario.expect === 'succeeded' ? 'job.completed' : scenario.expect === 'failed' ? 'job.failed' : 'job.cancelled'], 'one terminal event');
    });
  }
}
