import { isFinished, type GenerationJob } from '../../domain/job.ts';
import { isUuid } from '../../domain/ids.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Transaction, UnitOfWork } from '../../ports/unit-of-work.port.ts';
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

/** The job id as stored (lower case), or null when it is not a UUID. */
export const jobIdOf = (jobId: string): string | null => (isUuid(jobId) ? jobId.toLowerCase() : null);

/**
 * The one way a job is cancelled, by its owner or by an administrator: cancelled, refunded, announced (and whatever
 * `alsoInTx` writes, such as an audit row) in one transaction, then the engine is interrupted.
 */
export async function cancelJob(
  deps: CancelGenerationDeps,
  job: GenerationJob,
  alsoInTx?: (tx: Transaction, cancelled: GenerationJob, refunded: number) => Promise<void>,
): Promise<Result<GenerationJob>> {
  if (isFinished(job.status)) return finished(job);
  const outcome = await deps.uow.run(async (tx) => {
    const ended = await deps.lifecycle.end(tx, job.id, { to: 'cancelled' });
    if (ended.ended) await alsoInTx?.(tx, ended.job, ended.refunded);
    return ended;
  });
  if (!outcome.ended) return finished(outcome.job);
  await deps.requestCancel(job.id).catch((error: unknown) => deps.logger.warn('cancel not broadcast', { jobId: job.id, error: String(error) }));
  return ok(outcome.job);
}

/** Cancels one of the caller's queued or running jobs. */
export class CancelGeneration {
  constructor(private readonly deps: CancelGenerationDeps) {}

  async execute(input: { userId: string; jobId: string }): Promise<Result<GenerationJob>> {
    const id = jobIdOf(input.jobId);
    const job = id ? await this.deps.jobs.findForUser(id, input.userId) : null;
    if (!job) return fail('NOT_FOUND', 'No such job');
    return cancelJob(this.deps, job);
  }
}
