import { validationFailed, ok, type Result } from '../../domain/result.ts';
import type { MessageQueue, PeekedMessage } from '../../ports/queue.port.ts';

export const PEEK_MAX = 100;

/** The messages waiting on the queue, read without taking them (nothing is delivered, no attempt counted). */
export class PeekQueue {
  constructor(private readonly deps: { queue: MessageQueue }) {}

  async execute(input: { max: unknown }): Promise<Result<PeekedMessage[]>> {
    const max = input.max === undefined ? 10 : Number(input.max);
    if (!Number.isInteger(max) || max < 1 || max > PEEK_MAX) return validationFailed([{ field: 'max', message: `must be an integer from 1 to ${PEEK_MAX}` }]);
    return ok(await this.deps.queue.peek(max));
  }
}
