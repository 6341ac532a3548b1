/**
 * Queue estimates learn from past runs (ADR 037): a template's run estimate is the median run time of its last
 * RUN_SAMPLE successful jobs on the engine servers it can run on (when several servers are told apart), else of its
 * last RUN_SAMPLE successful jobs on any server; a template with none borrows the median of the last RUN_SAMPLE
 * successes of every template; with no success at all there is no estimate (null).
 */
export const RUN_SAMPLE = 20;

/**
 * A job that made choices among its template's enum parameters (a checkpoint, a resolution, a step count: ADR 050) is
 * estimated first from the jobs that made the same choices, among its template's last CHOICES_WINDOW successes (a
 * bounded read however rare the choice).
 */
export const CHOICES_WINDOW = 200;

/** The median of `values` (the mean of the middle two for an even count), or null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * What is left of a run that has gone on for `elapsedMs`, learned from past runs (`runs`, ms): the median of what was
 * left of the past runs that lasted longer than that (while every past run did, the median less the time run). A run
 * that has outlasted every past run has no estimate (null): "almost done" would be a guess. No past runs: null.
 */
export function remainingMs(runs: readonly number[], elapsedMs: number): number | null {
  const ran = Math.max(0, elapsedMs);
  return median(runs.filter((ms) => ms > ran).map((ms) => ms - ran));
}

/** When nothing is known about run times, a client refused for a full queue is asked to wait this long. */
export const UNKNOWN_RETRY_AFTER_SECONDS = 10;

/** Retry-After for a full queue: the queue head's run estimate (about when a slot frees for it), whole seconds, at least 1. */
export const queueFullRetryAfter = (headRunMs: number | null): number =>
  headRunMs === null ? UNKNOWN_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(headRunMs / 1000));
