import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { DeliveredMessage } from '../../ports/queue.port.ts';
import type { EngineSlot, WorkflowEngine } from '../../ports/workflow-engine.port.ts';

export interface EngineSlotWaitDeps {
  engine: WorkflowEngine;
  jobs: JobRepository;
  clock: Clock;
  logger: Logger;
  /** The queue's visibility timeout: the wait extends the message's every third of it. */
  visibilitySeconds: number;
  /** Registers an abort hook so a cancel request ends the wait. */
  onCancel(jobId: string, abort: () => void): () => void;
}

/**
 * A worker that takes more jobs than the engine has slots (COMFYUI_DISPATCH_LOOKAHEAD) lets each wait here for the
 * engine to give it one, before the job starts (ADR 044), so that the engine chooses among several which runs next.
 * The job stays `queued` meanwhile: its owner sees its position and ETA, a cancel (the job is already cancelled)
 * and its start deadline end the wait, and its queue message is kept invisible. Null when the engine keeps no
 * slots, when the job is not queued (a redelivery of a running job goes on as before), or when the wait ended
 * without a slot: the start then decides (ends it expired, finds it cancelled, or lets the run wait itself).
 */
export class EngineSlotWait {
  constructor(private readonly deps: EngineSlotWaitDeps) {}

  async wait(jobId: string, message: DeliveredMessage): Promise<EngineSlot | null> {
    const { engine, clock, logger, visibilitySeconds } = this.deps;
    if (!engine.reserve) return null;
    const job = await this.deps.jobs.findById(jobId);
    if (!job || job.status !== 'queued') return null;
    const controller = new AbortController();
    const unregister = this.deps.onCancel(jobId, () => controller.abort());
    const deadline = job.startDeadline ? setTimeout(() => controller.abort(), Math.max(0, job.startDeadline.getTime() - clock.now().getTime())) : null;
    const heartbeat = setInterval(() => {
      message.extendVisibility(visibilitySeconds).catch((error: unknown) => logger.warn('slot wait: queue visibility not extended', { jobId, error: String(error) }));
    }, (visibilitySeconds * 1000) / 3);
    try {
      return await engine.reserve({ jobId, userId: job.userId, workflow: job.workflow, signal: controller.signal });
    } finally {
      if (deadline) clearTimeout(deadline);
      clearInterval(heartbeat);
      unregister();
    }
  }
}
