import type { Server } from 'node:http';
import type { Container } from 'inversify';
import { createHealthProbeServer } from '../../adapters/http/health-probe-server.ts';
import type { HealthChecks } from '../../adapters/http/routes/health.routes.ts';
import type { Config } from '../config.ts';
import { resolveAll, TOKENS } from '../tokens.ts';

/**
 * What readiness waits for (ADR 030): the database and the queue in every role; the engine check is bound only
 * where the worker role runs, and fails only when no engine server answers. Storage, cache and the event bus
 * stay in the full health answer: a process without them still serves most requests or runs most jobs.
 */
export const READINESS_CHECKS: readonly string[] = ['database', 'queue', 'engine'];

export function healthChecksOf(container: Container): { all: HealthChecks; readiness: HealthChecks } {
  const bindings = resolveAll(container, TOKENS.HealthCheck);
  return {
    all: Object.fromEntries(bindings.map((binding) => [binding.name, binding.check])),
    readiness: Object.fromEntries(bindings.filter((binding) => READINESS_CHECKS.includes(binding.name)).map((binding) => [binding.name, binding.check])),
  };
}

/**
 * HEALTH_PORT: a listener with only the live and ready probes, for processes without the HTTP API. Bound before
 * every other part, so it answers (not ready) while the queue connects and closes last.
 */
export function bindHealthProbes(container: Container, config: Readonly<Config>): void {
  const port = config.network.healthPort;
  if (port === null) return;
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => {
    let server: Server | null = null;
    return {
      name: 'health-probes',
      roles: ['api', 'worker'],
      async start() {
        const listening = createHealthProbeServer(healthChecksOf(container).readiness, config.network.healthCheckTimeoutMs);
        await new Promise<void>((resolve, reject) => {
          listening.once('error', reject);
          listening.listen(port, config.host, () => resolve());
        });
        server = listening;
      },
      async stop() {
        const closing = server;
        server = null;
        if (!closing) return;
        closing.closeAllConnections();
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      },
    };
  });
}
