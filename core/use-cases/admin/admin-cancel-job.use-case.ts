import type { GenerationJob } from '../../domain/job.ts';
import { fail, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import { cancelJob, jobIdOf, type CancelGenerationDeps } from '../generation/cancel-generation.use-case.ts';

/**
 * An administrator cancels any user's queued or running job, by the owner's rules (same move, same refund, same
 * event to the owner, 409 once it ended), with an audit entry in the same transaction as the cancel.
 */
export class AdminCancelJob {
  constructor(private readonly deps: CancelGenerationDeps & { ids: IdGenerator; clock: Clock }) {}

  async execute(input: { actorId: string; jobId: string }): Promise<Result<GenerationJob>> {
    const id = jobIdOf(input.jobId);
    const job = id ? await this.deps.jobs.findById(id) : null;
    if (!job) return fail('NOT_FOUND', 'No such job');
    return cancelJob(this.deps, job, (tx, cancelled, refunded) =>
      tx.audit.record({
        id: this.deps.ids.newId(),
        actorId: input.actorId,
        action: 'job.cancel',
        targetUserId: cancelled.userId,
        details: { jobId: cancelled.id, refunded, templateId: cancelled.templateId },
        createdAt: this.deps.clock.now(),
      }),
    );
  }
}
