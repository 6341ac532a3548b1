import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Outbox } from '../../ports/outbox.port.ts';
import type { MessageQueue } from '../../ports/queue.port.ts';

export interface RelayOutboxDeps {
  outbox: Outbox;
  queue: MessageQueue;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  /** Entries leased per round; execute() keeps going until the outbox is drained. */
  batchSize?: number;
  /** How long a lease keeps other relays off an entry (a relay that died mid-batch gives them back after it). */
  leaseSeconds?: number;
}

/**
 * Publishes the outbox's committed entries, oldest first, each under a lease so that two relays never publish
 * one entry at once, then marks it published. The entry id is the message id: a relay that dies between
 * publishing and marking makes the entry go out again after its lease, and queues that remember message ids
 * (the database queue keeps acknowledged ids as tombstones) drop the repeat; on the others delivery is at
 * least once and handlers are idempotent. Returns how many entries this call published.
 */
export class RelayOutbox {
  constructor(private readonly deps: RelayOutboxDeps) {}

  async execute(): Promise<number> {
    const { outbox, queue, ids, clock } = this.deps;
    const batchSize = this.deps.batchSize ?? 100;
    const leaseMs = (this.deps.leaseSeconds ?? 30) * 1000;
    let published = 0;
    for (;;) {
      const now = clock.now();
      const token = ids.newId();
      const batch = await outbox.lease(batchSize, { token, until: new Date(now.getTime() + leaseMs) }, now);
      if (batch.length === 0) return published;
      for (const entry of batch) {
        await queue.publish({ ...entry.message, messageId: entry.id });
        if (await outbox.markPublished(entry.id, token, clock.now())) published += 1;
        else this.deps.logger.warn('outbox entry published after its lease ran out (another relay may publish it too)', { entryId: entry.id });
      }
    }
  }
}
