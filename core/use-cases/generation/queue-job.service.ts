import type { GenerationJob } from '../../domain/job.ts';
import { generationMessage } from '../../domain/messages.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { JobMetrics } from '../../ports/metrics.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';
import type { UserEventLog } from '../events/user-event-log.service.ts';
import type { InputImages } from './input-images.service.ts';
import type { PreparedGeneration } from './prepare-generation.service.ts';

/** What queueing a job needs: shared by a user's submit and an administrator's test run (ADR 043). */
export interface QueueJobDeps {
  images: InputImages;
  events: UserEventLog;
  ids: IdGenerator;
  environment: string;
  /** Queued plus running jobs one user may have (MAX_ACTIVE_JOBS_PER_USER). */
  maxActiveJobsPerUser: number;
  /** Counts each job created, once its transaction commits; none by default. */
  metrics?: JobMetrics;
}

export interface JobToQueue {
  jobId: string;
  userId: string;
  prepared: PreparedGeneration;
  /** What the job was paid: the price, or 0 for a test run (charged to nobody). */
  paidCoins: number;
  testRun: boolean;
  startDeadline: Date | null;
  /** From `turnForJob`. */
  queueTurn: number;
  at: Date;
}

/**
 * The new job's turn (1 + the user's queued and running jobs, ADR 047), or null when the user already has
 * MAX_ACTIVE_JOBS_PER_USER of them. First in the submit's transaction: the count holds off this user's other submits
 * until this one commits (see the port), so two submits never share a turn.
 */
export async function turnForJob(tx: Transaction, deps: Pick<QueueJobDeps, 'maxActiveJobsPerUser'>, userId: string): Promise<number | null> {
  const active = await tx.jobs.countActiveForUserExclusively(userId);
  return active < deps.maxActiveJobsPerUser ? active + 1 : null;
}

/**
 * In the caller's transaction: the queued job, its queue message (outbox), its input images marked used and its
 * `job.queued` event. Null when the job id is taken (nothing was written).
 */
export async function queueJob(tx: Transaction, deps: QueueJobDeps, input: JobToQueue): Promise<GenerationJob | null> {
  const { prepared, at } = input;
  const job: GenerationJob = {
    id: input.jobId,
    userId: input.userId,
    templateId: prepared.templateId,
    templateVersion: prepared.templateVersion,
    status: 'queued',
    progress: { value: 0, max: 1 },
    statusText: 'Queued',
    workflow: prepared.workflow,
    usedParameters: prepared.usedParameters,
    imageRefs: prepared.imageRefs,
    outputType: prepared.outputType,
    paidCoins: input.paidCoins,
    refundedCoins: 0,
    testRun: input.testRun,
    error: null,
    textOutputs: [],
    attempts: 0,
    runId: null,
    leaseUntil: null,
    startDeadline: input.startDeadline,
    queueTurn: input.queueTurn,
    fitChoices: prepared.fitChoices,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    finishedAt: null,
    engineServer: null,
    retryAt: null,
  };
  if (!(await tx.jobs.create(job))) return null;
  await tx.outbox.add({ id: deps.ids.newId(), createdAt: at, message: generationMessage(job, deps.environment) });
  for (const image of prepared.images) await deps.images.markUsed(tx, image, at);
  await deps.events.record(tx, input.userId, { type: 'job.queued', jobId: job.id });
  tx.afterCommit(() => deps.metrics?.jobSubmitted(job.templateId));
  return job;
}
