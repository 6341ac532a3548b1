import type { GenerationJob } from '../../domain/job.ts';
import { serveOrder, type QueueOrder } from '../../domain/queue-order.ts';
import { median, remainingMs } from '../../domain/run-estimate.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository, QueuedAhead, RunningWork } from '../../ports/job-repository.port.ts';
import type { RunEstimates } from './run-estimates.service.ts';
import { compete, type ServerFit, type ServerSet } from './server-fit.service.ts';

export interface QueueEstimatesDeps {
  /** `runningWork`: the running jobs whose remaining work the queue waits for (optional: without it, none). */
  jobs: Pick<JobRepository, 'queuedAhead'> & Partial<Pick<JobRepository, 'runningWork'>>;
  estimates: Pick<RunEstimates, 'runs'>;
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

/** Running jobs read for an estimate, at most: more than any fleet's slots. */
export const RUNNING_READ = 500;

/**
 * When a job waiting behind `aheadMs` of work starts, on `slots` slots that are busy for `busyMs` more (one entry per
 * running job, in any order): the work ahead is poured over the slots as each frees ("water filling"): the start is the
 * level T at which the slots' free time up to T, the sum of max(0, T - busy), holds the work ahead. A free slot and
 * nothing ahead: 0. No running jobs: aheadMs / slots. More running jobs than slots: the ones that end first hold the
 * slots, the others' remaining work waits with the queue.
 */
export function startAfter(busyMs: readonly number[], slots: number, aheadMs: number): number {
  const k = Math.max(1, slots);
  const sorted = [...busyMs].sort((a, b) => a - b);
  // Busy times are never negative: the free slots (0) come first, then the running jobs' in order.
  const levels = [...new Array<number>(Math.max(0, k - sorted.length)).fill(0), ...sorted.slice(0, k)];
  let work = aheadMs + sorted.slice(k).reduce((sum, ms) => sum + ms, 0);
  // Fill the lowest slots up to the next one's level while the work lasts; what remains rises evenly over all.
  for (let i = 1; i < k; i++) {
    const raise = (levels[i]! - levels[i - 1]!) * i;
    if (work <= raise) return levels[i - 1]! + work / i;
    work -= raise;
  }
  return levels[k - 1]! + work / k;
}

/**
 * Where a job stands in the line and when it should be done (ADR 037), exactly as the OpenAPI document states:
 * queued: position = the queued jobs ahead in the queue's order (`QueueOrder`: owners in turn on the database queue,
 * arrival order on RabbitMQ and SQS) that compete for its servers (with `fit`: jobs whose templates can run on one of
 * the servers this job's template can run on; without it, or when either is not known, every job);
 * etaSeconds = ceil((start + own estimate) / 1000 ms), start = `startAfter` the running jobs that hold its slots (their
 * estimate minus the time they have run, at least 0) with the sum of the jobs' ahead run estimates, slots being its
 * servers' slots (with `fit`: those servers x slots per server, and the running jobs on them: handed to one of them,
 * or of a template that competes when the server is not known) or all of them;
 * a running job waiting out a retry delay (`retryAt`, until its next attempt starts) holds no slot, and its estimate joins
 * the work ahead when it is due before the job would start without it; running: position null, etaSeconds =
 * ceil(left / 1000 ms), left = the median of what was left of its recent runs that lasted longer than it has run so far
 * (`remainingMs`; while every one did: own estimate - time since it started), null once it has outlasted every one of
 * them; while it waits out a retry delay ceil((max(0, time until the retry) + own estimate) / 1000 ms); finished: both
 * null. A running job's left time is also what it holds its slot for (0 once it has outlasted its recent runs).
 * A job's recent runs (`RunEstimates.runs`) are its template's on the servers it can run on (with `fit`; a running job:
 * on the server it was handed to, `engineServer`), else on any server, else every template's; its run estimate is
 * their median.
 */
export class QueueEstimates {
  constructor(private readonly deps: QueueEstimatesDeps) {}

  async of(job: EstimatedJob): Promise<QueueEstimate> {
    return (await this.ofMany([job]))[0]!;
  }

  /**
   * The same numbers for several jobs at once (a page of the job list): the running jobs, each template's servers
   * and each estimate are read once for all of them, and so are the queued jobs ahead of each of its queued jobs.
   */
  async ofMany(jobs: readonly EstimatedJob[]): Promise<QueueEstimate[]> {
    const serversOf = this.serverSets();
    const runsOf = this.recentRuns(serversOf);
    // Read only when a queued job needs them.
    const queued = jobs.filter((job) => job.status === 'queued');
    const aheadOf = new Map<EstimatedJob, QueuedAhead[]>();
    let busy: ((servers: ServerSet) => Busy) | null = null;
    if (queued.length > 0) {
      const [ahead, busyNow] = await Promise.all([this.deps.jobs.queuedAhead(queued, this.deps.order), this.busyOn(serversOf, runsOf)]);
      queued.forEach((job, i) => aheadOf.set(job, ahead[i]!));
      busy = busyNow;
    }
    return Promise.all(jobs.map((job) => this.estimate(job, serversOf, runsOf, aheadOf.get(job) ?? [], busy)));
  }

  /** `ahead` and `busy`: the queued jobs ahead of `job` and the running work, read for every queued job at once (`ofMany`). */
  private async estimate(job: EstimatedJob, serversOf: ServersOf, runsOf: RunsOf, ahead: readonly QueuedAhead[], busy: ((servers: ServerSet) => Busy) | null): Promise<QueueEstimate> {
    if (job.status !== 'queued' && job.status !== 'running') return { position: null, etaSeconds: null };
    if (job.status === 'running') {
      // On the server it was handed to, when the engine told; else on the servers its template can run on.
      const runs = await runsOf(job.templateId, job.fitChoices, job.engineServer ? [job.engineServer] : undefined);
      const started = { startedAt: job.startedAt ?? job.createdAt, retryAt: job.retryAt ?? null };
      const left = leftOf(runs, started, this.deps.clock.now().getTime());
      return { position: null, etaSeconds: left === null ? null : Math.ceil(left / 1000) };
    }
    const own = median(await runsOf(job.templateId, job.fitChoices));
    const mine = await serversOf(job.templateId, job.fitChoices);
    let position = 0;
    let aheadMs: number | null = 0;
    for (const { templateId, fitChoices, count } of ahead) {
      if (!compete(mine, await serversOf(templateId, fitChoices))) continue;
      position += count;
      const each = median(await runsOf(templateId, fitChoices));
      aheadMs = aheadMs === null || each === null ? null : aheadMs + count * each;
    }
    // A queued job: ofMany read the running work.
    return { position, etaSeconds: this.queuedEta(aheadMs, own, mine, busy!(mine)) };
  }

  /**
   * What should be left of a job that starts now (the `etaSeconds` of its `job.started` event): the same number as a
   * running job's right after it started, before an engine server is known.
   */
  async atStart(job: EstimatedJob): Promise<number | null> {
    const now = this.deps.clock.now();
    return (await this.of({ ...job, status: 'running', startedAt: now, retryAt: null, engineServer: null })).etaSeconds;
  }

  /** The same numbers for a whole queue of queued jobs (any order given): position = the index in the queue's order. */
  async ofQueue(queue: readonly Pick<GenerationJob, 'id' | 'createdAt' | 'templateId' | 'queueTurn' | 'fitChoices'>[]): Promise<{ jobId: string; position: number; etaSeconds: number | null }[]> {
    const serversOf = this.serverSets();
    const runsOf = this.recentRuns(serversOf);
    const busy = await this.busyOn(serversOf, runsOf);
    const result: { jobId: string; position: number; etaSeconds: number | null }[] = [];
    // The jobs already placed, by the servers they can run on (a handful of distinct sets).
    const placed: { servers: ServerSet; count: number; ms: number | null }[] = [];
    for (const job of serveOrder(queue, this.deps.order)) {
      const [own, mine] = [median(await runsOf(job.templateId, job.fitChoices)), await serversOf(job.templateId, job.fitChoices)];
      let position = 0;
      let aheadMs: number | null = 0;
      for (const group of placed) {
        if (!compete(mine, group.servers)) continue;
        position += group.count;
        aheadMs = aheadMs === null || group.ms === null ? null : aheadMs + group.ms;
      }
      result.push({ jobId: job.id, position, etaSeconds: this.queuedEta(aheadMs, own, mine, busy(mine)) });
      let group = placed.find((one) => sameServers(one.servers, mine));
      if (!group) placed.push((group = { servers: mine, count: 0, ms: 0 }));
      group.count += 1;
      group.ms = group.ms === null || own === null ? null : group.ms + own;
    }
    return result;
  }

  private queuedEta(aheadMs: number | null, own: number | null, servers: ServerSet, busy: Busy): number | null {
    if (own === null || aheadMs === null) return null;
    const slots = servers !== null && this.deps.fit ? servers.length * this.deps.fit.slotsPerServer : this.deps.slots;
    // A job waiting out a retry delay is taken before the queue once it is due: its run counts ahead of this job when it
    // is due before this job would otherwise start.
    const before = startAfter(busy.busyMs, slots, aheadMs);
    const retried = busy.retrying.filter((job) => job.dueMs <= before).reduce((sum, job) => sum + job.ms, 0);
    return Math.ceil(((retried === 0 ? before : startAfter(busy.busyMs, slots, aheadMs + retried)) + own) / 1000);
  }

  /**
   * The running jobs, read once per call: for a set of servers, the remaining work (ms) of those that hold its slots,
   * and those waiting out a retry delay: when each is due and its run estimate (they hold no slot while they wait, and
   * are taken before the queue once due; see queuedEta). Without `fit`, every running job counts. A running
   * job that has outlasted its recent runs is taken to free its slot now. A running job without any recent runs can only
   * be one when no job has succeeded at all (the estimates fall back to every template's): the queued job's own estimate
   * is then unknown too, and so is its ETA, whatever this says.
   */
  private async busyOn(serversOf: ServersOf, runsOf: RunsOf): Promise<(servers: ServerSet) => Busy> {
    const running: RunningWork[] = (await this.deps.jobs.runningWork?.(RUNNING_READ)) ?? [];
    const now = this.deps.clock.now().getTime();
    const jobs = await Promise.all(
      running.map(async (job) => {
        const runs = await runsOf(job.templateId, job.fitChoices, job.engineServer ? [job.engineServer] : undefined);
        const dueMs = job.retryAt === null ? null : Math.max(0, job.retryAt.getTime() - now);
        return { dueMs, ms: (dueMs === null ? leftOf(runs, job, now) : median(runs)) ?? 0, server: job.engineServer, servers: await serversOf(job.templateId, job.fitChoices) };
      }),
    );
    return (mine) => {
      const holding = this.deps.fit ? jobs.filter((job) => (job.server ? mine === null || mine.includes(job.server) : compete(mine, job.servers))) : jobs;
      return {
        busyMs: holding.flatMap((job) => (job.dueMs === null ? [job.ms] : [])),
        retrying: holding.flatMap(({ dueMs, ms }) => (dueMs === null ? [] : [{ dueMs, ms }])),
      };
    };
  }

  /** The servers of each template and choices, each looked up once per call; null for all when servers are not told apart. */
  private serverSets(): ServersOf {
    const fit = this.deps.fit;
    if (!fit) return async () => null;
    // The promise is kept, so lookups made at once (one per running job) share one read.
    const known = new Map<string, Promise<ServerSet>>();
    return (templateId, fitChoices) => {
      const key = JSON.stringify([templateId, fitChoices]);
      if (!known.has(key)) known.set(key, fit.servers.of(templateId, fitChoices));
      return known.get(key)!;
    };
  }

  /** Recent runs by template, on the servers given or else those it can run on with its choices, each looked up once per call. */
  private recentRuns(serversOf: ServersOf): RunsOf {
    // The promise is kept, so lookups made at once (many running jobs of one template) share one read.
    const known = new Map<string, Promise<readonly number[]>>();
    return async (templateId, fitChoices, servers) => {
      const on = servers === undefined ? await serversOf(templateId, fitChoices) : servers;
      const key = JSON.stringify([templateId, fitChoices, on]);
      if (!known.has(key)) known.set(key, this.deps.estimates.runs(templateId, on, fitChoices));
      return known.get(key)!;
    };
  }
}

/** What an estimate needs of a job. */
export type EstimatedJob = Pick<GenerationJob, 'id' | 'status' | 'templateId' | 'createdAt' | 'startedAt' | 'queueTurn' | 'fitChoices'> & { engineServer?: number | null; retryAt?: Date | null };

/**
 * The running jobs on a set of servers: the time each holds its slot, and for those waiting out a retry delay, when
 * their next attempt is due and its run estimate (ms from now).
 */
interface Busy {
  busyMs: number[];
  retrying: { dueMs: number; ms: number }[];
}

/**
 * What is left of a running job (ms) whose recent runs are `runs`: what was left of those that lasted longer than it has
 * run (`remainingMs`; null once it has outlasted them all); while it waits out a retry delay (until its next attempt
 * starts, also when that is overdue), the rest of the wait and then a whole run (their median).
 */
function leftOf(runs: readonly number[], job: { startedAt: Date; retryAt: Date | null }, now: number): number | null {
  if (job.retryAt === null) return remainingMs(runs, now - job.startedAt.getTime());
  const own = median(runs);
  return own === null ? null : Math.max(0, job.retryAt.getTime() - now) + own;
}

/** A template's recent runs on `servers` (default: the servers a job of it with these choices can run on). */
type RunsOf = (templateId: string | null, fitChoices: string, servers?: ServerSet) => Promise<readonly number[]>;

/** The servers a job of this template with these choices can run on (ServerFit), or null. */
type ServersOf = (templateId: string | null, fitChoices: string) => Promise<ServerSet>;

const sameServers = (a: ServerSet, b: ServerSet): boolean => (a === null || b === null ? a === b : a.length === b.length && a.every((server, i) => server === b[i]));
