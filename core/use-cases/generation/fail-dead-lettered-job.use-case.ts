import { generationJobId } from '../../domain/messages.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { DeliveredMessage } from '../../ports/queue.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobLifecycle } from './job-lifecycle.service.ts';

export interface FailDeadLetteredJobDeps {
  uow: UnitOfWork;
  lifecycle: JobLifecycle;
  logger: Logger;
  /** Interrupts an attempt that may still be running somewhere (its results would be refused anyway). */
  requestCancel(jobId: string): Promise<void>;
}

/**
 * The queue's `onDeadLetter` for generation messages: a message that goes to the dead letters (its handler
 * gave up, or its consumers kept dying on it) ends its job as failed and refunds it, in one transaction,
 * before the message is moved; if that fails, the message comes back and this runs again. A job that already
 * ended is left as it is.
 */
export class FailDeadLetteredJob {
  constructor(private readonly deps: FailDeadLetteredJobDeps) {}

  async execute(message: DeliveredMessage, reason: string): Promise<void> {
    const jobId = generationJobId(message.body);
    if (!jobId) return;
    const error = { code: 'JOB.DEAD_LETTERED', message: `Gave up on this job: ${reason}` };
    const outcome = await this.deps.uow.run((tx) => this.deps.lifecycle.end(tx, jobId, { to: 'failed', error }));
    if (!outcome.ended) return;
    this.deps.logger.warn('dead-lettered job failed and refunded', { jobId, reason, refunded: outcome.refunded });
    await this.deps.requestCancel(jobId).catch((cause: unknown) => this.deps.logger.warn('cancel not broadcast', { jobId, error: String(cause) }));
  }
}
