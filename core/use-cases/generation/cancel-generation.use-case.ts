import { isFinished, type GenerationJob } from '../../domain/job.ts';
import { isUuid } from '../../domain/ids.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobLifecycle } from './job-lifecycle.service.ts';

export interface CancelGenerationDeps {
  uow: UnitOfWork;
  jobs: JobRepository;
  lifecycle: JobLifecycle;
  logger: Logger;
  /** Interrupts the engine wherever the job runs (after the cancel committed). */
  requestCancel(jobId: string): Promise<void>;
}

const finished = (job: GenerationJob | null) => fail('JOB.FINISHED', `The job already ${job?.status === 'cancelled' ? 'was cancelled' : (job?.status ?? 'finished')}`);

/** Cancels a queued or running job: cancelled, refunded and announced in one transaction, then the engine is interrupted. */
export class CancelGeneration {
  constructor(private readonly deps: CancelGenerationDeps) {}

  async execute(input: { userId: string; jobId: string }): Promise<Result<GenerationJob>> {
    const id = isUuid(input.jobId) ? input.jobId.toLowerCase() : null;
    const job = id ? await this.deps.jobs.findForUser(id, input.userId) : null;
    if (!job) return fail('NOT_FOUND', 'No such job');
    if (isFinished(job.status)) return finished(job);
    const outcome = await this.deps.uow.run((tx) => this.deps.lifecycle.end(tx, job.id, { to: 'cancelled' }));
    if (!outcome.ended) return finished(outcome.job);
    await this.deps.requestCancel(job.id).catch((error: unknown) => this.deps.logger.warn('cancel not broadcast', { jobId: job.id, error: String(error) }));
    return ok(outcome.job);
  }
}
