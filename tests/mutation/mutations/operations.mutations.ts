import type { Mutation } from '../mutation.ts';

/** Issue 22 (operators): the 404 fallback, the readiness checks, the probe listener, TRUST_PROXY and the worker's job log. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'web app: any GET asking for HTML falls back to index.html',
    file: 'adapters/http/web-app.ts',
    find: "if (!CLIENT_ROUTES.has(req.path) || !req.accepts('html')) return next();",
    replace: "if (!req.accepts('html')) return next();",
    tests: ['tests/integration/unknown-paths.test.ts'],
  },
  {
    name: 'readiness: no database check',
    file: 'bootstrap/modules/health.module.ts',
    find: "['database', 'queue', 'engine']",
    replace: "['queue', 'engine']",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'readiness: no queue check',
    file: 'bootstrap/modules/health.module.ts',
    find: "['database', 'queue', 'engine']",
    replace: "['database', 'engine']",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'readiness: no engine check in a worker',
    file: 'bootstrap/modules/health.module.ts',
    find: "['database', 'queue', 'engine']",
    replace: "['database', 'queue']",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'readiness: a failing check still answers 200',
    file: 'adapters/http/routes/health.routes.ts',
    find: 'statusCode: result.healthy ? 200 : 503',
    replace: 'statusCode: 200',
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'health port: serves every path as readiness',
    file: 'adapters/http/health-probe-server.ts',
    find: "if (req.method !== 'GET' || path !== PROBE_PATHS.ready) return",
    replace: "if (req.method !== 'GET') return",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'TRUST_PROXY: a bare number is not a hop count',
    file: 'bootstrap/config/network.ts',
    find: 'if (/^\\d+$/.test(value)) return { ok: true, value: Number(value) };',
    replace: '',
    tests: ['tests/unit/trust-proxy-config.test.ts'],
  },
  {
    name: 'TRUST_PROXY: true and false not read as booleans',
    file: 'bootstrap/config/network.ts',
    find: "if (lower === 'true' || lower === 'false') return { ok: true, value: lower === 'true' };",
    replace: '',
    tests: ['tests/unit/trust-proxy-config.test.ts'],
  },
  {
    name: 'TRUST_PROXY: not validated',
    file: 'bootstrap/config/network.ts',
    find: "express().set('trust proxy', value);",
    replace: '',
    tests: ['tests/unit/trust-proxy-config.test.ts'],
  },
  {
    name: 'TRUST_PROXY: not applied to the app',
    file: 'adapters/http/http-app.ts',
    find: "app.set('trust proxy', options.trustProxy ?? 'loopback');",
    replace: "app.set('trust proxy', 'loopback');",
    tests: ['tests/integration/trust-proxy.test.ts'],
  },
  {
    name: 'worker log: job end only at debug',
    file: 'core/use-cases/generation/run-generation.use-case.ts',
    find: "logger.info('job ended'",
    replace: "logger.debug('job ended'",
    tests: ['tests/integration/worker-logs.test.ts'],
  },
  {
    name: 'worker log: outcome not read from the job',
    file: 'core/use-cases/generation/run-generation.use-case.ts',
    find: "job && job.runId === attempt.runId ? job.status : 'lost'",
    replace: "'succeeded'",
    tests: ['tests/integration/worker-logs.test.ts'],
  },
];
