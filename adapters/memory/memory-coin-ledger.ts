import type { CoinTransaction } from '../../core/domain/coin.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { CoinLedger, LedgerApplyResult, LedgerEntry } from '../../core/ports/coin-ledger.port.ts';
import type { MemoryStore } from './memory-store.ts';

/** Synchronous inside apply(), so concurrent calls cannot interleave between check and update. */
export class MemoryCoinLedger implements CoinLedger {
  constructor(private readonly store: MemoryStore) {}

  async apply(entry: LedgerEntry): Promise<LedgerApplyResult> {
    const user = this.store.users.get(entry.userId);
    if (!user) return { ok: false, reason: 'user_not_found' };
    if (user.coinBalance + entry.amount < 0) return { ok: false, reason: 'insufficient' };
    user.coinBalance += entry.amount;
    user.updatedAt = entry.createdAt;
    const transaction: CoinTransaction = {
      id: entry.id,
      userId: entry.userId,
      amount: entry.amount,
      reason: entry.reason,
      relatedEntityId: entry.relatedEntityId,
      balanceAfter: user.coinBalance,
      actorId: entry.actorId,
      createdAt: entry.createdAt,
    };
    this.store.coinTransactions.push(transaction);
    return { ok: true, transaction };
  }

  async list(userId: string, request: PageRequest): Promise<Page<CoinTransaction>> {
    const mine = this.store.coinTransactions.filter((t) => t.userId === userId).reverse();
    const start = offsetOf(request);
    return pageOf(mine.slice(start, start + request.limit), request, mine.length);
  }

  async findByRelatedEntity(userId: string, relatedEntityId: string): Promise<CoinTransaction[]> {
    return this.store.coinTransactions.filter((t) => t.userId === userId && t.relatedEntityId === relatedEntityId).map((t) => ({ ...t }));
  }

  async sum(userId: string): Promise<number> {
    return this.store.coinTransactions.filter((t) => t.userId === userId).reduce((total, t) => total + t.amount, 0);
  }
}
