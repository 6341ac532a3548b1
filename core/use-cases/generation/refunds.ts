import type { Clock } from '../../ports/clock.port.ts';
import type { CoinLedger } from '../../ports/coin-ledger.port.ts';
import type { DeductionClaims } from '../../ports/deduction-claims.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export interface RefundDeps {
  jobs: JobRepository;
  ledger: CoinLedger;
  claims: DeductionClaims;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
}

/**
 * Gives a job's payment back, exactly once: the conditional `markRefunded` and the ledger credit
 * commit together, so a second call (a redelivered failure, a cancel racing a failure) finds it done.
 * Returns the coins refunded by this call (0 when nothing was paid or it was already refunded).
 */
export async function refundJob(deps: RefundDeps, jobId: string): Promise<number> {
  return deps.uow.run(async () => {
    const job = await deps.jobs.findById(jobId);
    if (!job || job.paidCoins <= 0 || job.refundedCoins > 0) return 0;
    const at = deps.clock.now();
    if (!(await deps.jobs.markRefunded(jobId, job.paidCoins, at))) return 0;
    const credit = await deps.ledger.apply({
      id: deps.ids.newId(),
      userId: job.userId,
      amount: job.paidCoins,
      reason: 'generation_refund',
      relatedEntityId: jobId,
      actorId: null,
      createdAt: at,
    });
    if (!credit.ok) throw new Error(`refund of job ${jobId} failed: ${credit.reason}`);
    return job.paidCoins;
  });
}

/** Refunds a user's linked deduction that no job will claim (rejected request, or the sweeper). Once. */
export async function refundDeduction(
  deps: Omit<RefundDeps, 'jobs'>,
  deduction: { id: string; userId: string; amount: number; relatedEntityId: string },
): Promise<number> {
  return deps.uow.run(async () => {
    const at = deps.clock.now();
    if (!(await deps.claims.claim(deduction.id, 'refunded', null, at))) return 0;
    const credit = await deps.ledger.apply({
      id: deps.ids.newId(),
      userId: deduction.userId,
      amount: deduction.amount,
      reason: 'generation_refund',
      relatedEntityId: deduction.relatedEntityId,
      actorId: null,
      createdAt: at,
    });
    if (!credit.ok) throw new Error(`refund of deduction ${deduction.id} failed: ${credit.reason}`);
    return deduction.amount;
  });
}
