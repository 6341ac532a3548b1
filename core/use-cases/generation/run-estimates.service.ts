import { median, RUN_SAMPLE } from '../../domain/run-estimate.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { ServerSet } from './server-fit.service.ts';

/**
 * A job's run estimate in ms (see core/domain/run-estimate.ts): with choices among its template's enum parameters, the
 * recent median of the template's jobs that made the same choices (on the servers it can run on, when those are known);
 * else its template's recent median on the servers it can run on (when known), else its template's recent median on
 * any server, else every template's, else null.
 */
export class RunEstimates {
  constructor(private readonly jobs: Pick<JobRepository, 'recentRunTimes'>) {}

  async runMs(templateId: string | null, servers: ServerSet = null, fitChoices = ''): Promise<number | null> {
    if (templateId !== null && fitChoices !== '') {
      const chosen = median(await this.jobs.recentRunTimes(templateId, RUN_SAMPLE, servers ?? undefined, fitChoices));
      if (chosen !== null) return chosen;
    }
    if (templateId !== null && servers !== null) {
      const there = median(await this.jobs.recentRunTimes(templateId, RUN_SAMPLE, servers));
      if (there !== null) return there;
    }
    const own = templateId === null ? null : median(await this.jobs.recentRunTimes(templateId, RUN_SAMPLE));
    return own ?? median(await this.jobs.recentRunTimes(null, RUN_SAMPLE));
  }
}
