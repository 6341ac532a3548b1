/**
 * What is left of a running job (ADR 051): learned from the recent runs that lasted longer than it has run so far, not
 * its median less the time run (which reads 0 for every job past the median); none once it has outlasted them all.
 * Pinned by hand.
 */
import test from 'ava';
import { remainingMs } from '../../core/domain/run-estimate.ts';
import { QueueEstimates } from '../../core/use-cases/generation/queue-estimates.service.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

/** A template whose quick runs take 2-3 s and slow ones 20-25 s (a step count or a size no enum tells apart). */
const RUNS = [2_000, 3_000, 20_000, 25_000];

test('remainingMs: the median of what was left of the runs that lasted longer', (t) => {
  t.is(remainingMs(RUNS, 0), 11_500, 'just started: the median run');
  t.is(remainingMs(RUNS, 1_000), 10_500, 'every run lasted longer: the median less the time run');
  t.is(remainingMs(RUNS, 5_000), 17_500, 'past the quick ones: one of the slow ones (15 or 20 s left), not 11.5 - 5');
  t.is(remainingMs(RUNS, 20_000), 5_000, 'a run that took exactly as long as this one has run is over: only the 25 s one is left');
  t.is(remainingMs(RUNS, 25_000), null, 'outlasted every run: no estimate, not "done now"');
  t.is(remainingMs(RUNS, 60_000), null);
  t.is(remainingMs(RUNS, -2_000), 11_500, 'started "in the future" (clocks apart): as just started');
  t.is(remainingMs([], 0), null, 'no runs known');
});

const jobs = (running: { startedAt: Date }[]) =>
  ({
    queuedAhead: async (jobs: readonly unknown[]) => jobs.map(() => []),
    runningWork: async () => running.map((job) => ({ templateId: 'X', fitChoices: '', engineServer: null, retryAt: null, ...job })),
  }) as unknown as ConstructorParameters<typeof QueueEstimates>[0]['jobs'];
const estimates = { runs: async () => RUNS };
const job = (status: 'queued' | 'running', startedAt: Date | null) => ({ id: 'j', status, templateId: 'X', fitChoices: '', createdAt: at(-100), startedAt, queueTurn: 1 });

test("a running job's ETA: what is left of the runs that lasted longer; null once it has outlasted them all", async (t) => {
  const queue = new QueueEstimates({ jobs: jobs([]), estimates, clock: { now: () => at(0) }, slots: 1, order: 'arrival' });
  t.deepEqual(await queue.of(job('running', at(0))), { position: null, etaSeconds: 12 }, '11.5 s');
  t.deepEqual(await queue.of(job('running', at(-5))), { position: null, etaSeconds: 18 }, '17.5 s, not 6.5');
  t.deepEqual(await queue.of(job('running', at(-21))), { position: null, etaSeconds: 4 });
  t.deepEqual(await queue.of(job('running', at(-30))), { position: null, etaSeconds: null }, 'past every run: unknown, not 0');
  t.deepEqual((await queue.ofMany([job('running', at(-30)), job('running', at(-5))])).map((one) => one.etaSeconds), [null, 18]);
});

test('a queued job waits for what is left of the running ones; one that outlasted its runs is taken to free its slot now', async (t) => {
  // One slot; the queued job's own estimate is 11.5 s.
  const behind = (startedAt: Date) => new QueueEstimates({ jobs: jobs([{ startedAt }]), estimates, clock: { now: () => at(0) }, slots: 1, order: 'arrival' });
  t.is((await behind(at(-5)).of(job('queued', null))).etaSeconds, 29, '17.5 + 11.5');
  t.is((await behind(at(-30)).of(job('queued', null))).etaSeconds, 12, '0 + 11.5');
  t.deepEqual((await behind(at(-5)).ofQueue([job('queued', null)])).map((one) => one.etaSeconds), [29]);
  t.deepEqual((await behind(at(-30)).ofQueue([job('queued', null)])).map((one) => one.etaSeconds), [12]);
});
