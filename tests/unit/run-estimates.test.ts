import test from 'ava';
import { median, queueFullRetryAfter } from '../../core/domain/run-estimate.ts';
import { RecentRunsCache, RunEstimates } from '../../core/use-cases/generation/run-estimates.service.ts';

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

test('with choices among the template\'s enum parameters: the median of the jobs that made them first (on its servers when known), else as without', async (t) => {
  const slow = JSON.stringify({ quality: 'slow' });
  const asked: unknown[][] = [];
  const estimates = new RunEstimates({
    recentRunTimes: async (templateId: string | null, max: number, servers?: readonly number[], fitChoices?: string) => {
      asked.push([templateId, servers, fitChoices]);
      if (fitChoices === slow) return (servers?.includes(2) ? [40_000, 44_000] : [30_000, 34_000]).slice(0, max);
      if (fitChoices !== undefined) return [];
      return servers === undefined ? (templateId === null ? [700] : [2_000, 3_000, 30_000]) : [1_000];
    },
  });
  t.is(await estimates.runMs('a', null, slow), 32_000, 'its choices: 30 and 34 s, not the template\'s 3 s');
  t.is(await estimates.runMs('a', [2], slow), 42_000, 'its choices on its servers');
  t.is(await estimates.runMs('a', [1], JSON.stringify({ quality: 'fast' })), 1_000, 'choices never run: the template on its servers');
  t.is(await estimates.runMs('a', null, JSON.stringify({ quality: 'fast' })), 3_000, 'then the template anywhere');
  asked.length = 0;
  t.is(await estimates.runMs('a', [1], ''), 1_000, 'no choices: as before');
  t.deepEqual(asked, [['a', [1], undefined]], 'no choices: no read by choices');
  asked.length = 0;
  t.is(await estimates.runMs(null, null, slow), 700, 'a raw workflow has no template to choose in');
  t.deepEqual(asked, [[null, undefined, undefined]]);
});

test('Retry-After of a full queue: the head estimate in whole seconds rounded up, at least 1, 10 when unknown', (t) => {
  t.is(queueFullRetryAfter(7_200), 8);
  t.is(queueFullRetryAfter(8_000), 8);
  t.is(queueFullRetryAfter(20), 1);
  t.is(queueFullRetryAfter(null), 10);
});

test('RecentRunsCache: one read per template, servers and choices while it is fresh; read again once ttlMs passed; a failed read is not kept', async (t) => {
  let now = 1_000_000;
  const clock = { now: () => new Date(now) };
  const reads: string[] = [];
  let fail = false;
  const cache = new RecentRunsCache(
    {
      runs: async (templateId, servers = null, fitChoices = '') => {
        reads.push(`${templateId}|${servers?.join(',') ?? '-'}|${fitChoices}`);
        if (fail) throw new Error('database down');
        return [reads.length * 1_000];
      },
    },
    clock,
    5_000,
  );
  t.deepEqual(await cache.runs('a'), [1_000]);
  now += 4_999;
  t.deepEqual(await cache.runs('a'), [1_000], 'still fresh: not read again');
  t.deepEqual(await cache.runs('a', [1]), [2_000], 'other servers: their own read');
  t.deepEqual(await cache.runs('a', null, 'cfg=x'), [3_000], 'other choices: their own read');
  t.deepEqual(await cache.runs('b'), [4_000]);
  now += 1;
  t.deepEqual(await cache.runs('a'), [5_000], 'ttlMs passed: read again');
  now += 10_000;
  fail = true;
  await t.throwsAsync(cache.runs('a'), { message: 'database down' });
  fail = false;
  t.deepEqual(await cache.runs('a'), [7_000], 'the failed read was not kept');
  t.deepEqual(reads, ['a|-|', 'a|1|', 'a|-|cfg=x', 'b|-|', 'a|-|', 'a|-|', 'a|-|']);
});

test('RecentRunsCache: at 1,000 kept reads it starts again empty (it never grows without end)', async (t) => {
  let reads = 0;
  const cache = new RecentRunsCache({ runs: async () => [++reads] }, { now: () => new Date(0) }, 60_000);
  for (let i = 0; i < 1_000; i++) await cache.runs(`t${i}`);
  await cache.runs('t0');
  t.is(reads, 1_000, 'the 1,000 kept reads are all still there');
  await cache.runs('t1000');
  await cache.runs('t0');
  t.is(reads, 1_002, 'the 1,001st read emptied the cache: t0 is read again');
});
