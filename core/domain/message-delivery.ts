import type { ConsumeOptions, HandlerOutcome, TraceCarrier } from '../ports/queue.port.ts';

/**
 * What a queue does with a delivered message once its handler is done. Shared by the queues that
 * keep their own delivery bookkeeping (database, memory), so they settle messages the same way.
 */
export type Settlement = { kind: 'delete' } | { kind: 'delay'; seconds: number } | { kind: 'dead'; reason: string };

export interface BackoffPolicy {
  /** Delay after the first failed attempt; doubles on each further attempt. */
  initialSeconds: number;
  maxSeconds: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialSeconds: 1, maxSeconds: 60 };

/** 1 s, 2 s, 4 s... after attempts 1, 2, 3..., capped. */
export function backoffSeconds(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, attempt - 1);
  return Math.min(policy.maxSeconds, policy.initialSeconds * 2 ** Math.min(exponent, 30));
}

/** A handler that threw is retried like `retry` with the backoff delay; the last allowed attempt goes dead. */
export function settlementOf(
  result: { outcome: HandlerOutcome } | { error: unknown },
  attempt: number,
  maxAttempts: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): Settlement {
  if ('error' in result) {
    const message = describeError(result.error);
    if (attempt >= maxAttempts) return { kind: 'dead', reason: `handler failed on attempt ${attempt} of ${maxAttempts}: ${message}` };
    return { kind: 'delay', seconds: backoffSeconds(attempt, policy) };
  }
  const { outcome } = result;
  switch (outcome.action) {
    case 'ack':
      return { kind: 'delete' };
    case 'dead':
      return { kind: 'dead', reason: outcome.reason };
    case 'retry':
      if (attempt >= maxAttempts) return { kind: 'dead', reason: `retry requested on attempt ${attempt} of ${maxAttempts}` };
      return { kind: 'delay', seconds: Math.max(0, outcome.delaySeconds) };
  }
}

/** The reason recorded for a message whose consumer stopped answering on its last allowed delivery. */
export const expiredReason = (attempts: number): string =>
  `not settled after ${attempts} deliveries (visibility expired: consumer crashed or stalled)`;

export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** Throws on options no queue can honour (a programming error, not an expected outcome). */
export function validateConsumeOptions(options: ConsumeOptions): void {
  if (options.taskTypes.length === 0) throw new Error('consume() needs at least one task type');
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new Error('consume() concurrency must be a positive integer');
  if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1) throw new Error('consume() maxAttempts must be a positive integer');
  if (!(options.visibilitySeconds > 0)) throw new Error('consume() visibilitySeconds must be positive');
}

/** The W3C trace-context fields a queue carries beside a message (as headers or attributes), by these names. */
export const TRACE_FIELDS = ['traceparent', 'tracestate'] as const;

/** The trace carrier found among a message's headers or attributes; undefined when it has none. */
export function traceCarrierOf(fields: Record<string, unknown>): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  for (const name of TRACE_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string' && value !== '') carrier[name] = value;
  }
  return carrier.traceparent ? carrier : undefined;
}

/** Only the W3C fields of a carrier, ready to be set as headers or attributes. */
export function traceFields(carrier: TraceCarrier | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of TRACE_FIELDS) if (carrier?.[name]) fields[name] = carrier[name];
  return fields;
}

/** `{ trace }` to spread into a delivered message, or nothing when there is no carrier. */
export const withTrace = (trace: TraceCarrier | undefined): { trace?: TraceCarrier } => (trace ? { trace } : {});

/**
 * A loop's idle wait that `wake()` cuts short (the queue consumers' poll interval and back-off; stop() wakes them).
 * A wake-up that comes while nothing sleeps is kept: the next sleep returns at once, so it is never lost.
 */
export class WakeableSleep {
  private cut: (() => void) | null = null;
  private woken = false;

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.cut = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.cut = done;
    });
  }

  wake(): void {
    if (this.cut) this.cut();
    else this.woken = true;
  }
}
