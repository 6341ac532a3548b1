import type { CoinTransaction } from '../../domain/coin.ts';
import { chargeReason, claimableDeduction, refundOwed, settlement, type LinkedDeduction } from '../../domain/job-payment.ts';
import type { GenerationJob } from '../../domain/job.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import { NO_JOB_METRICS, type JobMetrics, type RefundReason } from '../../ports/metrics.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';

/** Why a finished job's refund is counted (metrics): by the status it ended in. */
const REFUND_REASONS: Partial<Record<GenerationJob['status'], RefundReason>> = { cancelled: 'job_cancelled', expired: 'job_expired', failed: 'job_failed' };

export interface JobPaymentDeps {
  ids: IdGenerator;
  /** Counts the coins charged and refunded once their transaction commits; none by default. */
  metrics?: JobMetrics;
}

export interface PayForJob {
  userId: string;
  jobId: string;
  /** The client's request id: a deduction linked to it pays first. */
  requestId: string | null;
  price: number;
  outputType: 'image' | 'video';
  at: Date;
}

/**
 * Every coin movement of a job, each inside the caller's transaction (the rules are in
 * `core/domain/job-payment.ts`). The guards that make each movement happen once are here, in one place:
 * a linked deduction ends once (`deductions.end` is conditional), a job is refunded once
 * (`jobs.markRefunded` is conditional), and no credit is written unless its guard let it through. A credit
 * that fails throws, which rolls the caller's whole change back.
 */
export class JobPayment {
  private readonly metrics: JobMetrics;

  constructor(private readonly deps: JobPaymentDeps) {
    this.metrics = deps.metrics ?? NO_JOB_METRICS;
  }

  /** After a user's own deduction, in its transaction: a claimable one is kept for the job that will claim it. */
  async recordDeduction(tx: Transaction, row: CoinTransaction): Promise<void> {
    const linked = claimableDeduction(row);
    if (linked) await tx.deductions.add(linked);
    if (row.amount < 0) tx.afterCommit(() => this.metrics.coinsCharged(-row.amount, row.reason));
  }

  /**
   * Pays for a new job in the transaction that creates it: claims the deduction linked to its request, charges
   * what is still due and gives back what was paid above the price. `insufficient` when the balance cannot
   * cover what is due (the caller rolls back, so the claim is undone too).
   */
  async payForJob(tx: Transaction, job: PayForJob): Promise<'paid' | 'insufficient'> {
    const linked = job.requestId ? await tx.deductions.findOpen(job.userId, job.requestId) : null;
    const linkedPaid = linked && (await tx.deductions.end(linked.id, 'job', job.jobId, job.at)) ? linked.amount : 0;
    const { due, excess } = settlement(job.price, linkedPaid);
    if (due > 0) {
      const charge = await tx.ledger.apply({ id: this.deps.ids.newId(), userId: job.userId, amount: -due, reason: chargeReason(job.outputType), relatedEntityId: job.jobId, actorId: job.userId, createdAt: job.at });
      if (!charge.ok) return 'insufficient';
      tx.afterCommit(() => this.metrics.coinsCharged(due, chargeReason(job.outputType)));
    }
    if (excess > 0) await this.credit(tx, job.userId, excess, job.jobId, job.at, 'overpaid');
    return 'paid';
  }

  /** A refused submit gives back the deduction linked to its request at once (the seed's client order loses nothing). */
  async releaseRequest(tx: Transaction, userId: string, requestId: string, at: Date): Promise<number> {
    const linked = await tx.deductions.findOpen(userId, requestId);
    return linked ? this.giveBack(tx, linked, at, 'request_refused') : 0;
  }

  /** A linked deduction no job claimed in time goes back; 0 when a claim or another refund ended it first. */
  refundDeduction(tx: Transaction, deduction: LinkedDeduction, at: Date): Promise<number> {
    return this.giveBack(tx, deduction, at, 'unclaimed_deduction');
  }

  private async giveBack(tx: Transaction, deduction: LinkedDeduction, at: Date, why: RefundReason): Promise<number> {
    if (!(await tx.deductions.end(deduction.id, 'refunded', null, at))) return 0;
    await this.credit(tx, deduction.userId, deduction.amount, deduction.relatedEntityId, at, why);
    return deduction.amount;
  }

  /** A finished job gives back what it owes (failed or cancelled: all it was paid), once; returns the coins. */
  async refundJob(tx: Transaction, job: GenerationJob, at: Date): Promise<number> {
    const owed = refundOwed(job);
    if (owed <= 0 || !(await tx.jobs.markRefunded(job.id, owed, at))) return 0;
    await this.credit(tx, job.userId, owed, job.id, at, REFUND_REASONS[job.status] ?? 'job_failed');
    return owed;
  }

  /** A `generation_refund` credit. It cannot be refused (no balance guard); if the user is gone it throws. */
  private async credit(tx: Transaction, userId: string, amount: number, relatedEntityId: string, at: Date, why: RefundReason): Promise<void> {
    const applied = await tx.ledger.apply({ id: this.deps.ids.newId(), userId, amount, reason: 'generation_refund', relatedEntityId, actorId: null, createdAt: at });
    if (!applied.ok) throw new Error(`refund of ${amount} coins to ${userId} (${relatedEntityId}) failed: ${applied.reason}`);
    tx.afterCommit(() => this.metrics.coinsRefunded(amount, why));
  }
}
