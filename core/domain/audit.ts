/** One administrator action, written in the same transaction as the change it describes. */
export const AUDIT_ACTIONS = [
  'coin.add',
  'coin.deduct',
  'job.cancel',
  'queue.redrive',
  'queue.discard',
  'api-key.create',
  'api-key.revoke',
  'template.create',
  'template.update',
  'template.deactivate',
  'template.activate',
  'template.parameter_map',
  'template.publish',
  'template.unpublish',
  'template.delete',
  'template.test_run',
  'user.password_reset_link',
  'user.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  id: string;
  actorId: string;
  action: AuditAction;
  targetUserId: string | null;
  /** Plain JSON values only: what changed (amount, reason, resulting balance, ledger row). */
  details: Record<string, unknown>;
  createdAt: Date;
}
