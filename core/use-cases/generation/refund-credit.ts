import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';

/**
 * Gives `amount` coins back to a user as a `generation_refund` ledger credit related to `relatedEntityId` (a
 * job, or the request a deduction was made for), inside the caller's transaction. A credit cannot be refused
 * (no balance guard); if the user is gone it throws, which rolls the caller's ending back.
 */
export async function creditRefund(tx: Transaction, ids: IdGenerator, credit: { userId: string; amount: number; relatedEntityId: string; at: Date }): Promise<void> {
  const applied = await tx.ledger.apply({
    id: ids.newId(),
    userId: credit.userId,
    amount: credit.amount,
    reason: 'generation_refund',
    relatedEntityId: credit.relatedEntityId,
    actorId: null,
    createdAt: credit.at,
  });
  if (!applied.ok) throw new Error(`refund of ${credit.amount} coins to ${credit.userId} (${credit.relatedEntityId}) failed: ${applied.reason}`);
}
