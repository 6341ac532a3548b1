/**
 * Jobs: the guards of a job's moves, on the real databases. Most tests stage a race on purpose: they let one side
 * read, then let the other side finish, and only then let the first side write; the write must see that the world
 * moved on (a cancel of a job that just succeeded, a second submit of one requestId, the reconciler failing a job a new
 * attempt just took over) and change nothing it should not.
 */
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import test, { type ExecutionContext } from 'ava';
import type { JobRepository } from '../../core/ports/job-repository.port.ts';
import type { EngineError, EngineRunRequest, EngineRunResult, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { AdminCancelJob } from '../../core/use-cases/admin/admin-cancel-job.use-case.ts';
import { CancelGeneration } from '../../core/use-cases/generation/cancel-generation.use-case.ts';
import { ReconcileJobs } from '../../core/use-cases/generation/reconcile-jobs.use-case.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { failingWorkflow, generationHarness, quietLogger, type HarnessOptions } from '../support/generation-harness.ts';

const harness = async (t: ExecutionContext, kind: TestDatabase, options: HarnessOptions = {}) => {
  const h = await generationHarness({ backend: kind, ...options });
  t.teardown(() => h.dispose());
  return h;
};

/**
 * A user with 10 coins submits a job of a 3-coin template; its first attempt runs until the engine is entered
 * (`inEngine`), then a second delivery takes the job over. The first attempt's outcome is still pending.
 */
const takenOverInEngine = async (h: Awaited<ReturnType<typeof harness>>, inEngine: Promise<void>) => {
  const userId = await h.newUser(10);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId: await h.addTemplate(3) });
  if (!submitted.ok) throw new Error(JSON.stringify(submitted));
  const jobId = submitted.value.job.id;
  const first = h.run.execute(h.delivery(jobId, 1));
  await inEngine;
  const lease = new Date(h.clock.now().getTime() + 60_000);
  const second = await h.uow.run((tx) => h.lifecycle.start(tx, jobId, 2, lease));
  return { userId, jobId, first, second };
};

/** An engine that runs the n-th call by the n-th plan given (the builtin engine runs the real work). */
const plannedEngine = (plans: ((request: EngineRunRequest) => Promise<EngineRunResult>)[]) => {
  let calls = 0;
  return (builtin: WorkflowEngine): WorkflowEngine => ({
    run: (request) => {
      const plan = plans[calls++];
      return plan ? plan(request) : builtin.run(request);
    },
    release: (runId) => builtin.release!(runId),
    check: () => builtin.check(),
    close: () => builtin.close(),
  });
};

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

/** The job repository, with `overrides` in front of it (the rest is the real one). */
const jobsWith = (inner: JobRepository, overrides: Partial<JobRepository>): JobRepository => Object.assign(Object.create(inner) as JobRepository, overrides);

for (const kind of DATABASES) {
  // Pins: a cancel that read the job while it was still queued, and whose transaction comes after the job succeeded,
  // is refused (409 JOB.FINISHED): the job keeps its outputs and its charge, and no engine is told to stop.
  test(`${kind}: a cancel racing completion (the job succeeded between the cancel's read and its write) is refused and changes nothing`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(10);
    const templateId = await h.addTemplate(3);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    const jobId = submitted.value.job.id;
    const interrupted: string[] = [];
    const cancel = new CancelGeneration({
      uow: h.uow,
      jobs: jobsWith(h.repos.jobs, {
        findForUser: async (id, owner) => {
          const seen = await h.repos.jobs.findForUser(id, owner);
          t.deepEqual(await h.run.execute(h.delivery(id)), { action: 'ack' }, 'the worker finishes the job meanwhile');
          return seen;
        },
      }),
      lifecycle: h.lifecycle,
      logger: quietLogger,
      requestCancel: async (id) => void interrupted.push(id),
    });

    const answer = await cancel.execute({ userId, jobId });
    t.is(!answer.ok && answer.code, 'JOB.FINISHED');
    const job = (await h.repos.jobs.findById(jobId))!;
    t.like(job, { status: 'succeeded', refundedCoins: 0 });
    t.is((await h.repos.history.listForJob(jobId)).length, 1, 'its output stays');
    t.is(await h.balance(userId), 7, 'charged, not refunded');
    t.deepEqual(interrupted, [], 'no engine is interrupted');
    t.false((await h.eventsOf(userId)).some((event) => event.type === 'job.cancelled'));
  });

  // Pins: an administrator's cancel that loses the same race writes no audit entry (the cancel did not happen).
  test(`${kind}: an administrator's cancel racing completion is refused and leaves no audit entry`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(10);
    const adminId = await h.newUser(0, 'admin');
    const templateId = await h.addTemplate(3);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    const jobId = submitted.value.job.id;
    const cancel = new AdminCancelJob({
      uow: h.uow,
      jobs: jobsWith(h.repos.jobs, {
        findById: async (id) => {
          const seen = await h.repos.jobs.findById(id);
          t.deepEqual(await h.run.execute(h.delivery(id)), { action: 'ack' }, 'the worker finishes the job meanwhile');
          return seen;
        },
      }),
      lifecycle: h.lifecycle,
      logger: quietLogger,
      requestCancel: async () => undefined,
      ids: { newId: () => randomUUID() },
      clock: h.clock,
    });

    const answer = await cancel.execute({ actorId: adminId, jobId });
    t.is(!answer.ok && answer.code, 'JOB.FINISHED');
    t.is((await h.repos.jobs.findById(jobId))!.status, 'succeeded');
    t.is(await h.balance(userId), 7);
    t.deepEqual((await h.repos.audit.list({ page: 1, limit: 10 })).items, [], 'no audit entry for a cancel that did not happen');
  });

  // Pins: two submits of one requestId that both pass the early look-up: the one whose insert finds the id taken rolls
  // its whole transaction back (its charge, its queue message, its event) and answers with the job that won; for
  // another user the answer is 409 and their coins stay.
  test(`${kind}: a submit that loses the race for its requestId answers with the winner's job and charges nothing`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(10);
    const stranger = await h.newUser(10);
    const templateId = await h.addTemplate(3);
    const jobs = h.repos.jobs;
    const read = jobs.findById.bind(jobs);
    t.teardown(() => void delete (jobs as Partial<JobRepository>).findById);
    /** The next look-up of `requestId` reads "no such job", and the owner's own submit of it commits right after that read. */
    const loseTheRaceFor = (requestId: string) => {
      let raced = false;
      jobs.findById = async (id) => {
        const found = await read(id);
        if (id === requestId && !raced) {
          raced = true;
          const winner = await h.submit.execute({ userId, role: 'user', templateId, requestId });
          t.true(winner.ok && winner.value.created, 'the winner creates the job');
        }
        return found;
      };
    };

    const requestId = randomUUID();
    loseTheRaceFor(requestId);
    const loser = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.true(loser.ok && !loser.value.created && loser.value.job.id === requestId, 'the existing job, not a new one');
    t.is(await h.balance(userId), 7, 'charged once');
    t.is(await h.pendingMessages(), 1, 'one queue message');
    t.is((await h.eventsOf(userId)).filter((event) => event.type === 'job.queued').length, 1);

    const taken = randomUUID();
    loseTheRaceFor(taken);
    const stolen = await h.submit.execute({ userId: stranger, role: 'user', templateId, requestId: taken });
    t.is(!stolen.ok && stolen.code, 'CONFLICT');
    t.is(await h.balance(stranger), 10, "the stranger's charge rolled back");
    t.is((await h.repos.jobs.findById(taken))!.userId, userId);
    t.deepEqual(await h.eventsOf(stranger), []);
  });

  // Pins: the reconciler's failure of a stalled job is fenced by the run id it listed: when a new attempt takes the job
  // over between the listing and the write, the job stays running (and charged) under the new attempt.
  test(`${kind}: the reconciler leaves a stalled job alone when a new attempt took it over after the listing`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(10);
    const templateId = await h.addTemplate(3);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    const jobId = submitted.value.job.id;
    const lostRunId = randomUUID();
    t.true(await h.repos.jobs.transition(jobId, { to: 'running', runId: lostRunId, changes: { leaseUntil: h.clock.now() } }, h.clock.now()));
    h.advance(31);
    let newRunId: string | null = null;
    const reconciler = new ReconcileJobs({
      uow: h.uow,
      jobs: jobsWith(h.repos.jobs, {
        listStalled: async (before, max) => {
          const listed = await h.repos.jobs.listStalled(before, max);
          t.deepEqual(listed.map((job) => job.id), [jobId]);
          const lease = new Date(h.clock.now().getTime() + 60_000);
          const started = await h.uow.run((tx) => h.lifecycle.start(tx, jobId, 2, lease));
          if (started.kind === 'started') newRunId = started.runId;
          return listed;
        },
      }),
      staged: h.repos.staged,
      storage: h.storage,
      lifecycle: h.lifecycle,
      payment: h.payment,
      clock: h.clock,
      logger: quietLogger,
      stalledAfterSeconds: 30 * 60,
      orphanedAfterSeconds: 60 * 60,
    });

    t.deepEqual((await reconciler.execute()).abandoned, []);
    t.truthy(newRunId, 'a new attempt took the job over');
    t.like(await h.repos.jobs.findById(jobId), { status: 'running', runId: newRunId, error: null, refundedCoins: 0 });
    t.is(await h.balance(userId), 7, 'not refunded: the job is still being made');
    t.false((await h.eventsOf(userId)).some((event) => event.type === 'job.failed'));
  });

  // Pins: a finished job (succeeded, failed or cancelled) that is delivered again is acked untouched: no engine run,
  // no new event for its owner, its status, outputs and coins as they were.
  test(`${kind}: a redelivered finished job is not run again and its owner hears nothing more`, async (t) => {
    const runs: string[] = [];
    const h = await harness(t, kind, {
      wrapEngine: (builtin): WorkflowEngine => ({
        run: (request) => {
          runs.push(request.jobId ?? request.runId);
          return builtin.run(request);
        },
        release: (runId) => builtin.release(runId),
        check: () => builtin.check(),
        close: () => builtin.close(),
      }),
    });
    const userId = await h.newUser(20);
    const submit = async (templateId: string) => {
      const submitted = await h.submit.execute({ userId, role: 'user', templateId });
      if (!submitted.ok) throw new Error(JSON.stringify(submitted));
      return submitted.value.job.id;
    };
    const succeeded = await submit(await h.addTemplate(3));
    const failed = await submit(await h.addTemplate(2, failingWorkflow(), {}));
    const cancelled = await submit(await h.addTemplate(1));
    for (const jobId of [succeeded, failed]) t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
    t.true((await h.cancel.execute({ userId, jobId: cancelled })).ok);
    t.deepEqual(runs, [succeeded, failed]);
    const before = {
      jobs: await Promise.all([succeeded, failed, cancelled].map((id) => h.repos.jobs.findById(id))),
      events: await h.eventsOf(userId),
      balance: await h.balance(userId),
      outputs: await h.repos.history.listForJob(succeeded),
    };
    t.deepEqual(before.jobs.map((job) => job!.status), ['succeeded', 'failed', 'cancelled']);
    t.is(before.balance, 17, 'the failed and the cancelled job were refunded');

    for (const jobId of [succeeded, failed, cancelled]) t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'ack' });
    t.deepEqual(runs, [succeeded, failed], 'the engine ran nothing more');
    t.deepEqual(await Promise.all([succeeded, failed, cancelled].map((id) => h.repos.jobs.findById(id))), before.jobs);
    t.deepEqual(await h.eventsOf(userId), before.events, 'no event after the end');
    t.is(await h.balance(userId), before.balance);
    t.deepEqual(await h.repos.history.listForJob(succeeded), before.outputs);
  });

  // Pins: an attempt that lost its job while the engine ran (cancelled here; the engine finished anyway) stores
  // nothing: no file reaches storage, nothing stays staged, and its owner hears nothing after the cancel.
  test(`${kind}: an attempt whose job was cancelled while the engine ran uploads nothing and says nothing more`, async (t) => {
    let inEngine!: () => void;
    const entered = new Promise<void>((resolve) => (inEngine = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const h = await harness(t, kind, {
      localStorage: true,
      wrapEngine: (builtin): WorkflowEngine => ({
        // An engine that does not stop when asked: it finishes the run and hands its files over.
        run: async ({ signal: _ignored, ...request }) => {
          inEngine();
          await finishing;
          return builtin.run(request);
        },
        release: (runId) => builtin.release(runId),
        check: () => builtin.check(),
        close: () => builtin.close(),
      }),
    });
    const userId = await h.newUser(10);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId: await h.addTemplate(3) });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    const jobId = submitted.value.job.id;
    const work = h.run.execute(h.delivery(jobId));
    await entered;
    t.true((await h.cancel.execute({ userId, jobId })).ok);
    const runId = (await h.repos.jobs.findById(jobId))!.runId!;
    finish();
    t.deepEqual(await work, { action: 'ack' });

    const stored = async (dir: string): Promise<string[]> => (await readdir(dir, { recursive: true }).catch(() => [] as string[])).filter((file) => file.includes(jobId));
    t.deepEqual(await stored(h.storageDir), [], 'no file of the job in storage');
    t.deepEqual(await h.repos.staged.listForRun(runId), [], 'nothing staged');
    t.deepEqual(await h.repos.history.listForJob(jobId), []);
    t.like(await h.repos.jobs.findById(jobId), { status: 'cancelled', refundedCoins: 3 });
    t.is(await h.balance(userId), 10);
    const types = (await h.eventsOf(userId)).map((event) => event.type);
    t.is(types.at(-1), 'job.cancelled', `nothing after the cancel: ${types.join(', ')}`);
  });

  // Pins: the start deadline bounds the wait in the queue only: a job an attempt started in time, delivered again after
  // its deadline (the attempt's visibility ran out), is taken over and finished, not given up as overdue.
  test(`${kind}: a job started before its start deadline and delivered again after it runs to the end`, async (t) => {
    const h = await harness(t, kind);
    const userId = await h.newUser(10);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId: await h.addTemplate(3), startDeadlineSeconds: 60 });
    if (!submitted.ok) return t.fail(JSON.stringify(submitted));
    const jobId = submitted.value.job.id;
    const lease = new Date(h.clock.now().getTime() + 30_000);
    const first = await h.uow.run((tx) => h.lifecycle.start(tx, jobId, 1, lease));
    t.is(first.kind, 'started', 'taken in time');
    h.advance(5);
    t.deepEqual(await h.run.execute(h.delivery(jobId, 2)), { action: 'ack' });
    t.like(await h.repos.jobs.findById(jobId), { status: 'succeeded', attempts: 2, refundedCoins: 0 });
    t.is((await h.repos.history.listForJob(jobId)).length, 1);
    t.is(await h.balance(userId), 7);
    t.is(await h.expire.execute(), 0);
  });

  // Pins: a repeated requestId is answered with its job before any limit is checked: a user at the active-job cap
  // gets the job back (not a 429), and the deduction the job was paid with stays the job's.
  test(`${kind}: a repeat of a request whose job counts against the active-job cap answers with the job and keeps its payment`, async (t) => {
    const h = await harness(t, kind, { maxActiveJobsPerUser: 1 });
    const userId = await h.newUser(10);
    const templateId = await h.addTemplate(3);
    const requestId = randomUUID();
    await h.deduct(userId, 3, requestId);
    const first = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.true(first.ok && first.value.created);
    const again = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.true(again.ok && !again.value.created && again.value.job.id === requestId, JSON.stringify(again));
    t.is(await h.balance(userId), 7, 'paid once, by the deduction');
    t.like(await h.repos.jobs.findById(requestId), { status: 'queued', paidCoins: 3 });
    const other = await h.submit.execute({ userId, role: 'user', templateId });
    t.is(!other.ok && other.code, 'JOB.TOO_MANY_ACTIVE', 'a new request is refused');
  });

  // Pins: a delivery naming a job that does not exist goes straight to the dead letters (no retries), and writes nothing.
  test(`${kind}: a delivery of a job that does not exist is dead-lettered at once`, async (t) => {
    const h = await harness(t, kind);
    const jobId = randomUUID();
    t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'dead', reason: `job ${jobId} does not exist` });
    t.is(await h.repos.jobs.findById(jobId), null);
  });

  // Pins: an attempt whose job a newer delivery took over learns it from its heartbeat (its lease can no longer be
  // renewed) and stops its engine call, without anyone cancelling; the job is the newer attempt's to finish.
  test(`${kind}: an attempt taken over is stopped by its own heartbeat`, async (t) => {
    const inEngine = gate();
    let aborted = false;
    const h = await harness(t, kind, {
      visibilitySeconds: 0.3,
      wrapEngine: plannedEngine([
        async ({ signal }) => {
          inEngine.open();
          // Interrupted when its signal fires; after 5 s the test gives up waiting (and fails below).
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 5_000);
            signal?.addEventListener('abort', () => {
              aborted = true;
              clearTimeout(timer);
              resolve();
            });
          });
          return { ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'interrupted' }, transient: false };
        },
      ]),
    });
    const { userId, jobId, first, second } = await takenOverInEngine(h, inEngine.opened);
    t.is(second.kind, 'started', 'a second delivery took the job over');
    t.deepEqual(await first, { action: 'ack' });
    t.true(aborted, "the first attempt's engine call was stopped by its heartbeat");
    t.like(await h.repos.jobs.findById(jobId), { status: 'running', runId: second.kind === 'started' ? second.runId : null });
    t.is(await h.balance(userId), 7);
  });

  // Pins: an attempt taken over while in the engine, whose engine then fails or is interrupted, leaves the job alone:
  // no failure, no refund, no retry of its own (the newer attempt holds the job and finishes it).
  for (const ending of ['fails', 'is interrupted'] as const) {
    test(`${kind}: an attempt taken over whose engine then ${ending} leaves the job to the newer attempt`, async (t) => {
      const inEngine = gate();
      const endRun = gate();
      const error: EngineError = ending === 'fails' ? { code: 'ENGINE.EXECUTION', message: 'node 2 failed' } : { code: 'ENGINE.INTERRUPTED', message: 'the engine restarted' };
      const h = await harness(t, kind, {
        wrapEngine: plannedEngine([
          async () => {
            inEngine.open();
            await endRun.opened;
            return { ok: false, error, transient: false };
          },
        ]),
      });
      const { userId, jobId, first, second } = await takenOverInEngine(h, inEngine.opened);
      if (second.kind !== 'started') return t.fail(second.kind);
      endRun.open();
      t.deepEqual(await first, { action: 'ack' }, 'acked: no failure and no retry of its own');
      t.like(await h.repos.jobs.findById(jobId), { status: 'running', runId: second.runId, error: null, refundedCoins: 0 });
      t.is(await h.balance(userId), 7);
      t.false((await h.eventsOf(userId)).some((event) => event.type === 'job.failed'));
    });
  }

  // Pins: only queued and running jobs count against MAX_ACTIVE_JOBS_PER_USER (and towards the owner's turn): a user
  // whose earlier jobs all ended may submit again, and the new job takes the first turn.
  test(`${kind}: jobs that ended do not count against the active-job cap`, async (t) => {
    const h = await harness(t, kind, { maxActiveJobsPerUser: 1 });
    const userId = await h.newUser(20);
    const templateId = await h.addTemplate(2);
    const ended: string[] = [];
    for (const end of ['succeeded', 'cancelled'] as const) {
      const submitted = await h.submit.execute({ userId, role: 'user', templateId });
      if (!submitted.ok) return t.fail(`${end}: ${JSON.stringify(submitted)}`);
      const jobId = submitted.value.job.id;
      if (end === 'succeeded') t.deepEqual(await h.run.execute(h.delivery(jobId)), { action: 'ack' });
      else t.true((await h.cancel.execute({ userId, jobId })).ok);
      t.is((await h.repos.jobs.findById(jobId))!.status, end);
      ended.push(jobId);
    }
    const next = await h.submit.execute({ userId, role: 'user', templateId });
    t.true(next.ok, JSON.stringify(next));
    t.is(next.ok && next.value.job.queueTurn, 1, 'the first turn: nothing of this user is queued or running');
    const busy = await h.submit.execute({ userId, role: 'user', templateId });
    t.is(!busy.ok && busy.code, 'JOB.TOO_MANY_ACTIVE', 'the queued one counts');
  });
}
