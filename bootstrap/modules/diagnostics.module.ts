import type { Container } from 'inversify';
import { diagnosticsRoutes } from '../../adapters/http/routes/diagnostics.routes.ts';
import { PeekQueue } from '../../core/use-cases/diagnostics/peek-queue.use-case.ts';
import { ProbeCache } from '../../core/use-cases/diagnostics/probe-cache.use-case.ts';
import { ProbeStorage } from '../../core/use-cases/diagnostics/probe-storage.use-case.ts';
import { PublishTestMessage } from '../../core/use-cases/diagnostics/publish-test-message.use-case.ts';
import type { Config } from '../config.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

/** The /test/* diagnostics of API.md §10: routes only. */
export function diagnosticsFeature(ports: FeaturePorts, config: Readonly<Config>): Feature {
  return {
    exports: {},
    routes: forApi(config, () => {
      const queue = ports.queue();
      const probeDeps = { ids: ports.ids(), clock: ports.clock() };
      return [
        diagnosticsRoutes({
          peek: new PeekQueue({ queue }),
          publish: new PublishTestMessage({ queue, environment: config.appEnv }),
          storage: new ProbeStorage({ ...probeDeps, storage: ports.storage() }),
          cache: new ProbeCache({ ...probeDeps, cache: ports.cache() }),
          logger: ports.logger().child({ component: 'diagnostics' }),
        }),
      ];
    }),
    scheduled: [],
  };
}

/**
 * When the diagnostics are off (APP_ENV=production without ENABLE_TEST_ENDPOINTS=true, or
 * ENABLE_TEST_ENDPOINTS=false) the routes are not mounted at all: 404.
 */
export function bindDiagnostics(container: Container, config: Readonly<Config>): void {
  if (!config.enableTestEndpoints) return;
  bindFeature(container, 'diagnostics', (ports) => diagnosticsFeature(ports, config));
}
