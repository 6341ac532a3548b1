import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JOB_STATUSES, type GenerationJob, type JobStatus } from '../../core/domain/job.ts';
import { CHOICES_WINDOW } from '../../core/domain/run-estimate.ts';
import type { JobRepository, NewJob } from '../../core/ports/job-repository.port.ts';
import type { Repositories } from '../support/backends.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { addUser, at, era, freshBackend, HOUR, newJob, sharedBackend, SECOND, type MakeBackend } from './fixtures.ts';

/** What `create` stores beyond the new job's own fields. */
const created = (job: NewJob): GenerationJob => ({
  ...job,
  refundedCoins: 0,
  error: null,
  textOutputs: [],
  attempts: 0,
  runId: null,
  leaseUntil: null,
  updatedAt: job.createdAt,
  startedAt: null,
  finishedAt: null,
  engineServer: null,
  retryAt: null,
});

const ids = (jobs: readonly { id: string }[]) => jobs.map((job) => job.id);
/** The queued jobs ahead of one job, asked alone (one answer for one job). */
const aheadOf = async (own: Repositories, job: Pick<GenerationJob, 'id' | 'createdAt' | 'queueTurn'>, order: 'arrival' | 'owner-turns') => {
  const answers = await own.jobs.queuedAhead([job], order);
  if (answers.length !== 1) throw new Error(`${answers.length} answers for one job`);
  return answers[0]!;
};
/** A job as the lists give it: without its workflow. */
const summaryOf = ({ workflow: _workflow, ...rest }: GenerationJob) => rest;

/**
 * The moves a job may make, written out here rather than read from the domain's `TRANSITIONS`: a test that took
 * its expectation from the code under test would follow any change of it (`succeeded → failed` would let a late
 * dead letter fail a finished job and refund it). Changing the table means changing this one too, on purpose.
 */
const ALLOWED: readonly string[] = [
  'queued→running',
  'queued→failed',
  'queued→cancelled',
  'queued→expired',
  'running→running',
  'running→succeeded',
  'running→failed',
  'running→cancelled',
];

/** Every (from, to) pair of statuses, with whether the pinned table allows it. */
const MOVES = JOB_STATUSES.flatMap((from) => JOB_STATUSES.map((to) => ({ from, to, allowed: ALLOWED.includes(`${from}→${to}`) })));

/** Registers the JobRepository contract for one backend; `make()` returns a fresh, empty backend. */
export function jobRepositoryContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let jobs: JobRepository;
  let uow: UnitOfWork;
  test.before(async () => {
    ({ repos, uow } = await backend());
    jobs = repos.jobs;
  });
  const user = () => addUser(repos.users);

  /** A stored job in `status` (created there directly: the moves under test are not used to get it there). */
  const stored = async (status: JobStatus, over: Partial<NewJob> = {}): Promise<GenerationJob> => {
    const job = newJob(over.userId ?? (await user()), { status, ...over });
    if (!(await jobs.create(job))) throw new Error('job not created');
    return (await jobs.findById(job.id))!;
  };

  /** A running job held by `runId` (moved there from queued), with an optional lease. */
  const running = async (runId: string, over: Partial<NewJob> = {}, leaseUntil: Date | null = null): Promise<GenerationJob> => {
    const job = await stored('queued', over);
    if (!(await jobs.transition(job.id, { to: 'running', runId, changes: { leaseUntil, attempts: 1, startedAt: at(SECOND) } }, at(SECOND)))) throw new Error('not started');
    return (await jobs.findById(job.id))!;
  };

  test(`${name}: the statuses are the six of the API, and every pair of them is covered below`, (t) => {
    t.deepEqual([...JOB_STATUSES].sort(), ['cancelled', 'expired', 'failed', 'queued', 'running', 'succeeded']);
    t.is(MOVES.length, 36);
    t.is(MOVES.filter((move) => move.allowed).length, ALLOWED.length);
  });

  test(`${name}: create stores a new job with empty attempt fields; findById reads it back`, async (t) => {
    const userId = await user();
    const job = newJob(userId, {
      templateId: randomUUID(),
      templateVersion: 3,
      progress: { value: 2, max: 9 },
      statusText: 'in line ✓',
      imageRefs: [{ key: 'image', id: randomUUID(), nodeId: '5', inputName: 'image' }],
      outputType: 'video',
      paidCoins: 12,
      startDeadline: at(61_234),
      createdAt: at(1234),
    });
    t.true(await jobs.create(job));
    t.deepEqual(await jobs.findById(job.id), created(job));
    t.is(await jobs.findById(randomUUID()), null);
  });

  test(`${name}: create is false for a taken id and changes nothing`, async (t) => {
    const userId = await user();
    const job = newJob(userId, { paidCoins: 3 });
    t.true(await jobs.create(job));
    t.false(await jobs.create({ ...job, paidCoins: 99, statusText: 'impostor', status: 'running' }));
    // Inside a unit of work too (on SQL the statement then runs on the transaction's own connection), and the
    // transaction goes on: the submit answers with the job that took the id.
    t.deepEqual(await uow.run(async (tx) => [await tx.jobs.create({ ...job, paidCoins: 98 }), (await tx.jobs.findById(job.id))?.paidCoins]), [false, 3]);
    t.deepEqual(await jobs.findById(job.id), created(job));
  });

  test(`${name}: findForUser and findSummaryForUser find the owner's job only`, async (t) => {
    const owner = await user();
    const other = await user();
    const job = await stored('queued', { userId: owner });
    t.deepEqual(await jobs.findForUser(job.id, owner), job);
    t.is(await jobs.findForUser(job.id, other), null);
    t.is(await jobs.findForUser(randomUUID(), owner), null);
    t.deepEqual(await jobs.findSummaryForUser(job.id, owner), summaryOf(job), 'the job without its workflow');
    t.is(await jobs.findSummaryForUser(job.id, other), null);
    t.is(await jobs.findSummaryForUser(randomUUID(), owner), null);
  });

  test(`${name}: listForUser pages the user's jobs newest first`, async (t) => {
    const owner = await user();
    const other = await user();
    const made: GenerationJob[] = [];
    for (const minute of [3, 1, 5, 2, 4]) made.push(await stored('queued', { userId: owner, createdAt: at(minute * 60 * SECOND) }));
    await stored('queued', { userId: other, createdAt: at(10 * 60 * SECOND) });
    const newestFirst = [...made].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const first = await jobs.listForUser(owner, { page: 1, limit: 2 });
    t.deepEqual(first, { items: newestFirst.slice(0, 2).map(summaryOf), page: 1, limit: 2, total: 5, totalPages: 3 });
    t.false(first.items.some((job) => 'workflow' in job), 'a listed job carries no workflow');
    t.deepEqual(ids((await jobs.listForUser(owner, { page: 3, limit: 2 })).items), ids(newestFirst.slice(4)));
    t.deepEqual((await jobs.listForUser(owner, { page: 4, limit: 2 })).items, []);
    t.deepEqual(await jobs.listForUser(randomUUID(), { page: 1, limit: 2 }), { items: [], page: 1, limit: 2, total: 0, totalPages: 0 });
  });

  test(`${name}: a test run is stored as one; listForUser leaves test runs out; listTestRuns lists a template's, newest first, at most max`, async (t) => {
    const owner = await user();
    const template = randomUUID();
    const own = await stored('succeeded', { userId: owner, templateId: template, createdAt: at(SECOND) });
    const runs: GenerationJob[] = [];
    for (const minute of [2, 4, 3]) runs.push(await stored('queued', { userId: owner, templateId: template, testRun: true, createdAt: at(minute * 60 * SECOND) }));
    await stored('queued', { userId: owner, templateId: randomUUID(), testRun: true });
    t.true(runs[0]!.testRun);
    t.false(own.testRun);
    t.deepEqual(await jobs.listForUser(owner, { page: 1, limit: 10 }), { items: [summaryOf(own)], page: 1, limit: 10, total: 1, totalPages: 1 });
    t.deepEqual(ids(await jobs.listTestRuns(template, 10)), ids([runs[1]!, runs[2]!, runs[0]!]));
    t.deepEqual(ids(await jobs.listTestRuns(template, 2)), ids([runs[1]!, runs[2]!]));
    t.deepEqual(ids(await jobs.listTestRuns(template, 2.9)), ids([runs[1]!, runs[2]!]), 'a fractional max reads its whole part');
    t.deepEqual(ids(await jobs.listTestRuns(template, 0)), ids([runs[1]!]), 'a max below one reads one, as every batch read does');
    t.deepEqual(await jobs.listTestRuns(randomUUID(), 10), []);
  });

  test(`${name}: listActiveForUser lists the user's queued and running jobs only`, async (t) => {
    const owner = await user();
    const other = await user();
    // Stored newest first, listed oldest first.
    const newer = await running(randomUUID(), { userId: owner, createdAt: at(2) });
    const active = [await stored('queued', { userId: owner, createdAt: at(1) }), newer];
    for (const status of ['succeeded', 'failed', 'cancelled'] as const) await stored(status, { userId: owner });
    await stored('queued', { userId: other });
    t.deepEqual(await jobs.listActiveForUser(owner), active.map(summaryOf), 'oldest first, without workflows');
    t.deepEqual(await jobs.listActiveForUser(randomUUID()), []);
  });

  test(`${name}: listByStatus pages every user's jobs in the given statuses, oldest first`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const [a, b] = [await addUser(own.users), await addUser(own.users)];
    const make1 = async (userId: string, status: JobStatus, second: number) => {
      const job = newJob(userId, { status, createdAt: at(second * SECOND) });
      await own.jobs.create(job);
      return job.id;
    };
    const queuedB = await make1(b, 'queued', 3);
    const runningA = await make1(a, 'running', 1);
    const queuedA = await make1(a, 'queued', 2);
    for (const status of ['succeeded', 'failed', 'cancelled'] as const) await make1(a, status, 0);
    const first = await own.jobs.listByStatus(['queued', 'running'], { page: 1, limit: 2 });
    t.deepEqual([ids(first.items), first.total, first.totalPages], [[runningA, queuedA], 3, 2]);
    t.deepEqual(first.items[0], summaryOf((await own.jobs.findById(runningA))!), 'the job as stored, without its workflow');
    t.false(first.items.some((job) => 'workflow' in job));
    t.deepEqual(await own.jobs.listByStatus([], { page: 1, limit: 10 }), { items: [], page: 1, limit: 10, total: 0, totalPages: 0 });
    t.deepEqual(ids((await own.jobs.listByStatus(['queued', 'running'], { page: 2, limit: 2 })).items), [queuedB]);
    t.deepEqual(ids((await own.jobs.listByStatus(['queued'], { page: 1, limit: 10 })).items), [queuedA, queuedB]);
    t.is((await own.jobs.listByStatus(['succeeded', 'failed', 'cancelled'], { page: 1, limit: 10 })).total, 3);
  });

  test(`${name}: templateStats counts a window's jobs per template, its failure rate and the nearest-rank p50/p95 run time of its successes`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const [a, b, old] = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
    const since = at(HOUR);
    const add = async (templateId: string | null, createdAt: Date, end?: { to: 'succeeded' | 'failed' | 'cancelled'; runMs: number }) => {
      const job = newJob(userId, { templateId, createdAt });
      await own.jobs.create(job);
      if (!end) return;
      const started = new Date(createdAt.getTime() + SECOND);
      await own.jobs.transition(job.id, { to: 'running', runId: randomUUID(), changes: { startedAt: started } }, started);
      const finished = new Date(started.getTime() + end.runMs);
      await own.jobs.transition(job.id, { to: end.to, changes: { finishedAt: finished } }, finished);
    };
    // Template a: twenty successes of 100 ms to 2000 ms (stored out of order), two failures, a cancel and one still queued.
    for (const n of [7, 1, 20, 13, 2, 19, 8, 3, 14, 9, 4, 18, 15, 5, 10, 17, 6, 11, 16, 12]) await add(a, at(HOUR + n * SECOND), { to: 'succeeded', runMs: n * 100 });
    await add(a, at(2 * HOUR), { to: 'failed', runMs: 50 });
    await add(a, at(2 * HOUR), { to: 'failed', runMs: 60 });
    await add(a, at(2 * HOUR), { to: 'cancelled', runMs: 70 });
    await add(a, at(2 * HOUR));
    await add(a, at(HOUR - SECOND), { to: 'succeeded', runMs: 999_000 }); // before the window
    await add(b, at(3 * HOUR), { to: 'failed', runMs: 10 });
    await add(old, at(0), { to: 'succeeded', runMs: 10 });
    await add(null, at(2 * HOUR), { to: 'succeeded', runMs: 10 });

    t.deepEqual(await own.jobs.templateStats(since), [
      { templateId: a, jobs: 24, succeeded: 20, failed: 2, cancelled: 1, failureRate: 2 / 22, p50RunMs: 1000, p95RunMs: 1900 },
      { templateId: b, jobs: 1, succeeded: 0, failed: 1, cancelled: 0, failureRate: 1, p50RunMs: null, p95RunMs: null },
    ]);
    t.deepEqual(await own.jobs.templateStats(at(4 * HOUR)), []);
  });

  for (const { from, to, allowed } of MOVES) {
    test(`${name}: transition ${from} → ${to} is ${allowed ? 'allowed' : 'refused and changes nothing'}`, async (t) => {
      const before = await stored(from, { paidCoins: 4 });
      const moved = await jobs.transition(before.id, { to, changes: { statusText: `moved to ${to}`, progress: { value: 1, max: 2 } } }, at(HOUR));
      const after = (await jobs.findById(before.id))!;
      if (allowed) {
        t.true(moved);
        t.deepEqual(after, { ...before, status: to, statusText: `moved to ${to}`, progress: { value: 1, max: 2 }, updatedAt: at(HOUR) });
      } else {
        t.false(moved);
        t.deepEqual(after, before);
      }
    });
  }

  test(`${name}: transition of an unknown job is false`, async (t) => {
    t.false(await jobs.transition(randomUUID(), { to: 'cancelled' }, at(1)));
  });

  test(`${name}: a move to running stores its runId; a later attempt taking over stores its own`, async (t) => {
    const job = await stored('queued');
    const first = randomUUID();
    t.true(await jobs.transition(job.id, { to: 'running', runId: first }, at(1)));
    t.is((await jobs.findById(job.id))!.runId, first);
    const second = randomUUID();
    t.true(await jobs.transition(job.id, { to: 'running', runId: second, fence: first }, at(2)));
    t.like(await jobs.findById(job.id), { status: 'running', runId: second });
  });

  test(`${name}: a fence that differs from the stored runId refuses the move and changes nothing`, async (t) => {
    const runId = randomUUID();
    const job = await running(runId);
    for (const to of ['running', 'succeeded', 'failed', 'cancelled'] as const) {
      t.false(await jobs.transition(job.id, { to, fence: randomUUID(), runId: randomUUID(), changes: { statusText: 'stale attempt' } }, at(HOUR)), to);
    }
    t.deepEqual(await jobs.findById(job.id), job);
    const queued = await stored('queued');
    t.false(await jobs.transition(queued.id, { to: 'cancelled', fence: randomUUID() }, at(HOUR)), 'a job no attempt holds');
    t.deepEqual(await jobs.findById(queued.id), queued);
    t.true(await jobs.transition(job.id, { to: 'succeeded', fence: runId, changes: { finishedAt: at(HOUR) } }, at(HOUR)), 'the holding attempt may');
    t.like(await jobs.findById(job.id), { status: 'succeeded', runId, finishedAt: at(HOUR) });
  });

  test(`${name}: transition writes every change it carries`, async (t) => {
    const runId = randomUUID();
    const job = await running(runId);
    const error = { code: 'ENGINE.EXECUTION', message: 'node 7 failed ✓', nodeId: '7' };
    const textOutputs = [{ nodeId: '9', text: 'a "caption" 🐈' }];
    const changes = { progress: { value: 5, max: 10 }, statusText: 'failed', error, textOutputs, attempts: 2, startedAt: at(2), finishedAt: at(3), leaseUntil: null };
    t.true(await jobs.transition(job.id, { to: 'failed', fence: runId, changes }, at(4)));
    t.deepEqual(await jobs.findById(job.id), { ...job, ...changes, status: 'failed', updatedAt: at(4) });
    const other = await running(randomUUID());
    t.true(await jobs.transition(other.id, { to: 'running', runId: 'r2', changes: { error, leaseUntil: at(HOUR) } }, at(5)));
    t.true(await jobs.transition(other.id, { to: 'cancelled', changes: { error: null } }, at(6)), 'error: null clears it');
    t.like(await jobs.findById(other.id), { status: 'cancelled', error: null, leaseUntil: at(HOUR), runId: 'r2' });
  });

  test(`${name}: a change leaves every field it does not carry as it was`, async (t) => {
    const runId = randomUUID();
    const job = await running(runId);
    const error = { code: 'ENGINE.EXECUTION', message: 'node 7 failed', nodeId: '7' };
    const every = { progress: { value: 3, max: 7 }, statusText: 'sampling', error, textOutputs: [{ nodeId: '9', text: 'so far' }], attempts: 2, startedAt: at(2), finishedAt: at(3), leaseUntil: at(HOUR), engineServer: 2, retryAt: at(4) };
    t.true(await jobs.updateRunning(job.id, runId, every, at(5)));
    const written = { ...job, ...every, updatedAt: at(5) };
    t.deepEqual(await jobs.findById(job.id), written);
    t.true(await jobs.updateRunning(job.id, runId, {}, at(6)), 'an update without changes');
    t.deepEqual(await jobs.findById(job.id), { ...written, updatedAt: at(6) });
    t.true(await jobs.transition(job.id, { to: 'succeeded', fence: runId }, at(7)), 'a move without changes');
    t.deepEqual(await jobs.findById(job.id), { ...written, status: 'succeeded', updatedAt: at(7) });
  });

  test(`${name}: a change's progress is stored in whole steps, at least one, and its status text cut at 255 characters`, async (t) => {
    const runId = randomUUID();
    const job = await running(runId);
    t.true(await jobs.updateRunning(job.id, runId, { progress: { value: 2.6, max: 0.2 }, statusText: 'é'.repeat(300) }, at(5)));
    t.like(await jobs.findById(job.id), { progress: { value: 3, max: 1 }, statusText: 'é'.repeat(255) });
    t.true(await jobs.transition(job.id, { to: 'failed', fence: runId, changes: { progress: { value: 7.4, max: 9.5 } } }, at(6)));
    t.like(await jobs.findById(job.id), { progress: { value: 7, max: 10 } });
  });

  test(`${name}: updateRunning writes only while the job is running and held by that runId`, async (t) => {
    const runId = randomUUID();
    const job = await running(runId);
    const changes = { progress: { value: 3, max: 7 }, statusText: 'sampling', leaseUntil: at(2 * HOUR) };
    t.true(await jobs.updateRunning(job.id, runId, changes, at(HOUR)));
    const updated = { ...job, ...changes, updatedAt: at(HOUR) };
    t.deepEqual(await jobs.findById(job.id), updated);
    t.false(await jobs.updateRunning(job.id, randomUUID(), { statusText: 'another attempt' }, at(HOUR + 1)), 'another runId');
    t.deepEqual(await jobs.findById(job.id), updated);

    t.true(await jobs.transition(job.id, { to: 'cancelled', changes: { statusText: 'cancelled' } }, at(HOUR + 2)));
    const cancelled = (await jobs.findById(job.id))!;
    t.is(cancelled.runId, runId, 'the cancelled job still names the attempt');
    t.false(await jobs.updateRunning(job.id, runId, { statusText: 'late progress', leaseUntil: at(3 * HOUR) }, at(HOUR + 3)), 'no longer running');
    t.deepEqual(await jobs.findById(job.id), cancelled);

    const queued = await stored('queued');
    t.false(await jobs.updateRunning(queued.id, runId, { statusText: 'x' }, at(1)));
    t.deepEqual(await jobs.findById(queued.id), queued);
    t.false(await jobs.updateRunning(randomUUID(), runId, { statusText: 'x' }, at(1)));
  });

  test(`${name}: markRefunded records the refund once and keeps the first amount`, async (t) => {
    const job = await stored('failed', { paidCoins: 5 });
    t.true(await jobs.markRefunded(job.id, 5, at(HOUR)));
    t.deepEqual(await jobs.findById(job.id), { ...job, refundedCoins: 5, updatedAt: at(HOUR) });
    t.false(await jobs.markRefunded(job.id, 3, at(2 * HOUR)));
    t.deepEqual(await jobs.findById(job.id), { ...job, refundedCoins: 5, updatedAt: at(HOUR) });
    t.false(await jobs.markRefunded(randomUUID(), 5, at(HOUR)));
  });

  test(`${name}: countForTemplate counts the template's jobs`, async (t) => {
    const templateId = randomUUID();
    for (const status of ['queued', 'succeeded', 'failed'] as const) await stored(status, { templateId });
    await stored('queued', { templateId: randomUUID() });
    t.is(await jobs.countForTemplate(templateId), 3);
    t.is(await jobs.countForTemplate(randomUUID()), 0);
  });

  test(`${name}: listUnrefunded lists jobs in the given statuses that paid and were never refunded, oldest change first`, async (t) => {
    const userId = await user();
    const time = era(1);
    // Created in a finished status, so a job's updatedAt is its createdAt.
    const owing = [
      await stored('cancelled', { userId, paidCoins: 3, createdAt: time(2) }),
      await stored('failed', { userId, paidCoins: 5, createdAt: time(1) }),
    ];
    const refunded = await stored('failed', { userId, paidCoins: 5, createdAt: time(3) });
    t.true(await jobs.markRefunded(refunded.id, 5, time(4)));
    await stored('failed', { userId, paidCoins: 0, createdAt: time(5) });
    await stored('cancelled', { userId, paidCoins: 0, createdAt: time(6) });
    for (const status of ['queued', 'running', 'succeeded'] as const) await stored(status, { userId, paidCoins: 5, createdAt: time(7) });
    const listed = (await jobs.listUnrefunded(['failed', 'cancelled'], 100_000)).filter((job) => job.userId === userId);
    t.deepEqual(ids(listed), [owing[1]!.id, owing[0]!.id]);
    t.deepEqual(listed[0], owing[1]);
    t.deepEqual(ids((await jobs.listUnrefunded(['cancelled'], 100_000)).filter((job) => job.userId === userId)), [owing[0]!.id]);
  });

  test(`${name}: listUnrefunded returns at most max`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const owing: string[] = [];
    for (let i = 0; i < 3; i++) {
      const job = newJob(userId, { status: 'failed', paidCoins: 2, createdAt: at(i * SECOND) });
      await own.jobs.create(job);
      owing.push(job.id);
    }
    t.deepEqual(ids(await own.jobs.listUnrefunded(['failed'], 2)), owing.slice(0, 2));
    t.deepEqual(ids(await own.jobs.listUnrefunded(['failed'], 10)), owing);
    t.deepEqual(ids(await own.jobs.listUnrefunded(['failed'], 0)), owing.slice(0, 1), 'a max below one reads one');
    t.deepEqual(ids(await own.jobs.listUnrefunded(['failed'], 2.5)), owing.slice(0, 2), 'a fractional max reads its whole part');
  });

  test(`${name}: listStalled lists running jobs whose lease ended before the given time, oldest lease first, at most max`, async (t) => {
    const time = era(2);
    const userId = await user();
    const cutoff = time(HOUR);
    const stalled = [
      await running(randomUUID(), { userId }, time(HOUR - 2 * SECOND)),
      await running(randomUUID(), { userId }, time(HOUR - 3 * SECOND)),
    ];
    await running(randomUUID(), { userId }, cutoff); // ends exactly then: not before it
    await running(randomUUID(), { userId }, time(2 * HOUR));
    await running(randomUUID(), { userId }, null);
    const finished = await running(randomUUID(), { userId }, time(1));
    t.true(await jobs.transition(finished.id, { to: 'succeeded' }, time(2)), 'a finished job keeps its old lease');
    await stored('queued', { userId });
    t.deepEqual(ids(await jobs.listStalled(cutoff, 100)), [stalled[1]!.id, stalled[0]!.id]);
    t.deepEqual(ids(await jobs.listStalled(cutoff, 1)), [stalled[1]!.id]);
    t.deepEqual(ids(await jobs.listStalled(cutoff, -3)), [stalled[1]!.id], 'a max below one reads one');
    t.deepEqual(ids(await jobs.listStalled(cutoff, 1.9)), [stalled[1]!.id], 'a fractional max reads its whole part');
    t.deepEqual(await jobs.listStalled(time(0), 100), []);
  });

  test(`${name}: listPastStartDeadline lists queued jobs whose start deadline is at or before the given time, earliest first, at most max`, async (t) => {
    const time = era(7);
    const userId = await user();
    const cutoff = time(HOUR);
    const overdue = [
      await stored('queued', { userId, startDeadline: time(HOUR - 2 * SECOND) }),
      await stored('queued', { userId, startDeadline: time(HOUR - 3 * SECOND) }),
      await stored('queued', { userId, startDeadline: cutoff }), // due exactly then: included
    ];
    await stored('queued', { userId, startDeadline: time(HOUR + 1) });
    await stored('queued', { userId, startDeadline: null });
    await running(randomUUID(), { userId, startDeadline: time(1) }); // started in time: never expires
    await stored('cancelled', { userId, startDeadline: time(1) });
    await stored('expired', { userId, startDeadline: time(2) });
    t.deepEqual(ids(await jobs.listPastStartDeadline(cutoff, 100)), [overdue[1]!.id, overdue[0]!.id, overdue[2]!.id]);
    t.deepEqual(ids(await jobs.listPastStartDeadline(cutoff, 1)), [overdue[1]!.id]);
    t.deepEqual(ids(await jobs.listPastStartDeadline(cutoff, 0)), [overdue[1]!.id], 'a max below one reads one');
    t.deepEqual(ids(await jobs.listPastStartDeadline(cutoff, 2.2)), [overdue[1]!.id, overdue[0]!.id], 'a fractional max reads its whole part');
    t.deepEqual(await jobs.listPastStartDeadline(time(0), 100), []);
    t.deepEqual((await jobs.findById(overdue[0]!.id))!.startDeadline, time(HOUR - 2 * SECOND));
  });

  test(`${name}: recentRunTimes gives the run times of the latest successes, of one template or of all, newest finish first, at most max`, async (t) => {
    // Later than every other test's jobs: the latest successes of all templates are this test's.
    const time = (ms: number) => new Date(Date.parse('2200-01-01T00:00:00.000Z') + ms);
    const userId = await user();
    const templateId = randomUUID();
    const other = randomUUID();
    /** A job that ran `ms` and finished at `end` seconds into the era, in `status`. */
    const ran = async (template: string | null, ms: number, end: number, status: JobStatus = 'succeeded') => {
      const job = await running(randomUUID(), { userId, templateId: template });
      const finishedAt = time(end * SECOND);
      t.true(await jobs.transition(job.id, { to: status, changes: { startedAt: new Date(finishedAt.getTime() - ms), finishedAt } }, finishedAt));
    };
    await ran(templateId, 4_000, 10);
    await ran(templateId, 6_500, 30);
    await ran(templateId, 2_250, 20);
    await ran(templateId, 99_000, 40, 'failed');
    await ran(other, 1_000, 50);
    await stored('queued', { userId, templateId });
    t.deepEqual(await jobs.recentRunTimes(templateId, 10), [6_500, 2_250, 4_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 2), [6_500, 2_250]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 0), [6_500], 'a max below one reads one');
    t.deepEqual(await jobs.recentRunTimes(templateId, 2.7), [6_500, 2_250], 'a fractional max reads its whole part');
    t.deepEqual(await jobs.recentRunTimes(randomUUID(), 10), []);
    t.deepEqual((await jobs.recentRunTimes(null, 2)), [1_000, 6_500], 'every template: the latest successes in the store');
  });

  test(`${name}: recentRunTimes with choices gives the successes that made them, among the template's last CHOICES_WINDOW`, async (t) => {
    // Earlier than the two eras around it: their every-template reads stay their own.
    const time = (ms: number) => new Date(Date.parse('2050-01-01T00:00:00.000Z') + ms);
    const userId = await user();
    const templateId = randomUUID();
    const [fast, slow] = [JSON.stringify({ quality: 'fast' }), JSON.stringify({ quality: 'slow' })];
    const ran = async (ms: number, end: number, fitChoices: string, server: number | null = null, status: JobStatus = 'succeeded') => {
      const job = await running(randomUUID(), { userId, templateId, fitChoices });
      const finishedAt = time(end * SECOND);
      const changes = { startedAt: new Date(finishedAt.getTime() - ms), finishedAt, ...(server === null ? {} : { engineServer: server }) };
      t.true(await jobs.transition(job.id, { to: status, changes }, finishedAt));
    };
    await ran(2_000, 10, fast, 1);
    await ran(20_000, 20, slow, 1);
    await ran(3_000, 30, fast, 2);
    await ran(21_000, 40, slow, 2);
    await ran(99_000, 50, fast, 1, 'failed');
    await ran(5_000, 60, '');
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, undefined, fast), [3_000, 2_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, undefined, slow), [21_000, 20_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 1, undefined, slow), [21_000], 'at most max');
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, [1], slow), [20_000], 'on those servers');
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, undefined, ''), [5_000], 'no choices is a choice of its own');
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, undefined, JSON.stringify({ quality: 'Fast' })), [], 'case counts');
    t.deepEqual(await jobs.recentRunTimes(templateId, 10), [5_000, 21_000, 3_000, 20_000, 2_000], 'without choices: every success');
    // Newer successes of slow push the fast ones out of the window, however few of them there are: with 201 successes
    // the window of 200 leaves out the first fast one; with 203, both fast ones (and the first slow one).
    for (let i = 0; i < CHOICES_WINDOW - 4; i++) await ran(20_000, 100 + i, slow);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, undefined, fast), [3_000], "the window: the template's last CHOICES_WINDOW successes");
    await ran(20_000, 400, slow);
    await ran(20_000, 401, slow);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, undefined, fast), []);
  });

  test(`${name}: recentRunTimes with servers gives only the successes one of those engine servers ran (engineServer, written when it ends)`, async (t) => {
    // Earlier than the test above's era (its every-template read must stay its own), later than the rest.
    const time = (ms: number) => new Date(Date.parse('2100-01-01T00:00:00.000Z') + ms);
    const userId = await user();
    const templateId = randomUUID();
    const ran = async (ms: number, end: number, server: number | null, status: JobStatus = 'succeeded') => {
      const job = await running(randomUUID(), { userId, templateId });
      const finishedAt = time(end * SECOND);
      const changes = { startedAt: new Date(finishedAt.getTime() - ms), finishedAt, ...(server === null ? {} : { engineServer: server }) };
      t.true(await jobs.transition(job.id, { to: status, changes }, finishedAt));
      return job.id;
    };
    const first = await ran(1_000, 10, 1);
    t.is((await jobs.findById(first))!.engineServer, 1);
    await ran(5_000, 20, 2);
    await ran(7_000, 30, 2);
    t.is((await jobs.findById(await ran(3_000, 40, null)))!.engineServer, null, 'the builtin engine, or before servers were recorded');
    await ran(99_000, 50, 1, 'failed');
    await ran(8_000, 60, 3);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, [2]), [7_000, 5_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, [1]), [1_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, [1, 2]), [7_000, 5_000, 1_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 1, [1, 2]), [7_000]);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, []), []);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10), [8_000, 3_000, 7_000, 5_000, 1_000], 'without servers: every success');
    // A running attempt records the server it was handed to (the engine's event); it counts nowhere until it succeeds.
    const busy = await running(randomUUID(), { userId, templateId });
    t.is(busy.engineServer, null);
    t.true(await jobs.updateRunning(busy.id, busy.runId!, { engineServer: 2 }, time(70 * SECOND)));
    t.is((await jobs.findById(busy.id))!.engineServer, 2);
    t.deepEqual(await jobs.recentRunTimes(templateId, 10, [2]), [7_000, 5_000]);
  });

  test(`${name}: runningWork gives each running job's template, engine server, start and retry time, earliest start first, at most max`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const [one, two] = [randomUUID(), randomUUID()];
    /** A job of `templateId` created at second 0, started at `startSecond` when given, on `server` when given. */
    const put = async (templateId: string | null, startSecond: number | null, server: number | null, end?: JobStatus): Promise<{ id: string; runId: string } | null> => {
      const job = newJob(userId, { templateId, createdAt: at(0) });
      t.true(await own.jobs.create(job));
      if (startSecond === null) return null;
      const runId = randomUUID();
      t.true(await own.jobs.transition(job.id, { to: 'running', runId, changes: { startedAt: at(startSecond * SECOND) } }, at(startSecond * SECOND)));
      if (server !== null) t.true(await own.jobs.updateRunning(job.id, runId, { engineServer: server }, at(startSecond * SECOND)));
      if (end) t.true(await own.jobs.transition(job.id, { to: end, fence: runId, changes: { finishedAt: at(99 * SECOND) } }, at(99 * SECOND)));
      return { id: job.id, runId };
    };
    const waiting = await put(one, 10, 2);
    await put(null, 5, null);
    await put(two, 7, 1, 'succeeded'); // ended: holds nothing
    await put(two, null, null); // queued
    // The job on server 2 waits out a retry delay until second 30.
    t.true(await own.jobs.updateRunning(waiting!.id, waiting!.runId, { retryAt: at(30 * SECOND) }, at(11 * SECOND)));
    t.deepEqual(await own.jobs.runningWork(10), [
      { templateId: null, fitChoices: '', engineServer: null, startedAt: at(5 * SECOND), retryAt: null },
      { templateId: one, fitChoices: '', engineServer: 2, startedAt: at(10 * SECOND), retryAt: at(30 * SECOND) },
    ]);
    t.deepEqual(await own.jobs.runningWork(1), [{ templateId: null, fitChoices: '', engineServer: null, startedAt: at(5 * SECOND), retryAt: null }]);
    t.deepEqual(await own.jobs.runningWork(0), await own.jobs.runningWork(1), 'a max below one reads one');
    t.deepEqual(await own.jobs.runningWork(1.5), await own.jobs.runningWork(1), 'a fractional max reads its whole part');
    t.deepEqual((await own.jobs.findById(waiting!.id))!.retryAt, at(30 * SECOND));
    // Its next attempt starts: no longer waiting.
    t.true(await own.jobs.transition(waiting!.id, { to: 'running', runId: randomUUID(), changes: { startedAt: at(30 * SECOND), retryAt: null } }, at(30 * SECOND)));
    t.deepEqual((await own.jobs.runningWork(10)).map((work) => work.retryAt), [null, null]);
    t.is((await own.jobs.findById(waiting!.id))!.retryAt, null);
  });

  test(`${name}: queuedAhead counts the queued jobs ahead per template, in arrival order or by stored turn (pinned by hand)`, async (t) => {
    // A store of the test's own. Each job's turn is what the submit gave it: 1 + its owner's queued and running jobs.
    const { repos: own } = await freshBackend(t, make);
    const time = (ms: number) => new Date(Date.parse('1980-01-01T00:00:00.000Z') + ms);
    const [a, b, c] = [await addUser(own.users), await addUser(own.users), await addUser(own.users)];
    const put = async (status: JobStatus, over: Partial<NewJob>): Promise<GenerationJob> => {
      const job = newJob(over.userId!, { status, ...over });
      if (!(await own.jobs.create(job))) throw new Error('job not created');
      return (await own.jobs.findById(job.id))!;
    };
    const [t1, t2] = [randomUUID(), randomUUID()].sort();
    await put('queued', { userId: a, templateId: t1, createdAt: time(1_000), queueTurn: 1 });
    await put('queued', { userId: b, templateId: t1, createdAt: time(2_000), queueTurn: 1 });
    await put('queued', { userId: b, templateId: null, createdAt: time(2_500), queueTurn: 2 });
    await put('queued', { userId: a, templateId: t2, createdAt: time(3_000), queueTurn: 2 });
    await put('cancelled', { userId: a, templateId: t2, createdAt: time(3_100), queueTurn: 3 }); // not queued: no place
    const started = await put('queued', { userId: a, templateId: t2, createdAt: time(3_200), queueTurn: 3 });
    t.true(await own.jobs.transition(started.id, { to: 'running', runId: randomUUID(), changes: { startedAt: time(3_300) } }, time(3_300)));
    const [first, second] = [randomUUID(), randomUUID()].sort();
    // Same instant, lower id; A's running job counted when it was sent: turn 4, behind B's third.
    await put('queued', { id: first, userId: a, templateId: t2, createdAt: time(4_000), queueTurn: 4 });
    const me = await put('queued', { id: second, userId: b, templateId: t1, createdAt: time(4_000), queueTurn: 3 });
    await put('queued', { userId: a, templateId: t1, createdAt: time(5_000), queueTurn: 5 });
    const late = await put('queued', { userId: c, templateId: t2, createdAt: time(6_000), queueTurn: 1 });

    t.deepEqual(await aheadOf(own, me, 'arrival'), [
      { templateId: null, fitChoices: '', count: 1 },
      { templateId: t1, fitChoices: '', count: 2 },
      { templateId: t2, fitChoices: '', count: 2 },
    ]);
    // Turn 1: A@1000, B@2000, C@6000; turn 2: B@2500, A@3000; turn 3: me. A@4000 (turn 4) comes after, lower id or not.
    t.deepEqual(await aheadOf(own, me, 'owner-turns'), [
      { templateId: null, fitChoices: '', count: 1 },
      { templateId: t1, fitChoices: '', count: 2 },
      { templateId: t2, fitChoices: '', count: 2 },
    ]);
    t.deepEqual(await aheadOf(own, late, 'arrival'), [
      { templateId: null, fitChoices: '', count: 1 },
      { templateId: t1, fitChoices: '', count: 4 },
      { templateId: t2, fitChoices: '', count: 2 },
    ]);
    t.deepEqual(await aheadOf(own, late, 'owner-turns'), [{ templateId: t1, fitChoices: '', count: 2 }], "C's first job waits only for the first jobs of A and B");
    for (const order of ['arrival', 'owner-turns'] as const) {
      t.deepEqual(await aheadOf(own, started, order), [], `${order}: a job no longer queued has no place`);
      t.deepEqual(await aheadOf(own, { id: randomUUID(), createdAt: time(0), queueTurn: 1 }, order), [], `${order}: an unknown job has none`);
    }
  });

  test(`${name}: queuedAhead for many jobs at once: one answer each, in the order asked, as when asked alone (pinned by hand)`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const time = (ms: number) => new Date(Date.parse('1980-01-01T00:00:00.000Z') + ms);
    const [a, b] = [await addUser(own.users), await addUser(own.users)];
    const template = randomUUID();
    const put = async (status: JobStatus, over: Partial<NewJob>): Promise<GenerationJob> => {
      const job = newJob(over.userId!, { status, ...over });
      if (!(await own.jobs.create(job))) throw new Error('job not created');
      return (await own.jobs.findById(job.id))!;
    };
    // Arrival: a1 (raw), b1, a2, b2, a3 (template); turns: a1 1, b1 1, a2 2, b2 2, a3 3. b2 has started.
    const a1 = await put('queued', { userId: a, templateId: null, createdAt: time(1_000), queueTurn: 1 });
    const a2 = await put('queued', { userId: a, templateId: template, createdAt: time(2_000), queueTurn: 2 });
    const b1 = await put('queued', { userId: b, templateId: template, createdAt: time(1_500), queueTurn: 1 });
    const b2 = await put('queued', { userId: b, templateId: template, createdAt: time(2_500), queueTurn: 2 });
    const a3 = await put('queued', { userId: a, templateId: template, createdAt: time(3_000), queueTurn: 3 });
    const late = await put('queued', { userId: b, templateId: null, createdAt: time(4_000), queueTurn: 1 });
    t.true(await own.jobs.transition(b2.id, { to: 'running', runId: randomUUID(), changes: { startedAt: time(5_000) } }, time(5_000)));
    const unknown = { id: randomUUID(), createdAt: time(3_500), queueTurn: 1 };
    const raw = (count: number) => ({ templateId: null, fitChoices: '', count });
    const made = (count: number) => ({ templateId: template, fitChoices: '', count });
    // Asked out of the queue's order, with a started and an unknown job among them, and one job twice.
    const asked = [a3, unknown, b2, a1, late, a2, b1, a3];
    t.deepEqual(await own.jobs.queuedAhead(asked, 'arrival'), [
      [raw(1), made(2)], // a3: a1, b1, a2 (b2 started)
      [],
      [],
      [],
      [raw(1), made(3)], // late: a1, b1, a2, a3
      [raw(1), made(1)], // a2: a1, b1
      [raw(1)], // b1: a1
      [raw(1), made(2)],
    ]);
    t.deepEqual(await own.jobs.queuedAhead(asked, 'owner-turns'), [
      [raw(2), made(2)], // a3 (turn 3): a1, b1, late (turn 1), a2
      [],
      [],
      [],
      [raw(1), made(1)], // late (turn 1, after b1): a1, b1
      [raw(2), made(1)], // a2 (turn 2): a1, b1, late
      [raw(1)],
      [raw(2), made(2)],
    ]);
    for (const order of ['arrival', 'owner-turns'] as const) {
      const each = [];
      for (const job of asked) each.push(await aheadOf(own, job, order));
      t.deepEqual(await own.jobs.queuedAhead(asked, order), each, `${order}: as when asked one by one`);
      t.deepEqual(await own.jobs.queuedAhead([], order), [], `${order}: none asked, none answered`);
    }
  });

  test(`${name}: queuedAhead for more jobs than one statement takes: every one answered`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const queued: GenerationJob[] = [];
    for (let i = 0; i < 131; i++) {
      const job = newJob(userId, { templateId: null, createdAt: new Date(Date.parse('1980-01-01T00:00:00.000Z') + i * 1_000), queueTurn: 1 });
      if (!(await own.jobs.create(job))) throw new Error('job not created');
      queued.push((await own.jobs.findById(job.id))!);
    }
    // Newest first, as a page lists them: the i-th asked has 130 - i jobs ahead.
    const answers = await own.jobs.queuedAhead([...queued].reverse(), 'arrival');
    t.is(answers.length, 131);
    t.deepEqual(answers.map((groups) => groups.reduce((sum, group) => sum + group.count, 0)), queued.map((_, i) => 130 - i));
  });

  test(`${name}: queuedAhead counts jobs of one template apart by their choices (case counts), and jobs keep their choices`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const time = (ms: number) => new Date(Date.parse('1980-01-01T00:00:00.000Z') + ms);
    const userId = await addUser(own.users);
    const template = randomUUID();
    const [lower, upper] = [JSON.stringify({ ckpt: 'flux.safetensors' }), JSON.stringify({ ckpt: 'Flux.safetensors' })];
    const sdxl = JSON.stringify({ ckpt: 'sdxl.safetensors' });
    const put = async (fitChoices: string, ms: number): Promise<GenerationJob> => {
      const job = newJob(userId, { templateId: template, fitChoices, createdAt: time(ms) });
      if (!(await own.jobs.create(job))) throw new Error('job not created');
      return (await own.jobs.findById(job.id))!;
    };
    const first = await put(sdxl, 1_000);
    t.is(first.fitChoices, sdxl, 'kept as written');
    await put(lower, 2_000);
    await put(sdxl, 3_000);
    await put(upper, 4_000);
    await put('', 5_000);
    const last = await put(lower, 6_000);
    for (const order of ['arrival', 'owner-turns'] as const) {
      const got = await aheadOf(own, last, order);
      t.deepEqual(
        [...got].sort((a, b) => (a.fitChoices < b.fitChoices ? -1 : 1)),
        [
          { templateId: template, fitChoices: '', count: 1 },
          { templateId: template, fitChoices: upper, count: 1 },
          { templateId: template, fitChoices: lower, count: 1 },
          { templateId: template, fitChoices: sdxl, count: 2 },
        ],
        order,
      );
    }
    t.true(await own.jobs.transition(first.id, { to: 'running', runId: randomUUID(), changes: { startedAt: time(7_000) } }, time(7_000)));
    t.deepEqual((await own.jobs.runningWork(10)).map((work) => work.fitChoices), [sdxl], 'a running job tells its choices too');
    t.is((await own.jobs.findSummaryForUser(last.id, userId))!.fitChoices, lower);
  });

  test(`${name}: announcePosition records a queued job's position once per change, and never for a job not queued`, async (t) => {
    const userId = await user();
    const job = await stored('queued', { userId });
    t.true(await jobs.announcePosition(job.id, 3));
    t.false(await jobs.announcePosition(job.id, 3), 'the same position again');
    t.true(await jobs.announcePosition(job.id, 2));
    t.true(await jobs.announcePosition(job.id, 0));
    t.false(await jobs.announcePosition(job.id, 0));
    const started = await running(randomUUID(), { userId });
    t.false(await jobs.announcePosition(started.id, 0));
    t.false(await jobs.announcePosition(randomUUID(), 0));
    t.deepEqual(await jobs.findById(job.id), job, 'the job itself is unchanged');
  });

  test(`${name}: create keeps its own copy of the job, and every read hands out a copy of its own`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const templateId = randomUUID();
    const given = newJob(userId, { templateId, testRun: true, status: 'failed', paidCoins: 2, progress: { value: 1, max: 4 }, createdAt: at(SECOND) });
    t.true(await own.jobs.create(given));
    const kept = created(structuredClone(given));
    // The caller goes on using its objects: the stored job must not follow.
    given.progress.value = 3;
    given.imageRefs.push({ key: 'image', id: randomUUID(), nodeId: '1', inputName: 'color' });
    given.workflow['1']!.inputs['width'] = 99;
    t.deepEqual(await own.jobs.findById(given.id), kept, 'create copies');
    /** Spoils what a read handed out; the stored job must stay as it was. */
    const spoil = (read: { progress: { value: number }; textOutputs: unknown[] } | null | undefined, what: string) => {
      if (!read) throw new Error(`${what} read nothing`);
      read.progress.value = 99;
      read.textOutputs.push({ nodeId: 'x', text: 'spoiled' });
    };
    spoil(await own.jobs.findById(given.id), 'findById');
    spoil(await own.jobs.findForUser(given.id, userId), 'findForUser');
    spoil(await own.jobs.findSummaryForUser(given.id, userId), 'findSummaryForUser');
    spoil((await own.jobs.listTestRuns(templateId, 10))[0], 'listTestRuns');
    spoil((await own.jobs.listByStatus(['failed'], { page: 1, limit: 10 })).items[0], 'listByStatus');
    spoil((await own.jobs.listUnrefunded(['failed'], 10))[0], 'listUnrefunded');
    const late = newJob(userId, { startDeadline: at(0) });
    const stalled = newJob(userId, { templateId: randomUUID() });
    for (const job of [late, stalled]) t.true(await own.jobs.create(job));
    t.true(await own.jobs.transition(stalled.id, { to: 'running', runId: randomUUID(), changes: { leaseUntil: at(0), retryAt: at(0) } }, at(0)));
    const [lateKept, stalledKept] = [await own.jobs.findById(late.id), await own.jobs.findById(stalled.id)];
    spoil((await own.jobs.listPastStartDeadline(at(SECOND), 10))[0], 'listPastStartDeadline');
    spoil((await own.jobs.listStalled(at(SECOND), 10))[0], 'listStalled');
    (await own.jobs.runningWork(10))[0]!.retryAt!.setTime(0);
    t.deepEqual([await own.jobs.findById(late.id), await own.jobs.findById(stalled.id)], [lateKept, stalledKept]);
    t.deepEqual(await own.jobs.findById(given.id), kept, 'the reads hand out copies');
  });

  test(`${name}: transition and updateRunning keep their own copy of the changes`, async (t) => {
    const runId = randomUUID();
    const job = await running(runId);
    const progress = { value: 2, max: 5 };
    const textOutputs = [{ nodeId: '9', text: 'first' }];
    t.true(await jobs.updateRunning(job.id, runId, { progress, textOutputs }, at(HOUR)));
    // The caller reuses its objects for the next update (or spoils them): what was stored stays.
    progress.value = 4;
    textOutputs.push({ nodeId: '9', text: 'second' });
    textOutputs[0]!.text = 'changed';
    const read = async () => ((job) => ({ progress: job.progress, textOutputs: job.textOutputs }))((await jobs.findById(job.id))!);
    t.deepEqual(await read(), { progress: { value: 2, max: 5 }, textOutputs: [{ nodeId: '9', text: 'first' }] });
    const end = { progress: { value: 5, max: 5 }, textOutputs: [{ nodeId: '9', text: 'done' }], error: { code: 'ENGINE.EXECUTION', message: 'node 9 failed' } };
    t.true(await jobs.transition(job.id, { to: 'failed', fence: runId, changes: end }, at(2 * HOUR)));
    end.progress.value = 0;
    end.textOutputs[0]!.text = 'changed';
    end.error.message = 'changed';
    t.deepEqual(await read(), { progress: { value: 5, max: 5 }, textOutputs: [{ nodeId: '9', text: 'done' }] });
    t.deepEqual((await jobs.findById(job.id))!.error, { code: 'ENGINE.EXECUTION', message: 'node 9 failed' });
  });

  test(`${name}: the lists break ties of time by id (as the SQL ORDER BY does), pinned by hand`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const templateId = randomUUID();
    /** Two jobs created at one instant, ids sorted, stored in the order given. */
    const pair = async (second: number, storeHigherFirst: boolean, over: Partial<NewJob> = {}) => {
      const [low, high] = [randomUUID(), randomUUID()].sort();
      for (const id of storeHigherFirst ? [high, low] : [low, high]) t.true(await own.jobs.create(newJob(userId, { id, createdAt: at(second * SECOND), ...over })));
      return [low!, high!] as const;
    };
    // For each order, one pair is stored against it, so insertion order alone never gives the list.
    const runs = await pair(1, false, { templateId, testRun: true });
    const b = await pair(2, false);
    const c = await pair(3, true);
    t.deepEqual(ids(await own.jobs.listTestRuns(templateId, 10)), [runs[1], runs[0]], 'test runs: newest first, then higher id');
    t.deepEqual(ids((await own.jobs.listForUser(userId, { page: 1, limit: 10 })).items), [c[1], c[0], b[1], b[0]], "a user's jobs: newest first, then higher id");
    t.deepEqual(ids((await own.jobs.listForUser(userId, { page: 2, limit: 3 })).items), [b[0]], 'and so is every page');
    const oldestFirst = [runs[0], runs[1], b[0], b[1], c[0], c[1]];
    t.deepEqual(ids(await own.jobs.listActiveForUser(userId)), oldestFirst, 'active jobs: oldest first, then lower id');
    t.deepEqual(ids((await own.jobs.listByStatus(['queued'], { page: 1, limit: 10 })).items), oldestFirst, 'by status: oldest first, then lower id');
  });

  test(`${name}: recentRunTimes and runningWork break ties of time by id, pinned by hand`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    /** A job of `templateId` started at `start` ms; when `end` is given, succeeded then. */
    const put = async (id: string, templateId: string, start: number, end?: number) => {
      t.true(await own.jobs.create(newJob(userId, { id, templateId, createdAt: at(0) })));
      const runId = randomUUID();
      t.true(await own.jobs.transition(id, { to: 'running', runId, changes: { startedAt: at(start) } }, at(start)));
      if (end !== undefined) t.true(await own.jobs.transition(id, { to: 'succeeded', fence: runId, changes: { finishedAt: at(end) } }, at(end)));
    };
    const [low, high] = [randomUUID(), randomUUID()].sort();
    const [first, second] = [randomUUID(), randomUUID()];
    // One start; the higher id is stored first, so insertion order never agrees.
    await put(high, second, SECOND);
    await put(low, first, SECOND);
    t.deepEqual((await own.jobs.runningWork(10)).map((work) => work.templateId), [first, second], 'same start: lower id first');
    const [a, b] = [randomUUID(), randomUUID()].sort();
    const template = randomUUID();
    // One finish, two run times: newest finish first, then the higher id.
    await put(a, template, 8 * SECOND, 10 * SECOND);
    await put(b, template, 7 * SECOND, 10 * SECOND);
    t.deepEqual(await own.jobs.recentRunTimes(template, 10), [3_000, 2_000]);
    t.deepEqual(await own.jobs.recentRunTimes(template, 1), [3_000]);
  });

  test(`${name}: listActiveForUser lists at most 100, the oldest`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const made: string[] = [];
    for (let i = 0; i < 101; i++) {
      const job = newJob(userId, { createdAt: at(i * SECOND) });
      t.true(await own.jobs.create(job));
      made.push(job.id);
    }
    t.deepEqual(ids(await own.jobs.listActiveForUser(userId)), made.slice(0, 100));
  });

  test(`${name}: countActiveForUserExclusively counts the user's queued and running jobs`, async (t) => {
    const [owner, other] = [await user(), await user()];
    await stored('queued', { userId: owner });
    await running(randomUUID(), { userId: owner });
    for (const status of ['succeeded', 'failed', 'cancelled', 'expired'] as const) await stored(status, { userId: owner });
    await stored('queued', { userId: other });
    t.is(await uow.run((tx) => tx.jobs.countActiveForUserExclusively(owner)), 2);
    t.is(await uow.run((tx) => tx.jobs.countActiveForUserExclusively(randomUUID())), 0);
  });

  test(`${name}: templateStats counts a job created at \`since\`, lists templates by id, and times only successes with both times`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const [low, high] = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    // The higher id first: the order of the list is the ids', not the store's.
    t.true(await own.jobs.create(newJob(userId, { templateId: high, createdAt: at(HOUR) })));
    // Stored succeeded without ever running (no start, no finish): a success, without a run time.
    t.true(await own.jobs.create(newJob(userId, { templateId: low, status: 'succeeded', createdAt: at(HOUR) })));
    t.deepEqual(await own.jobs.templateStats(at(HOUR)), [
      { templateId: low, jobs: 1, succeeded: 1, failed: 0, cancelled: 0, failureRate: 0, p50RunMs: null, p95RunMs: null },
      { templateId: high, jobs: 1, succeeded: 0, failed: 0, cancelled: 0, failureRate: null, p50RunMs: null, p95RunMs: null },
    ]);
    t.deepEqual(await own.jobs.templateStats(at(HOUR + 1)), []);
  });

  test(`${name}: runningWork gives a running job that never recorded a start its creation time`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    t.true(await own.jobs.create(newJob(userId, { status: 'running', createdAt: at(7 * SECOND) })));
    t.deepEqual(await own.jobs.runningWork(10), [{ templateId: null, fitChoices: '', engineServer: null, startedAt: at(7 * SECOND), retryAt: null }]);
  });

  test(`${name}: queuedAhead lists the groups of one template by their choices, pinned by hand`, async (t) => {
    const { repos: own } = await freshBackend(t, make);
    const userId = await addUser(own.users);
    const template = randomUUID();
    const [a, b] = [JSON.stringify({ q: 'a' }), JSON.stringify({ q: 'b' })];
    // In line: b, a, '' (the reverse of the answer's order), then the job asked about.
    for (const [i, fitChoices] of [b, a, ''].entries()) t.true(await own.jobs.create(newJob(userId, { templateId: template, fitChoices, createdAt: at(i * SECOND) })));
    const last = newJob(userId, { templateId: template, createdAt: at(9 * SECOND) });
    t.true(await own.jobs.create(last));
    const group = (fitChoices: string) => ({ templateId: template, fitChoices, count: 1 });
    for (const order of ['arrival', 'owner-turns'] as const) t.deepEqual(await aheadOf(own, last, order), [group(''), group(a), group(b)], order);
  });
}
