import { parseCidr, type WebhookPolicy } from '../../core/domain/webhook-address.ts';
import type { Reader } from './reader.ts';

/** Webhook deliveries (ADR 036): where they may go, how long one may take, how often and how long they are retried. */
export interface WebhooksConfig {
  policy: WebhookPolicy;
  /** Connect plus the whole answer of one delivery (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts of one delivery at most (WEBHOOK_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** No attempt once this long has passed since the first (WEBHOOK_RETRY_WINDOW_SECONDS). */
  retryWindowSeconds: number;
  /** Deliveries one worker process sends at once (WEBHOOK_CONCURRENCY), apart from WORKER_CONCURRENCY. */
  concurrency: number;
  /** How often the worker looks for due deliveries (WEBHOOK_POLL_MS). */
  pollMs: number;
}

export function readWebhooks(read: Reader): WebhooksConfig {
  const allowCidrs = read.list('WEBHOOK_ALLOW_CIDRS');
  for (const cidr of allowCidrs) if (parseCidr(cidr) === null) read.problems.push(`WEBHOOK_ALLOW_CIDRS: "${cidr}" is not an address range (like 10.1.0.0/16 or fd00::/8)`);
  return {
    policy: {
      allowPrivate: read.bool('WEBHOOK_ALLOW_PRIVATE', false),
      allowCidrs,
      allowHttpHosts: read.list('WEBHOOK_ALLOW_HTTP_HOSTS').map((host) => host.toLowerCase()),
    },
    timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    maxAttempts: read.int('WEBHOOK_MAX_ATTEMPTS', 8, 1, 20),
    retryWindowSeconds: read.int('WEBHOOK_RETRY_WINDOW_SECONDS', 3600, 1, 7 * 86_400),
    concurrency: read.int('WEBHOOK_CONCURRENCY', 4, 1, 64),
    pollMs: read.int('WEBHOOK_POLL_MS', 1_000, 50, 60_000),
  };
}
