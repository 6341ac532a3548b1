import type { ClaimOutcome, IdempotencyClaim, IdempotencyRecord, IdempotencyStore, StoredResponse } from '../../core/ports/idempotency-store.port.ts';
import type { MemoryStore } from './memory-store.ts';

type Owner = Pick<IdempotencyClaim, 'userId' | 'key' | 'token'>;

const slot = (userId: string, key: string): string => `${userId}\u0000${key}`;
const copy = (record: IdempotencyRecord): IdempotencyRecord => structuredClone(record);

/** Every method is synchronous between awaits, so a check and its write cannot interleave. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records;

  constructor(store: MemoryStore) {
    this.records = store.table<IdempotencyRecord>('idempotency_keys');
  }

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const existing = this.records.get(slot(claim.userId, claim.key));
    if (existing) return { claimed: false, existing: copy(existing) };
    this.records.set(slot(claim.userId, claim.key), { ...claim, response: null, completedAt: null });
    return { claimed: true };
  }

  async find(userId: string, key: string): Promise<IdempotencyRecord | null> {
    const record = this.records.get(slot(userId, key));
    return record ? copy(record) : null;
  }

  async replace(seen: Pick<IdempotencyRecord, 'token' | 'completedAt'>, claim: IdempotencyClaim): Promise<boolean> {
    const existing = this.records.get(slot(claim.userId, claim.key));
    if (!existing || existing.token !== seen.token || (existing.completedAt === null) !== (seen.completedAt === null)) return false;
    this.records.set(slot(claim.userId, claim.key), { ...claim, response: null, completedAt: null });
    return true;
  }

  async complete(owner: Owner, response: StoredResponse, at: Date): Promise<boolean> {
    const record = this.mine(owner);
    if (!record) return false;
    record.response = structuredClone(response);
    record.completedAt = at;
    return true;
  }

  async release(owner: Owner): Promise<void> {
    if (this.mine(owner)) this.records.delete(slot(owner.userId, owner.key));
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [id, record] of this.records) {
      if (record.expiresAt.getTime() <= now.getTime()) {
        this.records.delete(id);
        purged++;
      }
    }
    return purged;
  }

  private mine(owner: Owner): IdempotencyRecord | null {
    const record = this.records.get(slot(owner.userId, owner.key));
    return record && record.token === owner.token && record.response === null ? record : null;
  }
}
