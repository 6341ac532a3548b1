import type { DeductionEnding, LinkedDeduction } from '../domain/job-payment.ts';

/**
 * The deductions that jobs may claim (see `core/domain/job-payment.ts` for which ones), each with its one
 * ending. Which rows belong here and when they end is decided by the core; the store only keeps them and
 * guarantees that an ending is written once.
 */
export interface LinkedDeductions {
  /** Keeps a claimable deduction, open; call in the transaction of its ledger row. */
  add(deduction: LinkedDeduction): Promise<void>;
  /** Gives an open deduction its ending; false (and nothing written) when it already has one. */
  end(deductionId: string, ending: DeductionEnding, jobId: string | null, at: Date): Promise<boolean>;
  /** The user's oldest open deduction for this related entity, if any. */
  findOpen(userId: string, relatedEntityId: string): Promise<LinkedDeduction | null>;
  /** Open deductions made at or before `before`, oldest first, at most `max`. */
  listOpen(before: Date, max: number): Promise<LinkedDeduction[]>;
}
