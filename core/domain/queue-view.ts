import type { PeekedMessage } from '../ports/queue.port.ts';

/** A queue message as administrators see it: its attributes and what it is about, not its whole body (a workflow can be large). */
export interface MessageView {
  id: string;
  taskType: string;
  environment: string;
  /** The job of a `generation` message, else null. */
  jobId: string | null;
  /** The user whose work it is, when the body names one. */
  userId: string | null;
  /** The body as JSON, cut to SUMMARY_CHARS. */
  summary: string;
  /** Dead letters: why the message went dead, where the broker kept it. */
  reason: string | null;
}

export const SUMMARY_CHARS = 200;

const stringField = (body: unknown, name: string): string | null => {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : null;
};

/** Any body: a message in the queue may be malformed (which is often why it is dead). */
export function viewOfMessage(message: PeekedMessage): MessageView {
  const json = JSON.stringify(message.body) ?? 'null';
  return {
    id: message.id,
    taskType: message.attributes['TaskType'] ?? '',
    environment: message.attributes['Environment'] ?? '',
    jobId: message.attributes['TaskType'] === 'generation' ? stringField(message.body, 'jobId') : null,
    userId: stringField(message.body, 'userId'),
    summary: json.length > SUMMARY_CHARS ? `${json.slice(0, SUMMARY_CHARS - 1)}…` : json,
    reason: message.reason ?? null,
  };
}
