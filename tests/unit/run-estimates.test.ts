import test from 'ava';
import { median, queueFullRetryAfter } from '../../core/domain/run-estimate.ts';
import { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';

/** Run times by template (null: every template), newest first, as the repository gives them; `onServer`: by template and server. */
const history = (byTemplate: Record<string, number[]>, all: number[], onServer: Record<string, Record<number, number[]>> = {}) => ({
  recentRunTimes: async (templateId: string | null, max: number, servers?: readonly number[]) =>
    (servers === undefined
      ? templateId === null ? all : (byTemplate[templateId] ?? [])
      : servers.flatMap((server) => onServer[templateId!]?.[server] ?? [])
    ).slice(0, max),
});

test('median: the middle value, the mean of the middle two, null for none', (t) => {
  t.is(median([9, 1, 5]), 5);
  t.is(median([4, 1, 10, 6]), 5);
  t.is(median([]), null);
});

test("a template's estimate is its own median; one without successes borrows every template's; none known is null", async (t) => {
  const estimates = new RunEstimates(history({ a: [3_000, 1_000, 2_000, 60_000] }, [500, 700, 900]));
  t.is(await estimates.runMs('a'), 2_500);
  t.is(await estimates.runMs('b'), 700);
  t.is(await estimates.runMs(null), 700);
  t.is(await new RunEstimates(history({}, [])).runMs('a'), null);
});

test("with the servers a template can run on: its median on those servers, else on any server, else every template's", async (t) => {
  // Template a: fast on server 1 (1-2 s), slow on server 2 (9-11 s); 5 s over every server (some ran before servers were recorded).
  const estimates = new RunEstimates(history({ a: [5_000, 1_000, 9_000, 5_000, 11_000] }, [700], { a: { 1: [1_000, 1_000, 2_000], 2: [9_000, 11_000] } }));
  t.is(await estimates.runMs('a', [2]), 10_000);
  t.is(await estimates.runMs('a', [1]), 1_000);
  t.is(await estimates.runMs('a', [1, 2]), 2_000, 'pooled over both: the median of 1, 1, 2, 9, 11 s');
  t.is(await estimates.runMs('a', [3]), 5_000, 'nothing on server 3 yet: its median on any server');
  t.is(await estimates.runMs('a', null), 5_000, 'servers unknown: on any server');
  t.is(await estimates.runMs('b', [2]), 700, 'a template without successes borrows every template\'s');
  t.is(await estimates.runMs(null, [2]), 700, 'a raw workflow too');
});

test('Retry-After of a full queue: the head estimate in whole seconds rounded up, at least 1, 10 when unknown', (t) => {
  t.is(queueFullRetryAfter(7_200), 8);
  t.is(queueFullRetryAfter(8_000), 8);
  t.is(queueFullRetryAfter(20), 1);
  t.is(queueFullRetryAfter(null), 10);
});
