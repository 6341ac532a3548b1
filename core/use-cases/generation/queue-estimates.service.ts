import type { GenerationJob } from '../../domain/job.ts';
import { serveOrder, type QueueOrder } from '../../domain/queue-order.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { RunEstimates } from './run-estimates.service.ts';
import { compete, type ServerFit, type ServerSet } from './server-fit.service.ts';

export interface QueueEstimatesDeps {
  jobs: Pick<JobRepository, 'queuedAhead'>;
  estimates: RunEstimates;
  clock: Clock;
  /** Jobs that run at once: ComfyUI servers x COMFYUI_JOBS_PER_SERVER, or WORKER_CONCURRENCY for the builtin engine. */
  slots: number;
  /** How the queue hands out jobs: `owner-turns` for the database queue, `arrival` for RabbitMQ and SQS (FIFO). */
  order: QueueOrder;
  /**
   * With several engine servers that may not all run every template: which servers each template's jobs can run on.
   * A job then counts only the jobs ahead that compete for one of its servers, and shares those servers' slots.
   */
  fit?: { servers: ServerFit; slotsPerServer: number };
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
 * arrival order on RabbitMQ and SQS) that compete for its servers (with `fit`: jobs whose templates can run on one of
 * the servers this job's template can run on; without it, or when either is not known, every job);
 * etaSeconds = ceil((sum of their run estimates / slots + own estimate) / 1000 ms), slots being its servers' slots
 * (with `fit`: those servers x slots per server) or all of them;
 * running: position null, etaSeconds = ceil(max(0, own estimate - time since it started) / 1000 ms); finished: both null.
 * A job's run estimate (`RunEstimates`) is its template's recent median on the servers it can run on (with `fit`; a
 * running job: on the server it was handed to, `engineServer`), else on any server, else every template's.
 */
export class QueueEstimates {
  constructor(private readonly deps: QueueEstimatesDeps) {}

  async of(job: Pick<GenerationJob, 'id' | 'status' | 'templateId' | 'createdAt' | 'startedAt' | 'queueTurn'> & { engineServer?: number | null }): Promise<QueueEstimate> {
    if (job.status !== 'queued' && job.status !== 'running') return { position: null, etaSeconds: null };
    const serversOf = this.serverSets();
    const runMs = this.runEstimates(serversOf);
    if (job.status === 'running') {
      // On the server it was handed to, when the engine told; else on the servers its template can run on.
      const own = job.engineServer ? await this.deps.estimates.runMs(job.templateId, [job.engineServer]) : await runMs(job.templateId);
      const elapsed = this.deps.clock.now().getTime() - (job.startedAt ?? job.createdAt).getTime();
      return { position: null, etaSeconds: own === null ? null : Math.ceil(Math.max(0, own - elapsed) / 1000) };
    }
    const own = await runMs(job.templateId);
    const mine = await serversOf(job.templateId);
    let position = 0;
    let aheadMs: number | null = 0;
    for (const { templateId, count } of await this.deps.jobs.queuedAhead(job, this.deps.order)) {
      if (!compete(mine, await serversOf(templateId))) continue;
      position += count;
      const each = await runMs(templateId);
      aheadMs = aheadMs === null || each === null ? null : aheadMs + count * each;
    }
    return { position, etaSeconds: this.queuedEta(aheadMs, own, mine) };
  }

  /** The same numbers for a whole queue of queued jobs (any order given): position = the index in the queue's order. */
  async ofQueue(queue: readonly Pick<GenerationJob, 'id' | 'createdAt' | 'templateId' | 'queueTurn'>[]): Promise<{ jobId: string; position: number; etaSeconds: number | null }[]> {
    const serversOf = this.serverSets();
    const runMs = this.runEstimates(serversOf);
    const result: { jobId: string; position: number; etaSeconds: number | null }[] = [];
    // The jobs already placed, by the servers they can run on (a handful of distinct sets).
    const placed: { servers: ServerSet; count: number; ms: number | null }[] = [];
    for (const job of serveOrder(queue, this.deps.order)) {
      const [own, mine] = [await runMs(job.templateId), await serversOf(job.templateId)];
      let position = 0;
      let aheadMs: number | null = 0;
      for (const group of placed) {
        if (!compete(mine, group.servers)) continue;
        position += group.count;
        aheadMs = aheadMs === null || group.ms === null ? null : aheadMs + group.ms;
      }
      result.push({ jobId: job.id, position, etaSeconds: this.queuedEta(aheadMs, own, mine) });
      let group = placed.find((one) => sameServers(one.servers, mine));
      if (!group) placed.push((group = { servers: mine, count: 0, ms: 0 }));
      group.count += 1;
      group.ms = group.ms === null || own === null ? null : group.ms + own;
    }
    return result;
  }

  private queuedEta(aheadMs: number | null, own: number | null, servers: ServerSet): number | null {
    const slots = servers !== null && this.deps.fit ? servers.length * this.deps.fit.slotsPerServer : this.deps.slots;
    return own === null || aheadMs === null ? null : Math.ceil((aheadMs / Math.max(1, slots) + own) / 1000);
  }

  /** The servers of each template, each looked up once per call; null for all when servers are not told apart. */
  private serverSets(): (templateId: string | null) => Promise<ServerSet> {
    const fit = this.deps.fit;
    if (!fit) return async () => null;
    const known = new Map<string | null, ServerSet>();
    return async (templateId) => {
      if (!known.has(templateId)) known.set(templateId, await fit.servers.of(templateId));
      return known.get(templateId)!;
    };
  }

  /** Run estimates by template, on the servers each can run on, each looked up once per call. */
  private runEstimates(serversOf: (templateId: string | null) => Promise<ServerSet>): (templateId: string | null) => Promise<number | null> {
    const known = new Map<string | null, number | null>();
    return async (templateId) => {
      if (!known.has(templateId)) known.set(templateId, await this.deps.estimates.runMs(templateId, await serversOf(templateId)));
      return known.get(templateId)!;
    };
  }
}

const sameServers = (a: ServerSet, b: ServerSet): boolean => (a === null || b === null ? a === b : a.length === b.length && a.every((server, i) => server === b[i]));
