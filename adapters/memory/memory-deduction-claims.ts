import type { DeductionClaims } from '../../core/ports/deduction-claims.port.ts';
import type { MemoryStore } from './memory-store.ts';

export class MemoryDeductionClaims implements DeductionClaims {
  private readonly claims: Map<string, { outcome: string; jobId: string | null }>;

  constructor(private readonly store: MemoryStore) {
    this.claims = store.table('deduction_claims');
  }

  async claim(deductionId: string, outcome: 'job' | 'refunded', jobId: string | null): Promise<boolean> {
    if (this.claims.has(deductionId)) return false;
    this.claims.set(deductionId, { outcome, jobId });
    return true;
  }

  private unclaimed() {
    return this.store.coinTransactions.filter(
      (t) => t.amount < 0 && (t.reason === 'image_generation' || t.reason === 'video_generation') && t.relatedEntityId !== null && !this.claims.has(t.id),
    );
  }

  async listUnclaimed(before: Date, max: number) {
    return this.unclaimed()
      .filter((t) => t.createdAt <= before)
      .slice(0, max)
      .map((t) => ({ id: t.id, userId: t.userId, amount: -t.amount, relatedEntityId: t.relatedEntityId! }));
  }

  async findUnclaimed(userId: string, relatedEntityId: string) {
    const found = this.unclaimed().find((t) => t.userId === userId && t.relatedEntityId === relatedEntityId);
    return found ? { id: found.id, amount: -found.amount } : null;
  }
}
