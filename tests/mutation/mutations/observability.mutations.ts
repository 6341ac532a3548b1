import type { Mutation } from '../mutation.ts';

const METRICS_TEST = 'tests/integration/metrics.test.ts';

export const MUTATIONS: Mutation[] = [
  {
    name: 'metrics token: any Bearer value accepted',
    file: 'adapters/http/metrics-route.ts',
    find: 'return match !== null && same;',
    replace: 'return match !== null;',
    tests: [METRICS_TEST],
  },
  {
    name: 'metrics token: no Authorization asked',
    file: 'adapters/http/metrics-route.ts',
    find: "if (endpoint.token !== null && !bearerMatches(req.get('authorization'), endpoint.token)) {",
    replace: 'if (false) {',
    tests: [METRICS_TEST],
  },
  {
    name: 'metrics token: the bare token accepted without the Bearer scheme',
    file: 'adapters/http/metrics-route.ts',
    find: 'const match = /^Bearer[ ]+(\\S+)\\s*$/i.exec(',
    replace: 'const match = /^(?:Bearer[ ]+)?(\\S+)\\s*$/i.exec(',
    tests: [METRICS_TEST],
  },
  {
    name: 'METRICS_PORT listener ignores METRICS_TOKEN',
    file: 'bootstrap/modules/metrics.module.ts',
    find: 'return metricsListener({ token, contentType',
    replace: 'return metricsListener({ token: null, contentType',
    tests: [METRICS_TEST],
  },
  {
    name: 'GET /metrics on the API port without METRICS_TOKEN (open to all)',
    file: 'bootstrap/app.ts',
    find: '...(metrics && metricsToken ? { metrics: { token: metricsToken,',
    replace: '...(metrics ? { metrics: { token: metricsToken!,',
    tests: [METRICS_TEST],
  },
  {
    name: 'metrics kept in a process that cannot be scraped (METRICS_TOKEN alone, no api role)',
    file: 'bootstrap/modules/metrics.module.ts',
    find: "(metrics.token !== null && config.roles.includes('api'))",
    replace: 'metrics.token !== null',
    tests: ['tests/unit/observability-config.test.ts'],
  },
  {
    name: 'a job charge counted before its transaction commits',
    file: 'core/use-cases/coins/job-payment.service.ts',
    find: 'tx.afterCommit(() => this.metrics.coinsCharged(due, chargeReason(job.outputType)));',
    replace: 'this.metrics.coinsCharged(due, chargeReason(job.outputType));',
    tests: ['tests/unit/job-metrics.test.ts'],
  },
  {
    name: 'a failed job refund counted under the wrong reason',
    file: 'core/use-cases/coins/job-payment.service.ts',
    find: "{ cancelled: 'job_cancelled', expired: 'job_expired', failed: 'job_failed' }",
    replace: "{ expired: 'job_expired', failed: 'job_failed' }",
    tests: ['tests/unit/job-metrics.test.ts'],
  },
  {
    name: 'refunds not counted',
    file: 'core/use-cases/coins/job-payment.service.ts',
    find: 'tx.afterCommit(() => this.metrics.coinsRefunded(amount, why));',
    replace: '',
    tests: [METRICS_TEST, 'tests/unit/job-metrics.test.ts'],
  },
  {
    name: 'queue wait observed on every attempt',
    file: 'core/use-cases/generation/job-lifecycle.service.ts',
    find: 'if (attempt === 1) this.metrics.queueWait(',
    replace: 'if (attempt >= 1) this.metrics.queueWait(',
    tests: ['tests/unit/job-metrics.test.ts'],
  },
  {
    name: 'database queue stats count a message a consumer holds as waiting',
    file: 'adapters/sequelize/sequelize-message-queue.ts',
    find: "(status = 'ready' AND (claim_token IS NULL OR visible_at <= :now))",
    replace: "(status = 'ready')",
    tests: ['tests/contract/message-queue.test.ts'],
  },
  {
    name: 'HTTP requests labelled by raw URL, not route pattern',
    file: 'adapters/http/http-app.ts',
    find: 'route: routeOf(req, res),',
    replace: "route: req.originalUrl.split('?')[0]!,",
    tests: [METRICS_TEST],
  },
];
