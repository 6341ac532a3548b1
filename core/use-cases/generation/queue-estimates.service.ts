import type { GenerationJob } from '../../domain/job.ts';
import { serveOrder, type QueueOrder } from '../../domain/queue-order.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { RunEstimates } from './run-estimates.service.ts';

export interface QueueEstimatesDeps {
  jobs: Pick<JobRepository, 'queuedAhead'>;
  estimates: RunEstimates;
  clock: Clock;
  /** Jobs that run at once: ComfyUI servers x COMFYUI_JOBS_PER_SERVER, or WORKER_CONCURRENCY for the builtin engine. */
  slots: number;
  /** How the queue hands out jobs: `owner-turns` for the database queue, `arrival` for RabbitMQ and SQS (FIFO). */
  order: QueueOrder;
}

export interface QueueEstimate {
  /** Queued jobs ahead of this one (every user's, in the queue's order); null unless the job is queued. */
  position: number | null;
  /** Seconds until the job is estimated to finish; null when finished, or when no run time is known at all. */
  etaSeconds: number | null;
}

/**
 * Where a job stands in the line and when it should be done (ADR 037), exactly as the OpenAPI document states:
 * queued: position = the queued jobs ahead in the queue's order (`QueueOrder`: owners in turn on the database queue,
 * arrival order on RabbitMQ and SQS); etaSeconds = ceil((sum of their run estimates / slots + own estimate) / 1000 ms);
 * running: position null, etaSeconds = ceil(max(0, own estimate - time since it started) / 1000 ms); finished: both null.
 */
export class QueueEstimates {
  constructor(private readonly deps: QueueEstimatesDeps) {}

  async of(job: Pick<GenerationJob, 'id' | 'userId' | 'status' | 'templateId' | 'createdAt' | 'startedAt' | 'queueTurn'>): Promise<QueueEstimate> {
    if (job.status !== 'queued' && job.status !== 'running') return { position: null, etaSeconds: null };
    const runMs = this.runEstimates();
    const own = await runMs(job.templateId);
    if (job.status === 'running') {
      const elapsed = this.deps.clock.now().getTime() - (job.startedAt ?? job.createdAt).getTime();
      return { position: null, etaSeconds: own === null ? null : Math.ceil(Math.max(0, own - elapsed) / 1000) };
    }
    let position = 0;
    let aheadMs: number | null = 0;
    for (const { templateId, count } of await this.deps.jobs.queuedAhead(job, this.deps.order)) {
      position += count;
      const each = await runMs(templateId);
      aheadMs = aheadMs === null || each === null ? null : aheadMs + count * each;
    }
    return { position, etaSeconds: this.queuedEta(aheadMs, own) };
  }

  /** The same numbers for a whole queue of queued jobs (any order given): position = the index in the queue's order. */
  async ofQueue(queue: readonly Pick<GenerationJob, 'id' | 'userId' | 'createdAt' | 'templateId' | 'queueTurn'>[]): Promise<{ jobId: string; position: number; etaSeconds: number | null }[]> {
    const runMs = this.runEstimates();
    const result: { jobId: string; position: number; etaSeconds: number | null }[] = [];
    let aheadMs: number | null = 0;
    for (const [position, job] of serveOrder(queue, this.deps.order).entries()) {
      const own = await runMs(job.templateId);
      result.push({ jobId: job.id, position, etaSeconds: this.queuedEta(aheadMs, own) });
      aheadMs = aheadMs === null || own === null ? null : aheadMs + own;
    }
    return result;
  }

  private queuedEta(aheadMs: number | null, own: number | null): number | null {
    return own === null || aheadMs === null ? null : Math.ceil((aheadMs / Math.max(1, this.deps.slots) + own) / 1000);
  }

  /** Run estimates by template, each looked up once per call. */
  private runEstimates(): (templateId: string | null) => Promise<number | null> {
    const known = new Map<string | null, number | null>();
    return async (templateId) => {
      if (!known.has(templateId)) known.set(templateId, await this.deps.estimates.runMs(templateId));
      return known.get(templateId)!;
    };
  }
}
