import type { UserEventType } from '../../core/domain/user-events.ts';
import type { JsonSchema } from './openapi.ts';

/**
 * The wire shape of every message of the real-time socket (API.md §6), the one source the AsyncAPI document is built
 * from (ADR 041). Typed by `UserEventType`, so an event type added to the domain does not compile until it has a
 * schema here; tests/integration/asyncapi.test.ts checks the events a real run emits against it. No extra fields:
 * a field added to an event without its schema here makes that test fail.
 */
const component = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const event = (type: UserEventType, required: string[], properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: ['type', 'jobId', 'seq', ...required],
  additionalProperties: false,
  properties: {
    type: { const: type },
    jobId: { type: 'string', description: 'The job (for publish events: the job of the output)' },
    seq: { type: 'integer', minimum: 1, description: "Grows by one per event of the user; `sync` with `since` resumes after it" },
    ...properties,
  },
});

const jobError: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string' }, message: { type: 'string' }, nodeId: { type: 'string' } },
};
const refunded: JsonSchema = { type: 'integer', minimum: 0, description: 'Coins given back for the job (0 when it cost nothing)' };

export const USER_EVENT_SCHEMAS: Record<UserEventType, JsonSchema> = {
  'job.queued': event('job.queued', [], { position: { type: 'integer', minimum: 0 } }),
  'job.queue': event('job.queue', ['position', 'etaSeconds'], {
    position: { type: 'integer', minimum: 0, description: 'Queued jobs ahead of this one (ADR 037)' },
    etaSeconds: { type: ['integer', 'null'], minimum: 0, description: 'Seconds until it should be done, null when no run time is known yet' },
  }),
  'job.started': event('job.started', ['attempt', 'etaSeconds'], {
    attempt: { type: 'integer', minimum: 1 },
    etaSeconds: { type: ['integer', 'null'], minimum: 0, description: "Seconds it should take: a running job's etaSeconds as it starts (ADR 037), null when no run time is known yet" },
  }),
  'job.status': event('job.status', ['text'], { text: { type: 'string', description: 'Free text such as "Generating" or "Uploading results"' } }),
  'job.progress': event('job.progress', ['value', 'max'], { value: { type: 'number' }, max: { type: 'number' }, node: { type: 'string' } }),
  'job.output': event('job.output', ['output'], { output: component('HistoryItem') }),
  'job.completed': event('job.completed', ['outputs', 'texts'], {
    outputs: { type: 'array', items: component('HistoryItem') },
    texts: { type: 'array', items: { type: 'string' }, description: 'Text outputs of the workflow' },
  }),
  'job.failed': event('job.failed', ['error', 'refunded'], { error: jobError, refunded }),
  'job.cancelled': event('job.cancelled', ['refunded'], { refunded }),
  'job.expired': event('job.expired', ['refunded'], { refunded }),
  'publish.completed': event('publish.completed', ['outputId', 'platform', 'url'], {
    outputId: { type: 'string' },
    platform: { type: 'string' },
    url: { type: ['string', 'null'] },
  }),
  'publish.failed': event('publish.failed', ['outputId', 'platform', 'error'], { outputId: { type: 'string' }, platform: { type: 'string' }, error: { type: 'string' } }),
};

/** Messages of the socket that are not stored events: answers to the client's own messages. */
export const SOCKET_REPLY_SCHEMAS: Record<'job.snapshot' | 'auth.ok' | 'error', JsonSchema> = {
  'job.snapshot': {
    type: 'object',
    required: ['type', 'jobs'],
    additionalProperties: false,
    properties: { type: { const: 'job.snapshot' }, jobs: { type: 'array', items: component('GenerationJob'), description: "The caller's queued and running jobs" } },
  },
  'auth.ok': {
    type: 'object',
    required: ['type', 'expiresAt'],
    additionalProperties: false,
    properties: { type: { const: 'auth.ok' }, expiresAt: { type: 'string', format: 'date-time', description: 'The socket now closes (4001) at this time' } },
  },
  error: {
    type: 'object',
    required: ['type', 'message'],
    additionalProperties: false,
    properties: { type: { const: 'error' }, message: { type: 'string', description: 'What was wrong with the last client message; the socket stays open' } },
  },
};

/** What a client may send. */
export const CLIENT_MESSAGE_SCHEMAS: Record<'sync' | 'auth', JsonSchema> = {
  sync: {
    type: 'object',
    required: ['type'],
    properties: {
      type: { const: 'sync' },
      since: { type: ['integer', 'null'], minimum: 0, description: 'Replay the stored events after this seq (kept 24 h); absent or null: the snapshot only' },
    },
  },
  auth: {
    type: 'object',
    required: ['type', 'token'],
    properties: { type: { const: 'auth' }, token: { type: 'string', minLength: 1, maxLength: 8192, description: 'A fresh access token of the same user' } },
  },
};
