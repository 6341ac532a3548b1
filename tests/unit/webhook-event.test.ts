import test from 'ava';
import { JOB_STATUSES } from '../../core/domain/job.ts';
import { parseWebhookSubscription, webhookEventOf } from '../../core/domain/webhook-event.ts';

// Pinned: which job move calls which webhook event (ADR 036). Every end, expired included (ADR 037), is `completed`.
const TABLE = {
  queued: null,
  running: 'started',
  succeeded: 'completed',
  failed: 'completed',
  cancelled: 'completed',
  expired: 'completed',
} as const;

test('each job status maps to its webhook event, every ending to completed', (t) => {
  t.deepEqual([...JOB_STATUSES].sort(), Object.keys(TABLE).sort(), 'the table covers every status');
  for (const status of JOB_STATUSES) t.is(webhookEventOf(status), TABLE[status], status);
});

const POLICY = { allowPrivate: false, allowCidrs: [], allowHttpHosts: [] };
const URL_OK = 'https://hooks.example.com/a';

// Pinned: what POST /generate's `webhook` and `webhookEvents` become, and which of them are a 400 (and on which field).
test('the webhook fields of a submit: the subscription stored, or the fields refused', (t) => {
  const cases: [unknown, unknown, ReturnType<typeof parseWebhookSubscription>][] = [
    [undefined, undefined, { subscription: null }],
    [null, null, { subscription: null }],
    [undefined, ['completed'], { problems: [{ field: 'webhookEvents', message: 'needs a webhook' }] }],
    [URL_OK, undefined, { subscription: { url: URL_OK, events: ['completed'] } }],
    [URL_OK, null, { subscription: { url: URL_OK, events: ['completed'] } }],
    // Each event once, in the order of WEBHOOK_EVENTS, whatever the request repeats (the stored list has 64 characters).
    [URL_OK, ['completed', 'started', 'completed', 'started', 'output', 'output', 'completed'], { subscription: { url: URL_OK, events: ['started', 'output', 'completed'] } }],
    [URL_OK, ['output'], { subscription: { url: URL_OK, events: ['output'] } }],
    [URL_OK, [], { problems: [{ field: 'webhookEvents', message: 'must be a non-empty list of started, output, completed' }] }],
    [URL_OK, ['finished'], { problems: [{ field: 'webhookEvents', message: 'must be a non-empty list of started, output, completed' }] }],
    [URL_OK, ['completed', 'finished'], { problems: [{ field: 'webhookEvents', message: 'must be a non-empty list of started, output, completed' }] }],
    [URL_OK, 'completed', { problems: [{ field: 'webhookEvents', message: 'must be a non-empty list of started, output, completed' }] }],
    [URL_OK, { 0: 'completed', length: 1 }, { problems: [{ field: 'webhookEvents', message: 'must be a non-empty list of started, output, completed' }] }],
    ['https://127.0.0.1/hook', undefined, { problems: [{ field: 'webhook', message: 'must not point at a private, loopback or reserved address' }] }],
    ['http://hooks.example.com/a', ['finished'], {
      problems: [
        { field: 'webhook', message: 'must be an https URL' },
        { field: 'webhookEvents', message: 'must be a non-empty list of started, output, completed' },
      ],
    }],
  ];
  for (const [url, events, expected] of cases) t.deepEqual(parseWebhookSubscription(url, events, POLICY), expected, `${JSON.stringify(url)} ${JSON.stringify(events)}`);
});
