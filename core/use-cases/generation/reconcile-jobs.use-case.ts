import { REFUNDED_STATUSES } from '../../domain/job-payment.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { StagedOutputs } from '../../ports/staged-outputs.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobPayment } from '../coins/job-payment.service.ts';
import type { JobLifecycle } from './job-lifecycle.service.ts';

export interface ReconcileJobsDeps {
  uow: UnitOfWork;
  jobs: JobRepository;
  staged: StagedOutputs;
  storage: ObjectStorage;
  lifecycle: JobLifecycle;
  payment: JobPayment;
  clock: Clock;
  logger: Logger;
  /** A running job whose attempt's lease ended this long ago has no live claim: no delivery will finish it. */
  stalledAfterSeconds: number;
  /** Staged files of a lost attempt are deleted once this old (an upload still in flight finishes first). */
  orphanedAfterSeconds: number;
  batchSize?: number;
}

export interface ReconcileReport {
  refunded: string[];
  abandoned: string[];
  filesDeleted: number;
}

/**
 * Repairs what the transactions cannot reach, and says so in the log: a finished job that owes a refund it
 * never got (data from before the lifecycle was one transaction), a running job no attempt holds any more
 * (its message lost), and files staged by attempts that can no longer commit them. Every repair is a guarded
 * write, so reconcilers in several processes at once do each repair once.
 */
export class ReconcileJobs {
  constructor(private readonly deps: ReconcileJobsDeps) {}

  async execute(): Promise<ReconcileReport> {
    const { uow, jobs, lifecycle, payment, clock, logger } = this.deps;
    const max = this.deps.batchSize ?? 100;
    const report: ReconcileReport = { refunded: [], abandoned: [], filesDeleted: 0 };
    for (const owed of await jobs.listUnrefunded(REFUNDED_STATUSES, max)) {
      const refunded = await uow.run(async (tx) => {
        const job = await tx.jobs.findById(owed.id);
        return job ? payment.refundJob(tx, job, clock.now()) : 0;
      });
      if (refunded > 0) {
        report.refunded.push(owed.id);
        logger.warn('reconciler: refunded a finished job that had not been refunded', { jobId: owed.id, status: owed.status, refunded });
      }
    }
    const stalledBefore = new Date(clock.now().getTime() - this.deps.stalledAfterSeconds * 1000);
    for (const stalled of await jobs.listStalled(stalledBefore, max)) {
      const error = { code: 'JOB.ABANDONED', message: 'No worker holds this job any more (its queue message was lost)' };
      // Fenced by the run id seen: if an attempt took the job over meanwhile, this does nothing.
      const outcome = await uow.run((tx) => lifecycle.end(tx, stalled.id, { to: 'failed', error, ...(stalled.runId ? { fence: stalled.runId } : {}) }));
      if (outcome.ended) {
        report.abandoned.push(stalled.id);
        logger.warn('reconciler: failed and refunded a running job with no live claim', { jobId: stalled.id, leaseUntil: stalled.leaseUntil, refunded: outcome.refunded });
      }
    }
    report.filesDeleted = await this.deleteOrphans(max);
    return report;
  }

  /** One failing delete does not stop the others: its row stays, and the next round tries again. */
  private async deleteOrphans(max: number): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - this.deps.orphanedAfterSeconds * 1000);
    let deleted = 0;
    for (const entry of await this.deps.staged.listOrphaned(before, max)) {
      try {
        await this.deps.storage.delete(entry.storageKey);
        await this.deps.staged.remove([entry.storageKey]);
        deleted += 1;
      } catch (error) {
        this.deps.logger.warn('reconciler: orphaned output not deleted; will retry', { jobId: entry.jobId, key: entry.storageKey, error: String(error) });
      }
    }
    if (deleted > 0) this.deps.logger.warn('reconciler: deleted files of attempts that never committed them', { count: deleted });
    return deleted;
  }
}
