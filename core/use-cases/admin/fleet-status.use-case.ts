import { ok, type Result } from '../../domain/result.ts';
import type { EngineFleet, EngineServerStatus } from '../../ports/engine-fleet.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';

export interface FleetView {
  servers: EngineServerStatus[];
  /** Every worker's jobs, from the jobs table: which server runs which is the engine's business. */
  jobs: { queued: number; running: number };
}

/** The engine servers (health, their queues, VRAM, models) and how many jobs wait and run. */
export class FleetStatus {
  constructor(private readonly deps: { fleet: EngineFleet; jobs: JobRepository }) {}

  async execute(): Promise<Result<FleetView>> {
    const count = async (status: 'queued' | 'running') => (await this.deps.jobs.listByStatus([status], { page: 1, limit: 1 })).total;
    const [servers, queued, running] = await Promise.all([this.deps.fleet.servers(), count('queued'), count('running')]);
    return ok({ servers, jobs: { queued, running } });
  }
}
