import type { StoredUserEvent, UserEvent, UserEventStore } from '../../core/ports/user-events.port.ts';
import type { MemoryStore } from './memory-store.ts';

interface UserLog {
  /** Last seq handed out; survives purges, like the counter row of the SQL store. */
  seq: number;
  /** In seq order. */
  events: StoredUserEvent[];
}

const copy = (stored: StoredUserEvent): StoredUserEvent => ({ ...stored, event: structuredClone(stored.event), createdAt: new Date(stored.createdAt) });

/** Synchronous inside append(), so concurrent appends can neither share nor skip a seq. */
export class MemoryUserEventStore implements UserEventStore {
  private readonly logs: Map<string, UserLog>;

  constructor(store: MemoryStore) {
    this.logs = store.table<UserLog>('user_events');
  }

  async append(userId: string, event: UserEvent, at: Date): Promise<StoredUserEvent> {
    return (await this.appendAll(userId, [event], at))[0]!;
  }

  async appendAll(userId: string, events: readonly UserEvent[], at: Date): Promise<StoredUserEvent[]> {
    let log = this.logs.get(userId);
    if (!log) {
      log = { seq: 0, events: [] };
      this.logs.set(userId, log);
    }
    const stored: StoredUserEvent[] = [];
    for (const event of events) {
      log.seq += 1;
      // A JSON round trip, like the SQL store's payload column: what is stored is what any reader gets.
      const one: StoredUserEvent = { userId, seq: log.seq, event: JSON.parse(JSON.stringify(event)) as UserEvent, createdAt: new Date(at) };
      log.events.push(one);
      stored.push(copy(one));
    }
    return stored;
  }

  async listSince(userId: string, since: number, max: number): Promise<StoredUserEvent[]> {
    const events = this.logs.get(userId)?.events ?? [];
    const start = events.findIndex((stored) => stored.seq > since);
    return start < 0 ? [] : events.slice(start, start + Math.max(0, max)).map(copy);
  }

  async purgeBefore(before: Date): Promise<number> {
    let removed = 0;
    for (const log of this.logs.values()) {
      const kept = log.events.filter((stored) => stored.createdAt.getTime() >= before.getTime());
      removed += log.events.length - kept.length;
      log.events = kept;
    }
    return removed;
  }
}
