import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobLifecycle } from './job-lifecycle.service.ts';

export interface ExpireOverdueJobsDeps {
  uow: UnitOfWork;
  jobs: JobRepository;
  lifecycle: JobLifecycle;
  clock: Clock;
  logger: Logger;
}

/**
 * The sweep of jobs that sit in the queue past their start deadline (ADR 037): each ends expired and refunded.
 * A worker may take a listed job (or expire it at take) before the sweep gets to it: the guarded transition then
 * refuses and nothing is written, so a job is expired, and refunded, once.
 */
export class ExpireOverdueJobs {
  constructor(private readonly deps: ExpireOverdueJobsDeps) {}

  async execute(max = 200): Promise<number> {
    const { uow, jobs, lifecycle, clock, logger } = this.deps;
    let expired = 0;
    for (const job of await jobs.listPastStartDeadline(clock.now(), max)) {
      const outcome = await uow.run((tx) => lifecycle.end(tx, job.id, { to: 'expired' }));
      if (outcome.ended) expired += 1;
    }
    if (expired > 0) logger.info('queued jobs expired past their start deadline', { count: expired });
    return expired;
  }
}
