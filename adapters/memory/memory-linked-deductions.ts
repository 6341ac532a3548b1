import type { DeductionEnding, LinkedDeduction } from '../../core/domain/job-payment.ts';
import type { LinkedDeductions } from '../../core/ports/linked-deductions.port.ts';
import { rowCount } from '../../core/domain/pagination.ts';
import type { MemoryStore } from './memory-store.ts';

interface Stored {
  deduction: LinkedDeduction;
  ending: { outcome: DeductionEnding; jobId: string | null; at: Date } | null;
}

export class MemoryLinkedDeductions implements LinkedDeductions {
  private readonly rows: Map<string, Stored>;

  constructor(store: MemoryStore) {
    this.rows = store.table('linked_deductions');
  }

  async add(deduction: LinkedDeduction): Promise<void> {
    if (this.rows.has(deduction.id)) throw new Error(`linked deduction ${deduction.id} is already stored`);
    this.rows.set(deduction.id, { deduction: { ...deduction }, ending: null });
  }

  async end(deductionId: string, outcome: DeductionEnding, jobId: string | null, at: Date): Promise<boolean> {
    const found = this.rows.get(deductionId);
    if (!found || found.ending) return false;
    this.rows.set(deductionId, { ...found, ending: { outcome, jobId, at } });
    return true;
  }

  private open(): LinkedDeduction[] {
    return [...this.rows.values()]
      .filter((row) => row.ending === null)
      .map((row) => ({ ...row.deduction }))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async findOpen(userId: string, relatedEntityId: string): Promise<LinkedDeduction | null> {
    return this.open().find((row) => row.userId === userId && row.relatedEntityId === relatedEntityId) ?? null;
  }

  async listOpen(before: Date, max: number): Promise<LinkedDeduction[]> {
    return this.open()
      .filter((row) => row.createdAt <= before)
      .slice(0, rowCount(max));
  }
}
