/**
 * The Prometheus registry's own guards (ADR 029): the label of a raw workflow, durations that cannot go negative,
 * and the gauges read from sources at scrape time (absent sources, a failing one, figures a source lacks, entries
 * that disappear, one read per scrape).
 */
import test from 'ava';
import { PromMetrics, type MetricsSources } from '../../adapters/metrics/prom-metrics.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { QueueStats } from '../../core/ports/queue.port.ts';

function metrics(sources: MetricsSources = {}) {
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (message: string) => void warnings.push(message), error() {}, child: () => logger };
  return { prom: new PromMetrics(sources, logger), warnings };
}

/** The `mediagen_*` sample lines of one scrape whose name starts with `prefix`. */
async function lines(prom: PromMetrics, prefix: string): Promise<string[]> {
  return (await prom.render()).split('\n').filter((line) => line.startsWith(prefix));
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

// Pins: a job run from a raw workflow (no template) counts under template="raw", next to the templates' series.
test('a job without a template counts under template="raw"', async (t) => {
  const { prom } = metrics();
  prom.jobSubmitted(null);
  prom.jobStarted(null);
  prom.jobEnded(null, 'succeeded');
  t.deepEqual(await lines(prom, 'mediagen_jobs_'), [
    'mediagen_jobs_submitted_total{template="raw"} 1',
    'mediagen_jobs_started_total{template="raw"} 1',
    'mediagen_jobs_ended_total{template="raw",outcome="succeeded"} 1',
  ]);
});

// Pins: a duration measured across clocks that disagree (a job created by another process) counts as 0, so the
// histograms' sums never go down (rate() over them would read nonsense).
test('negative durations are observed as 0', async (t) => {
  const { prom } = metrics();
  prom.queueWait(-5);
  prom.runTime(-2);
  prom.uploadTime(-1);
  t.deepEqual(await lines(prom, 'mediagen_job_queue_wait_seconds_sum'), ['mediagen_job_queue_wait_seconds_sum 0']);
  t.deepEqual(await lines(prom, 'mediagen_job_run_seconds_sum'), ['mediagen_job_run_seconds_sum 0']);
  t.deepEqual(await lines(prom, 'mediagen_job_upload_seconds_sum'), ['mediagen_job_upload_seconds_sum 0']);
});

// Pins: a process without the worker role has no engine (and one may have no queue source): its scrape works and
// lists no such gauges.
test('without sources there are no queue or engine gauges, and the scrape works', async (t) => {
  const { prom } = metrics();
  t.deepEqual(await lines(prom, 'mediagen_queue_waiting'), []);
  t.deepEqual(await lines(prom, 'mediagen_engine_'), []);
});

// Pins: a source that fails (the database away) leaves its gauges empty and is logged; the rest of the scrape is
// served, so a broken integration does not blind every other metric.
test('a failing source leaves its gauges empty and the scrape served', async (t) => {
  const { prom, warnings } = metrics({ queue: async () => Promise.reject(new Error('database away')) });
  prom.jobSubmitted('t1');
  t.deepEqual(await lines(prom, 'mediagen_queue_'), []);
  t.deepEqual(await lines(prom, 'mediagen_jobs_submitted_total'), ['mediagen_jobs_submitted_total{template="t1"} 1']);
  t.true(warnings.includes('metrics source failed'));
});

// Pins: the sources are read at each scrape, once for all their gauges (one stats query, not three); a figure an
// entry lacks (RabbitMQ cannot tell the oldest message's age) is left out rather than failing the scrape; an entry
// gone since the last scrape (a server removed) leaves no stale series behind.
test('queue gauges: one read per scrape, fresh each scrape, missing figures and gone entries left out', async (t) => {
  let reads = 0;
  let stats: QueueStats[] = [
    { taskType: 'generation', waiting: 3, oldestWaitingSeconds: 12, deadLetters: 1 },
    { taskType: 'publish', waiting: 1, deadLetters: 0 },
  ];
  const { prom } = metrics({ queue: async () => ((reads += 1), stats) });
  t.deepEqual(await lines(prom, 'mediagen_queue_'), [
    'mediagen_queue_waiting_messages{task_type="generation"} 3',
    'mediagen_queue_waiting_messages{task_type="publish"} 1',
    'mediagen_queue_oldest_waiting_seconds{task_type="generation"} 12',
    'mediagen_queue_dead_letters{task_type="generation"} 1',
    'mediagen_queue_dead_letters{task_type="publish"} 0',
  ]);
  t.is(reads, 1);
  await nextTick();
  stats = [{ taskType: 'generation', waiting: 0, oldestWaitingSeconds: 0, deadLetters: 1 }];
  t.deepEqual(await lines(prom, 'mediagen_queue_'), [
    'mediagen_queue_waiting_messages{task_type="generation"} 0',
    'mediagen_queue_oldest_waiting_seconds{task_type="generation"} 0',
    'mediagen_queue_dead_letters{task_type="generation"} 1',
  ]);
  t.is(reads, 2);
});
