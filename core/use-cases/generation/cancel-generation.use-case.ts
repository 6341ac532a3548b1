import { isFinished, type GenerationJob } from '../../domain/job.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { UserEventPublisher } from '../../ports/generation-sources.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import { refundJob, type RefundDeps } from './refunds.ts';

export interface CancelGenerationDeps extends RefundDeps {
  events: UserEventPublisher;
  logger: Logger;
  requestCancel(jobId: string): Promise<void>;
}

/** Cancels a queued or running job: the engine is interrupted and the payment comes back once. */
export class CancelGeneration {
  constructor(private readonly deps: CancelGenerationDeps) {}

  async execute(input: { userId: string; jobId: string }): Promise<Result<GenerationJob>> {
    const { jobs, clock } = this.deps;
    const job = await jobs.findForUser(input.jobId, input.userId);
    if (!job) return fail('NOT_FOUND', 'No such job');
    if (isFinished(job.status)) return fail('JOB.FINISHED', `The job already ${job.status === 'cancelled' ? 'was cancelled' : job.status}`);
    const at = clock.now();
    if (!(await jobs.transition(job.id, ['queued', 'running'], 'cancelled', { statusText: 'Cancelled', finishedAt: at }, at))) {
      const now = await jobs.findById(job.id);
      return fail('JOB.FINISHED', `The job already ${now?.status ?? 'finished'}`);
    }
    await this.deps.requestCancel(job.id).catch((error: unknown) => this.deps.logger.warn('cancel not broadcast', { jobId: job.id, error }));
    // The worker discards anything it stored after the cancel, so the job ends without outputs: refund.
    const refunded = await refundJob(this.deps, job.id);
    await this.deps.events
      .execute({ userId: job.userId, event: { type: 'job.cancelled', jobId: job.id, refunded } })
      .catch((error: unknown) => this.deps.logger.warn('event not published', { jobId: job.id, error }));
    const final = await jobs.findById(job.id);
    return ok(final!);
  }
}
