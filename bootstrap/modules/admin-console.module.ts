import type { Container } from 'inversify';
import { adminConsoleRoutes } from '../../adapters/http/routes/admin-console.routes.ts';
import { AdminCancelJob } from '../../core/use-cases/admin/admin-cancel-job.use-case.ts';
import { InspectQueue } from '../../core/use-cases/admin/inspect-queue.use-case.ts';
import { ListAllJobs } from '../../core/use-cases/admin/list-all-jobs.use-case.ts';
import { ListDeadLetters } from '../../core/use-cases/admin/list-dead-letters.use-case.ts';
import { TemplateHealth } from '../../core/use-cases/admin/template-health.use-case.ts';
import { SettleDeadLetter } from '../../core/use-cases/admin/settle-dead-letter.use-case.ts';
import { FleetStatus } from '../../core/use-cases/admin/fleet-status.use-case.ts';
import { BuiltinFleet } from '../../adapters/builtin-engine/builtin-fleet.ts';
import { ComfyFleet } from '../../adapters/comfyui/comfy-fleet.ts';
import type { EngineFleet } from '../../core/ports/engine-fleet.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';
import type { GenerationFeature } from './generation.module.ts';

/** The admin console's API (ADR 032): routes only; the cancel shares generation's lifecycle and job control. */
/**
 * COMFYUI_URLS asked directly (an API process without the worker role has no engine of its own); the builtin engine
 * only through its check, looked up on the first request.
 */
function fleetOf(config: Readonly<Config>, engine: () => WorkflowEngine): EngineFleet {
  const { engine: settings } = config;
  if (settings.driver === 'builtin') return new BuiltinFleet({ check: () => engine().check() });
  return new ComfyFleet({ urls: settings.urls, timeoutMs: settings.timeoutMs, ...(settings.token ? { token: settings.token } : {}) });
}

export function adminConsoleFeature(ports: FeaturePorts, config: Readonly<Config>, generation: () => GenerationFeature, engine: () => WorkflowEngine): Feature {
  return {
    exports: {},
    routes: forApi(config, () => {
      const { jobs, users, templates } = ports.repos();
      const queue = ports.queue();
      const logger = ports.logger().child({ component: 'admin-console' });
      const { lifecycle, control } = generation().exports;
      const common = { uow: ports.uow(), ids: ports.ids(), clock: ports.clock(), logger };
      return [
        adminConsoleRoutes({
          jobs: new ListAllJobs({ jobs, users }),
          cancel: new AdminCancelJob({ ...common, jobs, lifecycle, requestCancel: (jobId) => control.requestCancel(jobId) }),
          queue: new InspectQueue({ queue }),
          deadLetters: new ListDeadLetters({ queue }),
          settle: new SettleDeadLetter({ ...common, queue }),
          templateHealth: new TemplateHealth({ jobs, templates, clock: ports.clock() }),
          fleet: new FleetStatus({ fleet: fleetOf(config, engine), jobs }),
        }),
      ];
    }),
    scheduled: [],
  };
}

export function bindAdminConsole(container: Container, config: Readonly<Config>, generation: () => GenerationFeature): void {
  bindFeature(container, 'admin-console', (ports) => adminConsoleFeature(ports, config, generation, () => resolve(container, TOKENS.Engine)));
}
