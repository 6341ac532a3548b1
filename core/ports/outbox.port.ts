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

export interface Outbox {
  /** Inside a unit of work: commits or rolls back with it. */
  add(entry: OutboxEntry): Promise<void>;
  /** Oldest first, at most `max`, not yet published. */
  pending(max: number): Promise<OutboxEntry[]>;
  markPublished(id: string, at: Date): Promise<void>;
  /** Tells the relay (in this process) there is something to publish now, instead of at its next poll. */
  notify(): void;
  /** The relay's side of `notify()`: `listener` runs on each notification. Returns the unsubscribe function. */
  onNotify(listener: () => void): () => void;
  /** Deletes entries published before `before`; returns how many. */
  purgePublished(before: Date): Promise<number>;
}
