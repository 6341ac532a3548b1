import { TASK_TYPES } from '../../domain/messages.ts';
import { ok, validationFailed, type FieldProblem, type Result } from '../../domain/result.ts';
import type { MessageQueue } from '../../ports/queue.port.ts';

export const TEST_TASK_TYPE = 'diagnostic';
const ATTRIBUTE_NAMES = ['TaskType', 'Environment'];

/**
 * Puts one message on the queue so an operator can see it travel (and peek at it). Its task type is
 * never one a worker handles, so a test message cannot start real work; nobody consumes it.
 */
export class PublishTestMessage {
  constructor(private readonly deps: { queue: MessageQueue; environment: string }) {}

  async execute(input: { body: unknown; attributes: unknown }): Promise<Result<{ messageId: string }>> {
    const problems: FieldProblem[] = [];
    const attributes = (input.attributes ?? {}) as Record<string, unknown>;
    if (typeof attributes !== 'object' || Array.isArray(attributes)) {
      problems.push({ field: 'attributes', message: 'must be an object of strings' });
    } else {
      for (const [name, value] of Object.entries(attributes)) {
        if (!ATTRIBUTE_NAMES.includes(name)) problems.push({ field: `attributes.${name}`, message: `is not an attribute; use ${ATTRIBUTE_NAMES.join(' or ')}` });
        else if (typeof value !== 'string' || value.length === 0 || value.length > 64) problems.push({ field: `attributes.${name}`, message: 'must be a string of 1 to 64 characters' });
      }
    }
    const taskType = typeof attributes.TaskType === 'string' ? attributes.TaskType : TEST_TASK_TYPE;
    if ((TASK_TYPES as readonly string[]).includes(taskType)) {
      problems.push({ field: 'attributes.TaskType', message: `must not be a task type workers handle (${TASK_TYPES.join(', ')})` });
    }
    if (problems.length > 0) return validationFailed(problems);
    const environment = typeof attributes.Environment === 'string' ? attributes.Environment : this.deps.environment;
    const body = input.body === undefined ? { test: true } : input.body;
    return ok(await this.deps.queue.publish({ taskType, environment, body }));
  }
}
