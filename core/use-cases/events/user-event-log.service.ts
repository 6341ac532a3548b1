import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';
import { USER_EVENTS_CHANNEL, type EventBus, type StoredUserEvent, type UserEvent, type UserEventEnvelope } from '../../ports/user-events.port.ts';

export interface UserEventLogDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
}

export const envelopeOf = (stored: StoredUserEvent): UserEventEnvelope => ({
  userId: stored.userId,
  seq: stored.seq,
  event: stored.event,
  createdAt: stored.createdAt.toISOString(),
});

/**
 * How a user's events are produced: stored with the user's next `seq` in the transaction of the change
 * they report (an event exists exactly when its change does, so a rollback leaves no phantom), then fanned
 * out to every API instance once that transaction commits. A failed fan-out loses nothing: the socket's
 * `sync` replays the stored event.
 */
export class UserEventLog {
  constructor(private readonly deps: UserEventLogDeps) {}

  async record(tx: Transaction, userId: string, event: UserEvent): Promise<StoredUserEvent> {
    return (await this.recordAll(tx, userId, [event]))[0]!;
  }

  /** Several events of one user, with consecutive seqs, in this order. */
  async recordAll(tx: Transaction, userId: string, events: readonly UserEvent[]): Promise<StoredUserEvent[]> {
    const stored = await tx.events.appendAll(userId, events, this.deps.clock.now());
    tx.afterCommit(async () => {
      for (const one of stored) {
        await this.deps.bus.publish(USER_EVENTS_CHANNEL, envelopeOf(one)).catch((error: unknown) =>
          this.deps.logger.warn('event not fanned out (clients get it on sync)', { userId, seq: one.seq, type: one.event.type, error: String(error) }),
        );
      }
    });
    return stored;
  }
}
