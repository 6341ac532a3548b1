/** One administrator action, written in the same transaction as the change it describes. */
export type AuditAction = 'coin.add' | 'coin.deduct';

export interface AuditEntry {
  id: string;
  actorId: string;
  action: AuditAction;
  targetUserId: string | null;
  /** Plain JSON values only: what changed (amount, reason, resulting balance, ledger row). */
  details: Record<string, unknown>;
  createdAt: Date;
}
