/**
 * A user's own deduction linked to a request (`relatedEntityId`) ends exactly one way: claimed by the
 * job it paid for, or refunded. The claim is a unique row, so two endings can never both happen.
 */
export interface DeductionClaims {
  /** False when the deduction already has an ending. Call inside the unit of work of the ending. */
  claim(deductionId: string, outcome: 'job' | 'refunded', jobId: string | null, at: Date): Promise<boolean>;
  /** User deductions with a relatedEntityId, made at or before `before`, with no ending yet. */
  listUnclaimed(before: Date, max: number): Promise<{ id: string; userId: string; amount: number; relatedEntityId: string }[]>;
  /** The user's unclaimed deduction for this related entity, if any. */
  findUnclaimed(userId: string, relatedEntityId: string): Promise<{ id: string; amount: number } | null>;
}
