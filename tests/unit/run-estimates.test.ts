import test from 'ava';
import { median, queueFullRetryAfter } from '../../core/domain/run-estimate.ts';
import { RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';

/** Run times by template (null: every template), newest first, as the repository gives them. */
const history = (byTemplate: Record<string, number[]>, all: number[]) => ({
  recentRunTimes: async (templateId: string | null, max: number) => (templateId === null ? all : (byTemplate[templateId] ?? [])).slice(0, max),
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

test('Retry-After of a full queue: the head estimate in whole seconds rounded up, at least 1, 10 when unknown', (t) => {
  t.is(queueFullRetryAfter(7_200), 8);
  t.is(queueFullRetryAfter(8_000), 8);
  t.is(queueFullRetryAfter(20), 1);
  t.is(queueFullRetryAfter(null), 10);
});
