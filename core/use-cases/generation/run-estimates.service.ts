import { median, RUN_SAMPLE } from '../../domain/run-estimate.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';

/** A job's run estimate in ms (see core/domain/run-estimate.ts): its template's recent median, else every template's, else null. */
export class RunEstimates {
  constructor(private readonly jobs: Pick<JobRepository, 'recentRunTimes'>) {}

  async runMs(templateId: string | null): Promise<number | null> {
    const own = templateId === null ? null : median(await this.jobs.recentRunTimes(templateId, RUN_SAMPLE));
    return own ?? median(await this.jobs.recentRunTimes(null, RUN_SAMPLE));
  }
}
