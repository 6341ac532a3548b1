import { median, RUN_SAMPLE } from '../../domain/run-estimate.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { ServerSet } from './server-fit.service.ts';

/**
 * A job's past run times, in ms (see core/domain/run-estimate.ts): with choices among its template's enum parameters,
 * the recent runs of the template's jobs that made the same choices (on the servers it can run on, when those are
 * known); else its template's recent runs on the servers it can run on (when known), else its template's recent runs
 * on any server, else every template's; the first of these that is not empty. Its run estimate is their median.
 */
export class RunEstimates {
  constructor(private readonly jobs: Pick<JobRepository, 'recentRunTimes'>) {}

  /** The recent runs a job's estimates learn from (empty when no job has succeeded at all). */
  async runs(templateId: string | null, servers: ServerSet = null, fitChoices = ''): Promise<number[]> {
    if (templateId !== null && fitChoices !== '') {
      const chosen = await this.jobs.recentRunTimes(templateId, RUN_SAMPLE, servers ?? undefined, fitChoices);
      if (chosen.length > 0) return chosen;
    }
    if (templateId !== null && servers !== null) {
      const there = await this.jobs.recentRunTimes(templateId, RUN_SAMPLE, servers);
      if (there.length > 0) return there;
    }
    const own = templateId === null ? [] : await this.jobs.recentRunTimes(templateId, RUN_SAMPLE);
    return own.length > 0 ? own : this.jobs.recentRunTimes(null, RUN_SAMPLE);
  }

  /** A job's run estimate: the median of its recent runs, or null when none is known. */
  async runMs(templateId: string | null, servers: ServerSet = null, fitChoices = ''): Promise<number | null> {
    return median(await this.runs(templateId, servers, fitChoices));
  }
}

/**
 * Recent runs kept `ttlMs` per template, servers and choices: for the worker's `job.started` estimate, which would
 * otherwise read the run history before every start. An estimate a few seconds old is as good; the API's reads
 * (GET /generate, job.queue) use RunEstimates itself.
 */
export class RecentRunsCache implements Pick<RunEstimates, 'runs'> {
  private readonly kept = new Map<string, { until: number; runs: Promise<number[]> }>();

  constructor(
    private readonly estimates: Pick<RunEstimates, 'runs'>,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  runs(templateId: string | null, servers: ServerSet = null, fitChoices = ''): Promise<number[]> {
    const now = this.clock.now().getTime();
    const key = JSON.stringify([templateId, servers, fitChoices]);
    const hit = this.kept.get(key);
    if (hit && hit.until > now) return hit.runs;
    // Bounded: templates x server sets x choices is small, but never let it grow without end.
    if (this.kept.size >= 1000) this.kept.clear();
    const runs = this.estimates.runs(templateId, servers, fitChoices);
    this.kept.set(key, { until: now + this.ttlMs, runs });
    // A failed read is not kept.
    runs.catch(() => this.kept.get(key)?.runs === runs && this.kept.delete(key));
    return runs;
  }
}
