import test from 'ava';
import { JOB_STATUSES } from '../../core/domain/job.ts';
import { webhookEventOf } from '../../core/domain/webhook-event.ts';

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
