/**
 * What the use cases report for an operator's metrics (ADR 029). The core counts events; an adapter
 * (adapters/metrics) turns them into a metrics format. Calls happen after the change committed (from
 * `afterCommit` hooks), so a rolled-back transaction is never counted.
 */
export type JobOutcome = 'succeeded' | 'failed' | 'cancelled' | 'expired';

/** Why coins went back to a user: a job that ended without output, or a deduction no job kept. */
export type RefundReason = 'job_failed' | 'job_cancelled' | 'job_expired' | 'overpaid' | 'request_refused' | 'unclaimed_deduction';

/** What one webhook attempt came to: delivered, to be tried again, or the last one failed (ADR 036). */
export type WebhookOutcome = 'delivered' | 'retry' | 'failed';

export interface JobMetrics {
  /** A job was created (queued). `template` is its template id, null for a raw workflow. */
  jobSubmitted(template: string | null): void;
  /** A delivery attempt took a job. */
  jobStarted(template: string | null): void;
  jobEnded(template: string | null, outcome: JobOutcome): void;
  /** From the job's creation to its first attempt's start. */
  queueWait(seconds: number): void;
  /** One attempt's engine run. */
  runTime(seconds: number): void;
  /** Storing one successful attempt's outputs. */
  uploadTime(seconds: number): void;
  /** Coins taken from a user for a generation; `reason` is the ledger reason (image_generation, video_generation). */
  coinsCharged(amount: number, reason: string): void;
  coinsRefunded(amount: number, reason: RefundReason): void;
  /** A message went to the dead letters after its work was ended. */
  deadLettered(taskType: string): void;
  /** A webhook attempt was recorded. */
  webhookAttempt(outcome: WebhookOutcome): void;
}

/** The default when nobody reads metrics: every call does nothing. */
export const NO_JOB_METRICS: JobMetrics = {
  jobSubmitted() {},
  jobStarted() {},
  jobEnded() {},
  queueWait() {},
  runTime() {},
  uploadTime() {},
  coinsCharged() {},
  coinsRefunded() {},
  deadLettered() {},
  webhookAttempt() {},
};
