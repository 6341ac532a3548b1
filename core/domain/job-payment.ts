import { USER_DEDUCTION_REASONS, type CoinTransaction } from './coin.ts';
import type { GenerationJob, JobStatus } from './job.ts';

/**
 * The rules of paying for a job, with no I/O. `core/use-cases/coins/job-payment.service.ts` applies them inside units
 * of work; adapters only store what it tells them.
 *
 * A job is paid one of two ways. Either the client deducted coins first (`POST /coin/deduct` with a
 * `relatedEntityId`, the seed's client order) and the job whose request id equals that id claims the
 * deduction; or `POST /generate` charges the price itself. A linked deduction ends exactly once: claimed by
 * its job, or refunded (at once when its submit is refused, or by the sweep when no job claimed it in time).
 * A job that ends without output gives back what it was paid, once.
 */

/** A deduction a job may claim: the user's own generation deduction that names the request it pays for. */
export interface LinkedDeduction {
  /** The id of its ledger row. */
  id: string;
  userId: string;
  relatedEntityId: string;
  /** Coins deducted (positive). */
  amount: number;
  createdAt: Date;
}

export type DeductionEnding = 'job' | 'refunded';

/**
 * The deduction a ledger row makes claimable, or null. Only a user's own deduction (the actor is the user)
 * with a generation reason and a related entity qualifies: a job's own charge, an administrator's change, a
 * refund or a bonus never does.
 */
export function claimableDeduction(row: Pick<CoinTransaction, 'id' | 'userId' | 'amount' | 'reason' | 'relatedEntityId' | 'actorId' | 'createdAt'>): LinkedDeduction | null {
  if (row.amount >= 0 || row.relatedEntityId === null || row.actorId !== row.userId) return null;
  if (!USER_DEDUCTION_REASONS.includes(row.reason)) return null;
  return { id: row.id, userId: row.userId, relatedEntityId: row.relatedEntityId, amount: -row.amount, createdAt: row.createdAt };
}

/** What a new job still owes after its linked deduction (`due`, charged now) and what it was overpaid (`excess`, given back now). */
export function settlement(price: number, linkedPaid: number): { due: number; excess: number } {
  return { due: Math.max(0, price - linkedPaid), excess: Math.max(0, linkedPaid - price) };
}

/** Reason of the charge for a job: video jobs are `video_generation`. */
export const chargeReason = (outputType: 'image' | 'video'): 'video_generation' | 'image_generation' =>
  outputType === 'video' ? 'video_generation' : 'image_generation';

/** The statuses of a job that ended without output: it gives its payment back. A succeeded one keeps it. */
export const REFUNDED_STATUSES: readonly JobStatus[] = ['failed', 'cancelled', 'expired'];

/** What a job still owes back: all it was paid, less what it already gave back, once it ended without output. */
export const refundOwed = (job: Pick<GenerationJob, 'status' | 'paidCoins' | 'refundedCoins'>): number =>
  REFUNDED_STATUSES.includes(job.status) ? Math.max(0, job.paidCoins - job.refundedCoins) : 0;
