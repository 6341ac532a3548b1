import { backoffSeconds } from '../../domain/message-delivery.ts';
import { generationJobId } from '../../domain/messages.ts';
import { InvalidStorageKeyError } from '../../domain/storage-key.ts';
import type { GenerationJob, JobError } from '../../domain/job.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import { NO_JOB_METRICS, type JobMetrics } from '../../ports/metrics.port.ts';
import type { DeliveredMessage, HandlerOutcome } from '../../ports/queue.port.ts';
import type { Transaction, UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { EngineRunResult, EngineSlot, WorkflowEngine } from '../../ports/workflow-engine.port.ts';
import type { EngineInputs } from './engine-inputs.service.ts';
import type { EngineSlotWait } from './engine-slot-wait.service.ts';
import type { JobLifecycle } from './job-lifecycle.service.ts';
import { ProgressRelay, type ProgressRelayDeps } from './progress-relay.service.ts';
import type { QueueEstimates } from './queue-estimates.service.ts';
import type { StoreOutputs } from './store-outputs.service.ts';

export interface RunGenerationDeps extends Omit<ProgressRelayDeps, 'intervalMs'> {
  uow: UnitOfWork;
  jobs: JobRepository;
  lifecycle: JobLifecycle;
  engine: WorkflowEngine;
  inputs: EngineInputs;
  outputs: StoreOutputs;
  clock: Clock;
  logger: Logger;
  maxAttempts: number;
  /** The queue's visibility timeout: a running attempt renews it, and its job's lease, every third of it. */
  visibilitySeconds: number;
  /** Registers an abort hook so a cancel request reaches the running engine call. */
  onCancel(jobId: string, abort: () => void): () => void;
  progressIntervalMs?: number;
  /** Times each engine run and each storing of outputs; none by default. */
  metrics?: JobMetrics;
  /** Where a job waits, still queued, for an engine slot before it starts (ADR 044); none: the run waits for one. */
  slots?: EngineSlotWait;
  /** What should be left of a job that starts now, for its `job.started` event (ADR 037). */
  estimates: Pick<QueueEstimates, 'atStart'>;
}

/** `succeeded`: set once this attempt's results committed, so the log line needs no read to say so. */
type Attempt = { job: GenerationJob; runId: string; previousRunId: string | null; message: DeliveredMessage; slot: EngineSlot | null; succeeded?: boolean };

/**
 * The worker's handler of one `generation` delivery. Each delivery is an attempt with a run id of its own:
 * it takes the job, runs it on the engine under a heartbeat that renews its claim, and then either makes its
 * outputs the job's result, retries, or fails the job (refunded in the same transaction). An attempt that lost
 * the job (cancelled, or taken over after its visibility ran out) changes nothing. Redelivering a finished job
 * changes nothing.
 */
export class RunGeneration {
  constructor(private readonly deps: RunGenerationDeps) {}

  async execute(message: DeliveredMessage): Promise<HandlerOutcome> {
    const jobId = generationJobId(message.body);
    if (!jobId) return { action: 'dead', reason: 'not a generation message (no job id)' };
    const slot = (await this.deps.slots?.wait(jobId, message)) ?? null;
    const leaseUntil = this.later(this.deps.visibilitySeconds);
    const started = await this.etaAtStart(jobId)
      .then((etaSeconds) => this.deps.uow.run((tx) => this.deps.lifecycle.start(tx, jobId, message.attempt, leaseUntil, etaSeconds)))
      .catch((error: unknown) => {
        slot?.release();
        throw error;
      });
    if (started.kind !== 'started') slot?.release();
    if (started.kind === 'missing') return { action: 'dead', reason: `job ${jobId} does not exist` };
    if (started.kind === 'finished' || started.kind === 'expired') {
      if (started.kind === 'expired') this.deps.logger.info('job expired before it started', { jobId });
      return { action: 'ack' };
    }
    const attempt: Attempt = { job: started.job, runId: started.runId, previousRunId: started.previousRunId, message, slot };
    const { logger, clock } = this.deps;
    const began = clock.now().getTime();
    const fields = { jobId, templateId: attempt.job.templateId, templateVersion: attempt.job.templateVersion, attempt: message.attempt, runId: attempt.runId };
    logger.info('job taken', fields);
    let outcome: HandlerOutcome | null = null;
    try {
      outcome = await this.attempt(attempt);
      return outcome;
    } finally {
      const ended = outcome ? await this.describe(attempt, outcome) : 'error';
      logger.info('job ended', { ...fields, outcome: ended, durationMs: clock.now().getTime() - began });
    }
  }

  /** Read before the start's transaction (its reads are not the transaction's); a message whose job is gone has none. */
  private async etaAtStart(jobId: string): Promise<number | null> {
    const job = await this.deps.jobs.findById(jobId);
    return job ? this.deps.estimates.atStart(job) : null;
  }

  /** For the log: how the attempt ended (the job's status when it is still this attempt's), never a reason to fail. */
  private async describe(attempt: Attempt, outcome: HandlerOutcome): Promise<string> {
    if (outcome.action === 'retry') return 'retrying';
    if (outcome.action === 'dead') return 'dead-lettered';
    if (attempt.succeeded) return 'succeeded';
    const job = await this.deps.jobs.findById(attempt.job.id).catch(() => null);
    return job && job.runId === attempt.runId ? job.status : 'lost';
  }

  private async attempt(attempt: Attempt): Promise<HandlerOutcome> {
    const jobId = attempt.job.id;
    let lost = false;
    let result: EngineRunResult;
    const metrics = this.deps.metrics ?? NO_JOB_METRICS;
    try {
      const runStarted = this.deps.clock.now().getTime();
      result = await this.run(attempt, () => (lost = true));
      metrics.runTime(this.secondsSince(runStarted));
      if (result.ok) {
        const storeStarted = this.deps.clock.now().getTime();
        // The delivery's ack commits with the job's success where the queue is a table of the same database (ADR 045).
        const ack = (tx: Transaction) => attempt.message.ackWith?.(tx) ?? Promise.resolve();
        const stored = await this.deps.outputs.complete(attempt.job, attempt.runId, result.files, result.texts, ack);
        metrics.uploadTime(this.secondsSince(storeStarted));
        attempt.succeeded = stored === 'succeeded';
        if (stored === 'lost') this.deps.logger.info('attempt lost its job before storing its results', { jobId, runId: attempt.runId });
        return { action: 'ack' };
      }
    } catch (error) {
      await this.deps.outputs.discard(attempt.runId);
      // A key our storage refuses (an output name too long for it, say) is refused again on every retry.
      if (error instanceof InvalidStorageKeyError) {
        await this.fail(attempt, { code: 'STORAGE.INVALID_KEY', message: `An output could not be stored: ${error.message}` });
        return { action: 'ack' };
      }
      return this.transient(attempt, { code: 'STORAGE.UNAVAILABLE', message: (error as Error).message });
    } finally {
      await this.deps.engine.release?.(attempt.runId).catch(() => undefined);
    }
    await this.deps.outputs.discard(attempt.runId);
    if (result.error.code === 'ENGINE.INTERRUPTED') return this.interrupted(attempt, lost);
    if (result.error.code === 'ENGINE.CANCELLED') {
      await this.cancelledOnEngine(attempt, result.error.message);
      return { action: 'ack' };
    }
    const error: JobError = { code: result.error.code, message: result.error.message, ...(result.error.nodeId ? { nodeId: result.error.nodeId } : {}) };
    if (result.transient) return this.transient(attempt, error);
    await this.fail(attempt, error);
    return { action: 'ack' };
  }

  /** The engine call, under a heartbeat that renews the queue's visibility and the job's lease; `onLost` when the claim is gone. */
  private async run(attempt: Attempt, onLost: () => void): Promise<EngineRunResult> {
    const { job, runId, previousRunId, message, slot } = attempt;
    const { visibilitySeconds, logger } = this.deps;
    const controller = new AbortController();
    const unregister = this.deps.onCancel(job.id, () => controller.abort());
    const beat = async (): Promise<void> => {
      await message.extendVisibility(visibilitySeconds).catch((error: unknown) => logger.warn('heartbeat: queue visibility not extended', { jobId: job.id, runId, error: String(error) }));
      const held = await this.deps.jobs.updateRunning(job.id, runId, { leaseUntil: this.later(visibilitySeconds) }, this.deps.clock.now()).catch((error: unknown) => {
        logger.warn('heartbeat: job lease not renewed', { jobId: job.id, runId, error: String(error) });
        return true;
      });
      if (!held) {
        onLost();
        controller.abort();
      }
    };
    const heartbeat = setInterval(() => void beat(), (visibilitySeconds * 1000) / 3);
    const relay = new ProgressRelay({ ...this.deps, intervalMs: this.deps.progressIntervalMs ?? 200 }, job, runId);
    try {
      const { workflow, files } = await this.deps.inputs.load(job);
      // The previous attempt's prompt may still be on the engine: the engine adopts it rather than running the job twice.
      const supersedes = previousRunId ? { supersedes: previousRunId } : {};
      return await this.deps.engine.run({ runId, jobId: job.id, userId: job.userId, ...supersedes, ...(slot ? { slot } : {}), workflow, inputs: files, onEvent: relay.handle, signal: controller.signal });
    } finally {
      slot?.release();
      clearInterval(heartbeat);
      unregister();
      await relay.drain();
    }
  }

  /** Cancelled or taken over: nothing to do. Interrupted while this attempt still holds the job (the engine restarted, say): retried. */
  private async interrupted(attempt: Attempt, lost: boolean): Promise<HandlerOutcome> {
    const job = await this.deps.jobs.findById(attempt.job.id);
    if (lost || !job || job.status !== 'running' || job.runId !== attempt.runId) return { action: 'ack' };
    return this.transient(attempt, { code: 'ENGINE.INTERRUPTED', message: 'the engine interrupted the run' });
  }

  /** Cancelled on the engine itself (not by us): the job ends cancelled and refunded, as if its owner had cancelled it. */
  private async cancelledOnEngine(attempt: Attempt, reason: string): Promise<void> {
    const { job, runId } = attempt;
    const outcome = await this.deps.uow.run((tx) => this.deps.lifecycle.end(tx, job.id, { to: 'cancelled', fence: runId }));
    if (outcome.ended) this.deps.logger.warn('job cancelled on the engine', { jobId: job.id, runId, reason, refunded: outcome.refunded });
  }

  private async transient(attempt: Attempt, error: JobError): Promise<HandlerOutcome> {
    const { job, runId, message } = attempt;
    const { maxAttempts, logger } = this.deps;
    logger.warn('transient generation failure', { jobId: job.id, runId, attempt: message.attempt, code: error.code, message: error.message });
    if (message.attempt >= maxAttempts) {
      await this.fail(attempt, { ...error, message: `${error.message} (gave up after ${message.attempt} attempts)` });
      return { action: 'dead', reason: error.message };
    }
    const delaySeconds = backoffSeconds(message.attempt);
    // The job stays this attempt's while the retry waits, with a lease that covers the wait.
    await this.deps.uow.run(async (tx) => {
      const text = `Retrying after a temporary problem (attempt ${message.attempt} of ${maxAttempts})`;
      const changes = { statusText: text, leaseUntil: this.later(delaySeconds + this.deps.visibilitySeconds), retryAt: this.later(delaySeconds) };
      if (await tx.jobs.updateRunning(job.id, runId, changes, this.deps.clock.now())) {
        await this.deps.events.record(tx, job.userId, { type: 'job.status', jobId: job.id, text });
      }
    });
    return { action: 'retry', delaySeconds };
  }

  private async fail(attempt: Attempt, error: JobError): Promise<void> {
    const outcome = await this.deps.uow.run((tx) => this.deps.lifecycle.end(tx, attempt.job.id, { to: 'failed', error, fence: attempt.runId }));
    // A warning, so that an operator running at LOG_LEVEL=warn sees every failed job and why; the whole error,
    // paths included, for the operator, while the job keeps the client's version.
    if (outcome.ended) {
      const { job } = attempt;
      this.deps.logger.warn('job failed', { jobId: job.id, userId: job.userId, templateId: job.templateId, code: error.code, error: error.message, ...(error.nodeId ? { nodeId: error.nodeId } : {}), refunded: outcome.refunded });
    }
  }

  private secondsSince(ms: number): number {
    return (this.deps.clock.now().getTime() - ms) / 1000;
  }

  private later(seconds: number): Date {
    return new Date(this.deps.clock.now().getTime() + seconds * 1000);
  }
}
