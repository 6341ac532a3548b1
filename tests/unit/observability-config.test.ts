import 'reflect-metadata';
import test from 'ava';
import { Container } from 'inversify';
import { loadConfig } from '../../bootstrap/config.ts';
import { bindFeatures } from '../../bootstrap/modules/features.ts';
import { bindInfrastructure } from '../../bootstrap/modules/infrastructure.module.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { NO_JOB_METRICS } from '../../core/ports/metrics.port.ts';
import { silentLogger } from '../support/test-app.ts';

const base = { DATA_DIR: '/tmp/mgs-observability-config', JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-000' };

test('metrics are off by default; the listener host defaults to 127.0.0.1', (t) => {
  const loaded = loadConfig(base, { persistLocalSecret: false });
  if (!loaded.ok) return t.fail(loaded.problems.join('; '));
  t.deepEqual(loaded.config.observability, { metrics: { token: null, port: null, host: '127.0.0.1' } });
});

test('METRICS_TOKEN, METRICS_PORT and METRICS_HOST are read as given', (t) => {
  const loaded = loadConfig({ ...base, METRICS_TOKEN: 'a-token-of-twenty-chars', METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }, { persistLocalSecret: false });
  if (!loaded.ok) return t.fail(loaded.problems.join('; '));
  t.deepEqual(loaded.config.observability, { metrics: { token: 'a-token-of-twenty-chars', port: 9464, host: '0.0.0.0' } });
});

test('a short or spaced METRICS_TOKEN and a METRICS_PORT out of range are refused, all at once', (t) => {
  const short = loadConfig({ ...base, METRICS_TOKEN: 'fifteen-chars-x', METRICS_PORT: '70000' }, { persistLocalSecret: false });
  t.false(short.ok);
  t.deepEqual(!short.ok && short.problems, [
    'METRICS_TOKEN must be at least 16 characters without spaces',
    'METRICS_PORT must be an integer from 0 to 65535 (got "70000")',
  ]);
  const spaced = loadConfig({ ...base, METRICS_TOKEN: 'sixteen chars and more' }, { persistLocalSecret: false });
  t.deepEqual(!spaced.ok && spaced.problems, ['METRICS_TOKEN must be at least 16 characters without spaces']);
  t.true(loadConfig({ ...base, METRICS_TOKEN: 'sixteen-chars-xx' }, { persistLocalSecret: false }).ok, 'exactly 16 is enough');
});

test('metrics are kept only where they can be scraped: METRICS_PORT anywhere, METRICS_TOKEN alone only with the api role', (t) => {
  const kept = (env: Record<string, string>) => {
    const loaded = loadConfig({ ...base, ...env }, { persistLocalSecret: false });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const container = new Container({ defaultScope: 'Singleton' });
    bindInfrastructure(container, loaded.config, silentLogger);
    bindFeatures(container, loaded.config);
    const metrics = resolve(container, TOKENS.Metrics);
    t.is(resolve(container, TOKENS.JobMetrics), metrics ?? NO_JOB_METRICS);
    return metrics !== null;
  };
  t.false(kept({}));
  t.false(kept({ ROLES: 'worker', METRICS_TOKEN: 'sixteen-chars-xx' }));
  t.true(kept({ ROLES: 'api', METRICS_TOKEN: 'sixteen-chars-xx' }));
  t.true(kept({ ROLES: 'worker', METRICS_PORT: '0' }));
});
