import type { GenerationJob } from '../../domain/job.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { EngineEvent } from '../../ports/workflow-engine.port.ts';
import type { UserEventLog } from '../events/user-event-log.service.ts';

export interface ProgressRelayDeps {
  uow: UnitOfWork;
  events: UserEventLog;
  clock: Clock;
  logger: Logger;
  /** Smallest gap between two progress events of one job, so a fast engine doesn't flood the store. */
  intervalMs: number;
}

/**
 * Relays a running attempt's engine events to the job row and its owner's sockets, in order and thinned
 * (the last step of each bar always goes through). Every write is fenced by the attempt's run id: an attempt
 * that lost the job reports nothing more. Engine callbacks are synchronous; `drain()` waits for the writes.
 */
export class ProgressRelay {
  private chain: Promise<unknown> = Promise.resolve();
  private last = -Infinity;

  constructor(
    private readonly deps: ProgressRelayDeps,
    private readonly job: GenerationJob,
    private readonly runId: string,
  ) {}

  readonly handle = (event: EngineEvent): void => {
    if (event.type === 'status') {
      void this.status(event.text);
      return;
    }
    if (event.type === 'server') {
      void this.server(event.server);
      return;
    }
    if (event.type !== 'progress') return;
    const now = this.deps.clock.now().getTime();
    if (event.value < event.max && now - this.last < this.deps.intervalMs) return;
    this.last = now;
    const { job, runId } = this;
    this.enqueue(async (tx) => {
      if (!(await tx.jobs.updateRunning(job.id, runId, { progress: { value: event.value, max: event.max } }, this.deps.clock.now()))) return;
      await this.deps.events.record(tx, job.userId, { type: 'job.progress', jobId: job.id, value: event.value, max: event.max, ...(event.nodeId ? { node: event.nodeId } : {}) });
    });
  };

  /** A status text on the job and its sockets (ordered with the progress events). */
  status(text: string): Promise<void> {
    const { job, runId } = this;
    return this.enqueue(async (tx) => {
      if (!(await tx.jobs.updateRunning(job.id, runId, { statusText: text }, this.deps.clock.now()))) return;
      await this.deps.events.record(tx, job.userId, { type: 'job.status', jobId: job.id, text });
    });
  }

  /** The engine server the attempt runs on, on the job only (operators' information, and its run estimate). */
  server(server: number): Promise<void> {
    const { job, runId } = this;
    return this.enqueue(async (tx) => void (await tx.jobs.updateRunning(job.id, runId, { engineServer: server }, this.deps.clock.now())));
  }

  async drain(): Promise<void> {
    await this.chain;
  }

  private enqueue(write: Parameters<UnitOfWork['run']>[0]): Promise<void> {
    const next = this.chain.then(() => this.deps.uow.run(write));
    // Progress is best effort: a failed write is logged and the job goes on.
    this.chain = next.catch((error: unknown) => this.deps.logger.warn('progress not recorded', { jobId: this.job.id, error: String(error) }));
    return this.chain.then(() => undefined);
  }
}
