import type { EngineFleet, EngineServerStatus } from '../../core/ports/engine-fleet.port.ts';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';

/** ENGINE_DRIVER=builtin: one entry, `builtin`, healthy when its check passes; no GPU, no models, no queue of its own. */
export class BuiltinFleet implements EngineFleet {
  constructor(private readonly engine: Pick<WorkflowEngine, 'check'>) {}

  async servers(): Promise<EngineServerStatus[]> {
    const base = { server: 1, name: 'builtin', running: null, waiting: null, version: null, devices: [], models: {} };
    try {
      await this.engine.check();
      return [{ ...base, healthy: true, error: null }];
    } catch (error) {
      return [{ ...base, healthy: false, error: (error as Error)?.message ?? String(error) }];
    }
  }
}
