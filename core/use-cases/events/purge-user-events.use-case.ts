import type { Clock } from '../../ports/clock.port.ts';
import type { UserEventStore } from '../../ports/user-events.port.ts';

export interface PurgeUserEventsDeps {
  store: UserEventStore;
  clock: Clock;
  /** How long an event stays replayable. */
  retentionMs: number;
}

/** Removes events older than the retention window; returns how many went. */
export class PurgeUserEvents {
  constructor(private readonly deps: PurgeUserEventsDeps) {}

  execute(): Promise<number> {
    return this.deps.store.purgeBefore(new Date(this.deps.clock.now().getTime() - this.deps.retentionMs));
  }
}
