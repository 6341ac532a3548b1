/** How one template's jobs fared in a window: counts by ending, the failure rate and the run time of its successes. */
export interface TemplateStats {
  templateId: string;
  /** Jobs created in the window (whatever their status now). */
  jobs: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** failed / (succeeded + failed); null while none of them ended either way. Cancelled jobs are the users' choice, not failures. */
  failureRate: number | null;
  /** Run time (started to finished) of the succeeded jobs, nearest-rank percentiles in milliseconds; null without any. */
  p50RunMs: number | null;
  p95RunMs: number | null;
}

/** The nearest-rank percentile (p in 1..100) of ascending values: the smallest value with at least p % of them at or below it. */
export function nearestRank(ascending: readonly number[], p: number): number | null {
  if (ascending.length === 0) return null;
  const rank = ascending.findIndex((_, index) => (index + 1) * 100 >= p * ascending.length);
  return ascending[rank]!;
}

export const failureRateOf = (succeeded: number, failed: number): number | null => (succeeded + failed === 0 ? null : failed / (succeeded + failed));
