import { viewOfMessage, type MessageView } from '../../domain/queue-view.ts';
import { ok, type Result } from '../../domain/result.ts';
import type { MessageQueue } from '../../ports/queue.port.ts';
import { parseLimit } from './inspect-queue.use-case.ts';

/** The dead letters, oldest first, each with its reason where the broker kept one. */
export class ListDeadLetters {
  constructor(private readonly deps: { queue: MessageQueue }) {}

  async execute(input: { limit?: unknown }): Promise<Result<MessageView[]>> {
    const limit = parseLimit(input.limit);
    if (!limit.ok) return limit;
    return ok((await this.deps.queue.deadLetters(limit.value)).map(viewOfMessage));
  }
}
