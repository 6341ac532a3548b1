import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';
import { USER_EVENTS_CHANNEL, type EventBus, type StoredUserEvent, type UserEvent, type UserEventEnvelope } from '../../ports/user-events.port.ts';

export interface UserEventLogDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
}

/** Events one process holds for fan-out at most; a bus that stops answering must not grow the queue without bound. */
const MAX_PENDING_FAN_OUT = 10_000;

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
  /**
   * This process's fan-out, in commit order. The committing caller does not wait for it (over a broker each
   * publish waits for a confirm, and a worker would wait for those before running the job; ADR 045), and no event
   * overtakes an earlier one, which a socket would then skip as already sent.
   */
  private fanOut: Promise<void> = Promise.resolve();
  /** Events waiting in `fanOut`: beyond MAX_PENDING_FAN_OUT (a bus that hangs) new ones are left to `sync`. */
  private pending = 0;

  constructor(private readonly deps: UserEventLogDeps) {}

  async record(tx: Transaction, userId: string, event: UserEvent): Promise<StoredUserEvent> {
    return (await this.recordAll(tx, userId, [event]))[0]!;
  }

  /** Several events of one user, with consecutive seqs, in this order. */
  async recordAll(tx: Transaction, userId: string, events: readonly UserEvent[]): Promise<StoredUserEvent[]> {
    const stored = await tx.events.appendAll(userId, events, this.deps.clock.now());
    tx.afterCommit(() => {
      if (this.pending + stored.length > MAX_PENDING_FAN_OUT) {
        this.deps.logger.warn('events not fanned out: the event bus is not keeping up (clients get them on sync)', { userId, seqs: stored.map((one) => one.seq) });
        return;
      }
      this.pending += stored.length;
      this.fanOut = this.fanOut.then(() => this.publish(userId, stored));
    });
    return stored;
  }

  private async publish(userId: string, stored: readonly StoredUserEvent[]): Promise<void> {
    for (const one of stored) {
      await this.deps.bus.publish(USER_EVENTS_CHANNEL, envelopeOf(one)).catch((error: unknown) =>
        this.deps.logger.warn('event not fanned out (clients get it on sync)', { userId, seq: one.seq, type: one.event.type, error: String(error) }),
      );
      this.pending -= 1;
    }
  }
}
