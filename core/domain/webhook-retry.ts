/**
 * When a failed webhook delivery is tried again (ADR 036): exponential backoff with full jitter (a random delay
 * between 0 and the exponential ceiling, so many receivers failing at once do not come back in step), bounded by
 * a number of attempts and by a total window measured from the first attempt (WEBHOOK_MAX_ATTEMPTS,
 * WEBHOOK_RETRY_WINDOW). The ceilings double and add up to the window: 8 attempts over an hour start near 28 s.
 */
export interface RetryBudget {
  maxAttempts: number;
  windowSeconds: number;
}

/** No single wait longer than this: SQS delays a message by at most 15 minutes. */
export const MAX_RETRY_DELAY_SECONDS = 900;

/**
 * The delay in whole seconds (at least 1) before the attempt after `attempt` (1 for the first), or null when the
 * delivery must give up: that was the last attempt, or the window since the first attempt has run out.
 * `random` returns a number in [0, 1).
 */
export function webhookRetryDelay(attempt: number, elapsedSeconds: number, budget: RetryBudget, random: () => number): number | null {
  if (attempt >= budget.maxAttempts) return null;
  const remaining = budget.windowSeconds - elapsedSeconds;
  if (remaining <= 0) return null;
  const base = budget.windowSeconds / (2 ** (budget.maxAttempts - 1) - 1);
  const ceiling = Math.min(MAX_RETRY_DELAY_SECONDS, base * 2 ** (attempt - 1), remaining);
  return Math.max(1, Math.ceil(random() * ceiling));
}
