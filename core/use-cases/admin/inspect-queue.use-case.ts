import { viewOfMessage, type MessageView } from '../../domain/queue-view.ts';
import { ok, validationFailed, type Result } from '../../domain/result.ts';
import type { MessageQueue } from '../../ports/queue.port.ts';

export const INSPECT_MAX = 100;

export interface QueueView {
  /** The first `limit` waiting messages, oldest first. */
  messages: MessageView[];
  /** Waiting messages per task type among those looked at. */
  waiting: Record<string, number>;
  /** True when every waiting message was looked at (the counts are totals), false when more wait beyond `limit`. */
  complete: boolean;
}

/** Parses `limit` (default 20, 1..INSPECT_MAX). */
export function parseLimit(value: unknown): Result<number> {
  const limit = value === undefined || value === '' ? 20 : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > INSPECT_MAX) return validationFailed([{ field: 'limit', message: `must be an integer from 1 to ${INSPECT_MAX}` }]);
  return ok(limit);
}

/**
 * What waits on the queue: a peek of the first messages (one more than shown, to know whether that was all).
 * On RabbitMQ and SQS a peek counts as a delivery (see MessageQueue.peek), so this reads only a small window.
 */
export class InspectQueue {
  constructor(private readonly deps: { queue: MessageQueue }) {}

  async execute(input: { limit?: unknown }): Promise<Result<QueueView>> {
    const limit = parseLimit(input.limit);
    if (!limit.ok) return limit;
    const peeked = await this.deps.queue.peek(limit.value + 1);
    const messages = peeked.slice(0, limit.value).map(viewOfMessage);
    const waiting: Record<string, number> = {};
    for (const message of messages) waiting[message.taskType] = (waiting[message.taskType] ?? 0) + 1;
    return ok({ messages, waiting, complete: peeked.length <= limit.value });
  }
}
