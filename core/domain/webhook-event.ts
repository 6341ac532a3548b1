import type { FieldProblem } from './result.ts';
import type { JobStatus } from './job.ts';
import { webhookUrlProblem, type WebhookPolicy } from './webhook-address.ts';

/** The moments a job's webhook may be called for (ADR 036). `completed` covers every end: succeeded, failed, cancelled, expired. */
export const WEBHOOK_EVENTS = ['started', 'output', 'completed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['completed'];

/**
 * The webhook event a job's move to `status` is, or null. The one place the terminal statuses map to `completed`:
 * a new end state (an `expired` job) is added here.
 */
export function webhookEventOf(status: JobStatus): WebhookEvent | null {
  switch (status) {
    case 'running':
      return 'started';
    case 'succeeded':
    case 'failed':
    case 'cancelled':
    case 'expired':
      return 'completed';
    default:
      return null;
  }
}

/** What a job's owner asked to be called for: the URL and the events, as stored with the job. */
export interface WebhookSubscription {
  url: string;
  events: WebhookEvent[];
}

/**
 * POST /generate's `webhook` and `webhookEvents`: null when no webhook is asked for, the subscription, or the
 * problems (field by field) that make the request a 400.
 */
export function parseWebhookSubscription(url: unknown, events: unknown, policy: WebhookPolicy): { subscription: WebhookSubscription | null } | { problems: FieldProblem[] } {
  if (url === undefined || url === null) {
    return events === undefined || events === null ? { subscription: null } : { problems: [{ field: 'webhookEvents', message: 'needs a webhook' }] };
  }
  const problems: FieldProblem[] = [];
  const urlProblem = webhookUrlProblem(url, policy);
  if (urlProblem) problems.push({ field: 'webhook', message: urlProblem });
  let chosen: WebhookEvent[] = [...DEFAULT_WEBHOOK_EVENTS];
  if (events !== undefined && events !== null) {
    const known = (value: unknown): value is WebhookEvent => typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);
    if (!Array.isArray(events) || events.length === 0 || !events.every(known)) {
      problems.push({ field: 'webhookEvents', message: `must be a non-empty list of ${WEBHOOK_EVENTS.join(', ')}` });
    } else {
      chosen = WEBHOOK_EVENTS.filter((event) => events.includes(event));
    }
  }
  return problems.length > 0 ? { problems } : { subscription: { url: url as string, events: chosen } };
}
