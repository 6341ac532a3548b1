import test from 'ava';
import { DEFAULT_CHECK_TIMEOUT_MS, evaluateChecks, readinessAnswer } from '../../adapters/http/routes/health.routes.ts';
import { readNetwork } from '../../bootstrap/config/network.ts';
import { Reader } from '../../bootstrap/config/reader.ts';

const after = (ms: number, value?: Record<string, unknown>) => () => new Promise<void | Record<string, unknown>>((resolve) => setTimeout(() => resolve(value), ms));
const never = () => new Promise<void>(() => undefined);

test('each check answers ok (with what it found), its error message, or "timed out after" the timeout', async (t) => {
  const result = await evaluateChecks(
    {
      database: after(0),
      engine: after(0, { servers: [{ url: 'http://gpu-1', ok: true }] }),
      storage: async () => {
        throw new Error('bucket missing\n    at stack frame');
      },
      queue: never,
    },
    200,
  );
  t.deepEqual(result, {
    healthy: false,
    checks: { database: 'ok', engine: 'ok', storage: 'bucket missing', queue: 'timed out after 200 ms' },
    details: { engine: { servers: [{ url: 'http://gpu-1', ok: true }] } },
  });
  t.deepEqual(await evaluateChecks({ database: after(0) }, 200), { healthy: true, checks: { database: 'ok' }, details: {} });
});

test('the timeout is the one given: a check slower than it fails, one faster passes; readiness uses it too', async (t) => {
  t.deepEqual((await evaluateChecks({ slow: after(400) }, 100)).checks, { slow: 'timed out after 100 ms' });
  t.deepEqual((await evaluateChecks({ slow: after(100) }, 2000)).checks, { slow: 'ok' });
  t.deepEqual(await readinessAnswer({ queue: never }, 100), { statusCode: 503, body: { status: 'unready', checks: { queue: 'timed out after 100 ms' } } });
  t.is(DEFAULT_CHECK_TIMEOUT_MS, 3000);
});

test('HEALTH_CHECK_TIMEOUT_MS: 3000 by default, 100 to 60000', (t) => {
  const read = (value?: string) => {
    const reader = new Reader(value === undefined ? {} : { HEALTH_CHECK_TIMEOUT_MS: value });
    return { timeout: readNetwork(reader).healthCheckTimeoutMs, problems: reader.problems };
  };
  t.deepEqual(read(), { timeout: 3000, problems: [] });
  t.deepEqual(read('20000'), { timeout: 20_000, problems: [] });
  t.deepEqual(read('100'), { timeout: 100, problems: [] });
  t.deepEqual(read('99'), { timeout: 3000, problems: ['HEALTH_CHECK_TIMEOUT_MS must be an integer from 100 to 60000 (got "99")'] });
  t.deepEqual(read('60001').problems, ['HEALTH_CHECK_TIMEOUT_MS must be an integer from 100 to 60000 (got "60001")']);
});
