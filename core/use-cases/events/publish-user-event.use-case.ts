import type { Clock } from '../../ports/clock.port.ts';
import {
  USER_EVENTS_CHANNEL,
  type EventBus,
  type StoredUserEvent,
  type UserEvent,
  type UserEventEnvelope,
  type UserEventStore,
} from '../../ports/user-events.port.ts';

export interface PublishUserEventDeps {
  store: UserEventStore;
  bus: EventBus;
  clock: Clock;
}

export interface PublishUserEventInput {
  userId: string;
  event: UserEvent;
}

/**
 * Stores an event for one user (which gives it the user's next `seq`) and then fans it out to every
 * API instance. Storing first means a client that missed the live message can always replay it.
 *
 * Call it after the state change the event reports has committed, not inside a unit of work: the
 * bus is not transactional, so a rolled-back transaction would leave clients holding an event (and a
 * seq) that never happened.
 */
export class PublishUserEvent {
  constructor(private readonly deps: PublishUserEventDeps) {}

  async execute(input: PublishUserEventInput): Promise<StoredUserEvent> {
    if (typeof input.event.type !== 'string' || input.event.type.length === 0) {
      throw new Error('a user event needs a non-empty string type');
    }
    const stored = await this.deps.store.append(input.userId, input.event, this.deps.clock.now());
    const envelope: UserEventEnvelope = {
      userId: stored.userId,
      seq: stored.seq,
      event: stored.event,
      createdAt: stored.createdAt.toISOString(),
    };
    await this.deps.bus.publish(USER_EVENTS_CHANNEL, envelope);
    return stored;
  }
}
