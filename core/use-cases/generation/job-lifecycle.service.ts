import { clientErrorText } from '../../domain/client-error-text.ts';
import { webhookEventOf } from '../../domain/webhook-event.ts';
import { pastStartDeadline, type GenerationJob, type HistoryItem, type JobError } from '../../domain/job.ts';
import type { HistoryView } from '../../domain/job-views.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import { NO_JOB_METRICS, type JobMetrics } from '../../ports/metrics.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';
import type { JobPayment } from '../coins/job-payment.service.ts';
import type { UserEventLog } from '../events/user-event-log.service.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.service.ts';

export interface JobLifecycleDeps {
  ids: IdGenerator;
  clock: Clock;
  events: UserEventLog;
  payment: JobPayment;
  /** Counts jobs started and ended, and the queue wait, once each move commits; none by default. */
  metrics?: JobMetrics;
  /** Writes the job's webhook deliveries with each move (ADR 036); none without it. */
  webhooks?: WebhookOutbox;
}

export type StartOutcome = { kind: 'missing' } | { kind: 'finished'; job: GenerationJob } | { kind: 'expired'; job: GenerationJob | null } | { kind: 'started'; job: GenerationJob; runId: string; previousRunId: string | null };

export type Ending = { to: 'failed'; error: JobError; fence?: string } | { to: 'cancelled'; fence?: string } | { to: 'expired' };

export type EndOutcome = { ended: false; job: GenerationJob | null } | { ended: true; job: GenerationJob; refunded: number };

const ENDING_TEXT: Record<Ending['to'], string> = { failed: 'Failed', cancelled: 'Cancelled', expired: 'Expired before it started' };

/**
 * Every move of a job, each inside the caller's transaction together with what must go with it: the
 * events it reports, the refund of a job that ends without output (`JobPayment.refundJob`), the history of one
 * that succeeds.
 * The repository's guarded transition (allowed sources from the domain's table, the attempt's fence)
 * decides; when it refuses, nothing else is written.
 */
export class JobLifecycle {
  private readonly metrics: JobMetrics;

  constructor(private readonly deps: JobLifecycleDeps) {
    this.metrics = deps.metrics ?? NO_JOB_METRICS;
  }

  /**
   * A delivery attempt takes the job: running, under a new run id that fences the attempt's writes, with a lease.
   * `previousRunId` is the run id it replaced (an earlier attempt's, whose engine prompt may still exist).
   * `etaSeconds`: what should be left of it (`QueueEstimates.atStart`), told by its `job.started` event.
   */
  async start(tx: Transaction, jobId: string, attempt: number, leaseUntil: Date, etaSeconds: number | null = null): Promise<StartOutcome> {
    const current = await tx.jobs.findById(jobId);
    if (!current) return { kind: 'missing' };
    const at = this.deps.clock.now();
    // Checked before starting: a job past its start deadline ends expired here and never runs (ADR 037).
    if (pastStartDeadline(current, at)) return { kind: 'expired', job: (await this.end(tx, jobId, { to: 'expired' })).job };
    const runId = this.deps.ids.newId();
    // An attempt that was waiting out a retry delay is no longer waiting.
    const changes = { attempts: attempt, startedAt: at, statusText: 'Generating', leaseUntil, retryAt: null };
    if (!(await tx.jobs.transition(jobId, { to: 'running', runId, changes }, at))) return { kind: 'finished', job: current };
    const job: GenerationJob = { ...current, ...changes, status: 'running', runId, updatedAt: at };
    await this.deps.events.recordAll(tx, job.userId, [
      { type: 'job.started', jobId, attempt, etaSeconds },
      { type: 'job.status', jobId, text: 'Generating' },
    ]);
    await this.deps.webhooks?.record(tx, job, webhookEventOf('running'), { status: 'running', attempt });
    tx.afterCommit(() => {
      this.metrics.jobStarted(job.templateId);
      // The first attempt's wait is the queue's; a later one's includes the earlier attempts.
      if (attempt === 1) this.metrics.queueWait((at.getTime() - job.createdAt.getTime()) / 1000);
    });
    return { kind: 'started', job, runId, previousRunId: current.runId ?? null };
  }

  /** Ends a job without output (failed, cancelled or expired): the move, its refund and its event commit together or not at all. */
  async end(tx: Transaction, jobId: string, given: Ending): Promise<EndOutcome> {
    // Every failure reaches the client through here: its text is scrubbed of paths and bounded (the caller logs it whole).
    const ending: Ending = given.to === 'failed' ? { ...given, error: { ...given.error, message: clientErrorText(given.error.message) } } : given;
    const at = this.deps.clock.now();
    const changes = {
      statusText: ENDING_TEXT[ending.to],
      finishedAt: at,
      leaseUntil: null,
      ...(ending.to === 'failed' ? { error: ending.error } : {}),
    };
    const fence = 'fence' in ending ? ending.fence : undefined;
    const moved = await tx.jobs.transition(jobId, { to: ending.to, ...(fence !== undefined ? { fence } : {}), changes }, at);
    const job = await tx.jobs.findById(jobId);
    if (!moved || !job) return { ended: false, job };
    const refunded = await this.deps.payment.refundJob(tx, job, at);
    if (ending.to === 'failed') {
      const { code, message, nodeId } = ending.error;
      await this.deps.events.record(tx, job.userId, { type: 'job.failed', jobId, error: { code, message, ...(nodeId ? { nodeId } : {}) }, refunded });
    } else {
      await this.deps.events.record(tx, job.userId, { type: ending.to === 'expired' ? 'job.expired' : 'job.cancelled', jobId, refunded });
    }
    await this.deps.webhooks?.record(tx, job, webhookEventOf(ending.to), { status: ending.to, error: job.error, refundedCoins: job.refundedCoins + refunded });
    tx.afterCommit(() => this.metrics.jobEnded(job.templateId, ending.to));
    return { ended: true, job: { ...job, refundedCoins: job.refundedCoins + refunded }, refunded };
  }

  /**
   * The attempt's results become the job's, all at once: succeeded, one history row per stored file, its
   * staged files released, the events. False (and nothing written) when the attempt no longer holds the job.
   */
  async succeed(tx: Transaction, job: GenerationJob, runId: string, items: HistoryItem[], views: HistoryView[], texts: { nodeId: string; text: string }[]): Promise<boolean> {
    const at = this.deps.clock.now();
    const changes = { progress: { value: 1, max: 1 }, statusText: 'Completed', textOutputs: texts, finishedAt: at, leaseUntil: null };
    if (!(await tx.jobs.transition(job.id, { to: 'succeeded', fence: runId, changes }, at))) return false;
    for (const item of items) {
      if (!(await tx.history.add(item))) throw new Error(`output ${item.fileName} of job ${job.id} is already recorded`);
    }
    await tx.staged.remove(items.map((item) => item.storageKey));
    await this.deps.events.recordAll(tx, job.userId, [
      ...views.map((output) => ({ type: 'job.output' as const, jobId: job.id, output })),
      { type: 'job.completed', jobId: job.id, outputs: views, texts: texts.map((text) => text.text) },
    ]);
    for (const output of views) await this.deps.webhooks?.record(tx, job, 'output', { output });
    await this.deps.webhooks?.record(tx, job, webhookEventOf('succeeded'), { status: 'succeeded', outputs: views, texts: texts.map((text) => text.text) });
    tx.afterCommit(() => this.metrics.jobEnded(job.templateId, 'succeeded'));
    return true;
  }
}
