import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import type { OutgoingMessage } from '../../core/ports/queue.port.ts';
import type { MemoryStore } from './memory-store.ts';

interface OutboxRow {
  id: string;
  /** JSON text, so a caller mutating its message after add() changes nothing here. */
  message: string;
  createdAt: Date;
  publishedAt: Date | null;
  seq: number;
}

let sequence = 0;

/** The outbox in memory (no transaction to wait for: notifications go out at once). */
export class MemoryOutbox implements Outbox {
  private readonly rows: Map<string, OutboxRow>;
  private readonly listeners = new Set<() => void>();

  constructor(store: MemoryStore) {
    this.rows = store.table<OutboxRow>('outbox');
  }

  async add(entry: OutboxEntry): Promise<void> {
    if (this.rows.has(entry.id)) throw new Error(`outbox entry ${entry.id} already exists`);
    this.rows.set(entry.id, { id: entry.id, message: JSON.stringify(entry.message), createdAt: entry.createdAt, publishedAt: null, seq: (sequence += 1) });
    this.notify();
  }

  async pending(max: number): Promise<OutboxEntry[]> {
    return [...this.rows.values()]
      .filter((row) => row.publishedAt === null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.seq - b.seq)
      .slice(0, Math.max(0, max))
      .map((row) => ({ id: row.id, message: JSON.parse(row.message) as OutgoingMessage, createdAt: row.createdAt }));
  }

  async markPublished(id: string, at: Date): Promise<void> {
    const row = this.rows.get(id);
    if (row && row.publishedAt === null) row.publishedAt = at;
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

  onNotify(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
