import type { Outbox, OutboxEntry, OutboxLease } from '../../core/ports/outbox.port.ts';
import type { OutgoingMessage } from '../../core/ports/queue.port.ts';
import type { MemoryStore } from './memory-store.ts';

interface OutboxRow {
  id: string;
  /** JSON text, so a caller mutating its message after add() changes nothing here. */
  message: string;
  createdAt: Date;
  publishedAt: Date | null;
  leaseToken: string | null;
  leaseUntil: Date | null;
}

/** The relays of this process that want to hear of committed entries. */
export class MemoryOutboxSignal {
  private readonly listeners = new Set<() => void>();

  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // The relay's fallback poll still picks the entry up.
      }
    }
  }
}

const isFree = (row: OutboxRow, now: Date): boolean => row.publishedAt === null && (row.leaseUntil === null || row.leaseUntil <= now);

/** The outbox in memory: notifications go out after the adding transaction commits. */
export class MemoryOutbox implements Outbox {
  private readonly rows: Map<string, OutboxRow>;

  constructor(
    store: MemoryStore,
    private readonly signal: MemoryOutboxSignal,
    private readonly afterCommit: (hook: () => void) => void,
  ) {
    this.rows = store.table<OutboxRow>('outbox');
  }

  async add(entry: OutboxEntry): Promise<void> {
    if (this.rows.has(entry.id)) throw new Error(`outbox entry ${entry.id} already exists`);
    this.rows.set(entry.id, {
      id: entry.id,
      message: JSON.stringify(entry.message),
      createdAt: entry.createdAt,
      publishedAt: null,
      leaseToken: null,
      leaseUntil: null,
    });
    this.afterCommit(() => this.signal.notify());
  }

  async lease(max: number, lease: OutboxLease, now: Date): Promise<OutboxEntry[]> {
    const taken = [...this.rows.values()]
      .filter((row) => isFree(row, now))
      // As the SQL outbox: oldest first, entries of one instant by id.
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, Math.max(0, max));
    for (const row of taken) Object.assign(row, { leaseToken: lease.token, leaseUntil: lease.until });
    return taken.map((row) => ({ id: row.id, message: JSON.parse(row.message) as OutgoingMessage, createdAt: row.createdAt }));
  }

  async markPublished(id: string, token: string, at: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.publishedAt !== null || row.leaseToken !== token) return false;
    row.publishedAt = at;
    return true;
  }

  onNotify(listener: () => void): () => void {
    return this.signal.on(listener);
  }

  async purgePublished(before: Date): Promise<number> {
    let purged = 0;
    for (const [id, row] of this.rows) {
      if (row.publishedAt !== null && row.publishedAt < before) {
        this.rows.delete(id);
        purged += 1;
      }
    }
    return purged;
  }
}
