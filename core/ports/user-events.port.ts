import type { UserEvent } from '../domain/user-events.ts';

export type { UserEvent };

/**
 * Events for one user's clients. Each gets a per-user `seq` and is kept for replay, so a reconnecting
 * page misses nothing.
 */
export interface StoredUserEvent {
  userId: string;
  seq: number;
  event: UserEvent;
  createdAt: Date;
}

export interface UserEventStore {
  /** Assigns the next seq of this user and stores the event; through `tx.events`, with the change it reports. */
  append(userId: string, event: UserEvent, at: Date): Promise<StoredUserEvent>;
  /** Several events of one user at once, with consecutive seqs in the given order (one counter bump). */
  appendAll(userId: string, events: readonly UserEvent[], at: Date): Promise<StoredUserEvent[]>;
  /** In seq order, those with seq > since (at most `max`). */
  listSince(userId: string, since: number, max: number): Promise<StoredUserEvent[]>;
  /** Removes events older than `before`; returns how many. */
  purgeBefore(before: Date): Promise<number>;
}

/** Fan-out between processes: workers publish, every API instance receives. */
export interface EventBus {
  publish(channel: string, payload: unknown): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>>;
  /**
   * Optional, for buses that can lose messages while their connection is down (Redis, RabbitMQ): called each time
   * the subscription is live again after such a loss, so subscribers can catch up from where messages are stored.
   * Returns the function that stops the notifications.
   */
  onReconnect?(listener: () => void): () => void;
  close(): Promise<void>;
}

export const USER_EVENTS_CHANNEL = 'user-events';
export const JOB_CONTROL_CHANNEL = 'job-control';
/** `SessionRevoked` notices: every API instance closes the sockets opened with that session. */
export const SESSION_CHANNEL = 'sessions';

export interface SessionRevoked {
  type: 'session.revoked';
  userId: string;
  /** The login family every token of which is now invalid (every access token names its login: ADR 021). */
  sessionId: string;
}

/**
 * What PublishUserEvent puts on USER_EVENTS_CHANNEL. Plain JSON (the date is an ISO string) so a
 * cross-process bus (Redis, RabbitMQ) carries it unchanged.
 */
export interface UserEventEnvelope {
  userId: string;
  seq: number;
  event: UserEvent;
  createdAt: string;
}
