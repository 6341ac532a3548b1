import type { Clock } from '../../ports/clock.port.ts';
import type { IdempotencyStore } from '../../ports/idempotency-store.port.ts';

/** Forgets keys older than their TTL (run by a periodic sweeper). Returns how many went. */
export class PurgeIdempotencyKeys {
  constructor(private readonly deps: { store: IdempotencyStore; clock: Clock }) {}

  execute(): Promise<number> {
    return this.deps.store.purgeExpired(this.deps.clock.now());
  }
}
