import { isUuid } from '../../domain/ids.ts';
import type { GenerationJob } from '../../domain/job.ts';
import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import type { UserRole } from '../../domain/user.ts';
import type { WebhookPolicy } from '../../domain/webhook-address.ts';
import { parseWebhookSubscription, type WebhookSubscription } from '../../domain/webhook-event.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { CommitHook, Transaction, UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobPayment } from '../coins/job-payment.service.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.service.ts';
import type { PrepareGeneration, PreparedGeneration } from './prepare-generation.service.ts';
import { turnForJob, queueJob, type QueueJobDeps } from './queue-job.service.ts';
import type { RunEstimates } from './run-estimates.service.ts';
import { queueFullRetryAfter } from '../../domain/run-estimate.ts';

export interface SubmitGenerationDeps extends QueueJobDeps {
  uow: UnitOfWork;
  jobs: JobRepository;
  prepare: PrepareGeneration;
  payment: JobPayment;
  clock: Clock;
  /** Queued jobs (every user's) beyond which a submit is refused with QUEUE.FULL (QUEUE_MAX_DEPTH); 0: no limit. */
  maxQueueDepth?: number;
  /** What the queue head's run is estimated to take: the Retry-After of a refusal for a full queue. */
  estimates?: RunEstimates;
  /** Stores a job's webhook (ADR 036); without it a request naming one is refused. */
  webhooks?: { outbox: WebhookOutbox; policy: WebhookPolicy };
}

/** How long a client refused for too many active jobs is asked to wait (Retry-After). */
export const ACTIVE_JOBS_RETRY_AFTER_SECONDS = 10;

export type SubmitFailure = Fail & { retryAfterSeconds?: number };

export interface SubmitGenerationInput {
  userId: string;
  role: UserRole;
  workflow?: unknown;
  templateId?: unknown;
  parameters?: unknown;
  requestId?: unknown;
  /** Seconds the job may wait in the queue before it must start (an integer, 1 to MAX_START_DEADLINE_SECONDS); past it, it ends expired. */
  startDeadlineSeconds?: unknown;
  /** The URL called back (`webhookEvents`: which moments; `completed` by default). */
  webhook?: unknown;
  webhookEvents?: unknown;
  /** Writes that must commit with the new job (see CommitHook). */
  alsoCommit?: CommitHook<SubmittedJob>;
}

export interface SubmittedJob {
  job: GenerationJob;
  created: boolean;
}

/** The longest time-to-start deadline a client may ask for: a day (user events are kept that long). */
export const MAX_START_DEADLINE_SECONDS = 86_400;

const isDeadlineSeconds = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_START_DEADLINE_SECONDS;

/** Thrown inside the transaction to roll every write of the submit back. */
class Rejected extends Error {
  constructor(readonly outcome: 'taken' | 'insufficient' | 'busy') {
    super(outcome);
  }
}

/**
 * POST /generate. One transaction pays for the job (`JobPayment.payForJob`: the client's linked deduction,
 * then a charge for what is missing, and what was paid above the price goes back), creates it, queues its message and records `job.queued`;
 * nothing of it exists unless all of it does. A request that is refused gives the linked deduction back at once.
 */
export class SubmitGeneration {
  constructor(private readonly deps: SubmitGenerationDeps) {}

  async execute(input: SubmitGenerationInput): Promise<Result<SubmittedJob> | SubmitFailure> {
    const requestId = isUuid(input.requestId) ? input.requestId.toLowerCase() : null;
    if (input.requestId !== undefined && input.requestId !== null && requestId === null) {
      return validationFailed([{ field: 'requestId', message: 'must be a UUID' }]);
    }
    const deadlineSeconds = input.startDeadlineSeconds ?? null;
    if (deadlineSeconds !== null && !isDeadlineSeconds(deadlineSeconds)) {
      return this.reject(input.userId, requestId, validationFailed([{ field: 'startDeadlineSeconds', message: `must be an integer from 1 to ${MAX_START_DEADLINE_SECONDS}` }]));
    }
    const webhook = this.webhookOf(input);
    if ('problems' in webhook) return this.reject(input.userId, requestId, validationFailed(webhook.problems));
    if (requestId) {
      const existing = await this.deps.jobs.findById(requestId);
      if (existing) return this.existing(existing, input.userId);
    }
    const prepared = await this.deps.prepare.execute(input);
    if (!prepared.ok) return this.reject(input.userId, requestId, prepared);
    // Before any coin moves (ADR 037): a full queue refuses the submit, and nothing was charged or claimed.
    const full = await this.queueFull();
    if (full) return { ...(await this.reject(input.userId, requestId, full.failure)), retryAfterSeconds: full.retryAfterSeconds };
    const jobId = requestId ?? this.deps.ids.newId();
    try {
      const job = await this.deps.uow.run(async (tx) => {
        const created = await this.create(tx, jobId, input.userId, requestId, prepared.value, deadlineSeconds, webhook.subscription);
        await input.alsoCommit?.(tx, { job: created, created: true });
        return created;
      });
      return ok({ job, created: true });
    } catch (error) {
      if (!(error instanceof Rejected)) throw error;
      if (error.outcome === 'insufficient') return this.reject(input.userId, requestId, fail('COIN.INSUFFICIENT', 'Not enough coins for this generation'));
      if (error.outcome === 'busy') {
        const { maxActiveJobsPerUser: max } = this.deps;
        const busy = fail('JOB.TOO_MANY_ACTIVE', `You have ${max} jobs queued or running, the most one user may have; submit again when one has finished`);
        return { ...(await this.reject(input.userId, requestId, busy)), retryAfterSeconds: ACTIVE_JOBS_RETRY_AFTER_SECONDS };
      }
      // Another request with this requestId created the job first (and its transaction has committed).
      const existing = await this.deps.jobs.findById(jobId);
      if (existing) return this.existing(existing, input.userId);
      throw new Error(`job ${jobId} was taken but cannot be found`);
    }
  }

  /** QUEUE.FULL with its Retry-After when QUEUE_MAX_DEPTH jobs or more are queued; null otherwise. */
  private async queueFull(): Promise<{ failure: Fail; retryAfterSeconds: number } | null> {
    const max = this.deps.maxQueueDepth ?? 0;
    if (max <= 0) return null;
    const queued = await this.deps.jobs.listByStatus(['queued'], { page: 1, limit: 1 });
    if (queued.total < max) return null;
    const head = queued.items[0];
    const headRunMs = head && this.deps.estimates ? await this.deps.estimates.runMs(head.templateId, null, head.fitChoices) : null;
    const failure = fail('QUEUE.FULL', `The queue is full (${queued.total} jobs waiting); submit again later`);
    return { failure, retryAfterSeconds: queueFullRetryAfter(headRunMs) };
  }

  private webhookOf(input: SubmitGenerationInput): ReturnType<typeof parseWebhookSubscription> {
    const { webhooks } = this.deps;
    if (webhooks) return parseWebhookSubscription(input.webhook, input.webhookEvents, webhooks.policy);
    const asked = input.webhook !== undefined && input.webhook !== null;
    return asked ? { problems: [{ field: 'webhook', message: 'webhooks are not available here' }] } : { subscription: null };
  }

  private existing(job: GenerationJob, userId: string): Result<SubmittedJob> {
    return job.userId === userId ? ok({ job, created: false }) : fail('CONFLICT', 'requestId is already in use');
  }

  /** A refused request gives back the deduction the client made for it, at once (the seed's client order). */
  private async reject(userId: string, requestId: string | null, failure: Fail): Promise<Fail> {
    if (requestId) await this.deps.uow.run((tx) => this.deps.payment.releaseRequest(tx, userId, requestId, this.deps.clock.now()));
    return failure;
  }

  private async create(tx: Transaction, jobId: string, userId: string, requestId: string | null, prepared: PreparedGeneration, deadlineSeconds: number | null, webhook: WebhookSubscription | null): Promise<GenerationJob> {
    const now = this.deps.clock.now();
    const queueTurn = await turnForJob(tx, this.deps, userId);
    if (queueTurn === null) throw new Rejected('busy');
    const paid = await this.deps.payment.payForJob(tx, { userId, jobId, requestId, price: prepared.price, outputType: prepared.outputType, at: now });
    if (paid === 'insufficient') throw new Rejected('insufficient');
    const startDeadline = deadlineSeconds === null ? null : new Date(now.getTime() + deadlineSeconds * 1000);
    const job = await queueJob(tx, this.deps, { jobId, userId, prepared, paidCoins: prepared.price, testRun: false, startDeadline, queueTurn, at: now });
    if (!job) throw new Rejected('taken');
    if (webhook) await this.deps.webhooks?.outbox.subscribe(tx, job, webhook);
    return job;
  }
}
