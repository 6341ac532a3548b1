import type { Clock } from '../../ports/clock.port.ts';
import type { Outbox } from '../../ports/outbox.port.ts';
import type { MessageQueue } from '../../ports/queue.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export interface RelayOutboxDeps {
  outbox: Outbox;
  queue: MessageQueue;
  uow: UnitOfWork;
  clock: Clock;
  /** Entries read per round; execute() keeps going until the outbox is drained. */
  batchSize?: number;
}

/**
 * Publishes the outbox's pending entries, oldest first, then marks each one published. The entry id
 * is the message id, and publish + mark run in one unit of work: on the database queue both commit
 * together (exactly once); on a broker a crash between the two republishes the same message id
 * (at least once, deduplicated where the broker can). Returns how many entries were published.
 */
export class RelayOutbox {
  constructor(private readonly deps: RelayOutboxDeps) {}

  async execute(): Promise<number> {
    const { outbox, queue, uow, clock } = this.deps;
    const batchSize = this.deps.batchSize ?? 100;
    const done = new Set<string>();
    let published = 0;
    for (;;) {
      const batch = (await outbox.pending(batchSize)).filter((entry) => !done.has(entry.id));
      // Nothing new: either drained, or entries another relay has not finished marking yet.
      if (batch.length === 0) return published;
      for (const entry of batch) {
        await uow.run(async () => {
          await queue.publish({ ...entry.message, messageId: entry.id });
          await outbox.markPublished(entry.id, clock.now());
        });
        done.add(entry.id);
        published += 1;
      }
    }
  }
}
