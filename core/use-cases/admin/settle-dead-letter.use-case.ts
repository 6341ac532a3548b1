import { fail, ok, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { MessageQueue } from '../../ports/queue.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { viewOfMessage } from '../../domain/queue-view.ts';
import { isUuid } from '../../domain/ids.ts';

export type DeadLetterAction = 'redrive' | 'discard';

export interface SettleDeadLetterDeps {
  queue: MessageQueue;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
}

/** Dead letters looked through to find the one acted on, for its audit entry. */
const LOOK_AT = 1000;

/**
 * An administrator puts a dead letter back on the queue (attempts start over) or drops it. The queue is not part of
 * the database transaction, so the audit entry is written right after the queue said yes; should that write fail,
 * the entry goes to the error log whole, so the action is never untraced. A redriven generation message for a job
 * that already ended runs nothing: the worker acknowledges a message whose job is finished (RunGeneration).
 */
export class SettleDeadLetter {
  constructor(private readonly deps: SettleDeadLetterDeps) {}

  async execute(input: { actorId: string; id: string; action: DeadLetterAction }): Promise<Result<{ id: string }>> {
    const { queue, uow, ids, clock, logger } = this.deps;
    if (input.id.length === 0 || input.id.length > 128) return fail('NOT_FOUND', 'No such dead letter');
    const seen = (await queue.deadLetters(LOOK_AT)).find((message) => message.id === input.id);
    const done = input.action === 'redrive' ? await queue.redrive(input.id) : await queue.discard(input.id);
    if (!done) return fail('NOT_FOUND', 'No such dead letter');
    const view = seen ? viewOfMessage(seen) : null;
    const entry = {
      id: ids.newId(),
      actorId: input.actorId,
      action: input.action === 'redrive' ? ('queue.redrive' as const) : ('queue.discard' as const),
      targetUserId: isUuid(view?.userId) ? view.userId.toLowerCase() : null,
      details: { messageId: input.id, taskType: view?.taskType ?? null, jobId: view?.jobId ?? null, userId: view?.userId ?? null, reason: view?.reason ?? null },
      createdAt: clock.now(),
    };
    try {
      await uow.run((tx) => tx.audit.record(entry));
    } catch (error) {
      logger.error('dead letter settled but its audit entry was not written', { ...entry, createdAt: entry.createdAt.toISOString(), error: String(error) });
      throw error;
    }
    return ok({ id: input.id });
  }
}
