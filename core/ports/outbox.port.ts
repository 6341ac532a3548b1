import type { OutgoingMessage } from './queue.port.ts';

/**
 * Messages that must follow a database change are written here in the same transaction and
 * published by a relay after commit, so a crash between the two loses nothing.
 */
export interface OutboxEntry {
  id: string;
  message: OutgoingMessage;
  createdAt: Date;
}

export interface OutboxLease {
  /** Fences this relay's marks: another relay that took an entry over can no longer be undone by this one. */
  token: string;
  until: Date;
}

/**
 * What a transaction sees of the outbox: `tx.outbox.add` makes the message exist only if that transaction
 * commits. Where the queue itself lives in the application database (QUEUE_DRIVER=db), the writer puts the
 * message straight on the queue in the same transaction; otherwise it writes an outbox row that a relay
 * publishes after the commit.
 */
export interface OutboxWriter {
  add(entry: OutboxEntry): Promise<void>;
}

/** The outbox table itself: the writer plus what relays need. */
export interface Outbox extends OutboxWriter {
  /**
   * Takes up to `max` unpublished entries, oldest first, that no other relay holds (or whose lease ended),
   * for this relay until `lease.until`. Two relays never publish one entry at the same time.
   */
  lease(max: number, lease: OutboxLease, now: Date): Promise<OutboxEntry[]>;
  /** Marks the entry published, only while this relay's lease on it holds; false otherwise. */
  markPublished(id: string, token: string, at: Date): Promise<boolean>;
  /** `listener` runs after each commit that added entries in this process. Returns the unsubscribe function. */
  onNotify(listener: () => void): () => void;
  /** Deletes entries published before `before`; returns how many. */
  purgePublished(before: Date): Promise<number>;
}
