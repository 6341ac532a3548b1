import { createServer, type Server } from 'node:http';
import type { Container } from 'inversify';
import { createMetricsApp, type MetricsEndpoint } from '../../adapters/http/metrics-route.ts';
import { PromMetrics } from '../../adapters/metrics/prom-metrics.ts';
import { TASK_TYPES } from '../../core/domain/messages.ts';
import { NO_JOB_METRICS } from '../../core/ports/metrics.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS, type LifecycleBinding } from '../tokens.ts';

/**
 * Metrics (ADR 029): a PromMetrics when METRICS_TOKEN or METRICS_PORT is set, else nothing at all (the use cases
 * get the no-op). Its gauges read the queue's stats and, where the worker role runs, the engine's servers at
 * scrape time. METRICS_PORT opens the separate listener in every process.
 */
export function bindMetrics(container: Container, config: Readonly<Config>): void {
  const { metrics } = config.observability;
  // The token alone exposes nothing in a process without the API server: no metrics are kept there.
  const enabled = metrics.port !== null || (metrics.token !== null && config.roles.includes('api'));
  container
    .bind(TOKENS.Metrics)
    .toDynamicValue(() => {
      if (!enabled) return null;
      const engine = () => resolve(container, TOKENS.Engine);
      return new PromMetrics(
        {
          queue: () => resolve(container, TOKENS.Queue).stats(config.appEnv, TASK_TYPES),
          ...(config.roles.includes('worker') ? { engine: async () => (await engine().servers?.()) ?? [] } : {}),
        },
        resolve(container, TOKENS.Logger).child({ component: 'metrics' }),
      );
    })
    .inSingletonScope();
  container.bind(TOKENS.JobMetrics).toDynamicValue(() => resolve(container, TOKENS.Metrics) ?? NO_JOB_METRICS);
  if (metrics.port !== null) {
    const { port, host, token } = metrics;
    container.bind(TOKENS.Lifecycle).toDynamicValue(() => {
      const prom = resolve(container, TOKENS.Metrics)!;
      return metricsListener({ token, contentType: prom.contentType, render: () => prom.render() }, { port, host }, resolve(container, TOKENS.Logger));
    });
  }
}

/** The METRICS_PORT listener: its own node:http server, so a worker without the API can be scraped. */
function metricsListener(endpoint: MetricsEndpoint, at: { port: number; host: string }, logger: Logger): LifecycleBinding {
  let server: Server | null = null;
  return {
    name: 'metrics-listener',
    roles: ['api', 'worker'],
    async start() {
      const listening = createServer(createMetricsApp(endpoint));
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(at.port, at.host, () => resolve());
      });
      server = listening;
      const address = listening.address();
      logger.info('metrics listening', { host: at.host, port: typeof address === 'object' && address ? address.port : at.port });
    },
    async stop() {
      const open = server;
      server = null;
      if (!open) return;
      open.closeAllConnections();
      await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}
