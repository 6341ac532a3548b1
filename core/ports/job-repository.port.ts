import type { GenerationJob, JobError, JobStatus, JobSummary, TextOutput } from '../domain/job.ts';
import type { QueueOrder } from '../domain/queue-order.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { TemplateStats } from '../domain/template-stats.ts';

export type NewJob = Omit<
  GenerationJob,
  'refundedCoins' | 'error' | 'textOutputs' | 'attempts' | 'runId' | 'leaseUntil' | 'startedAt' | 'finishedAt' | 'updatedAt' | 'engineServer' | 'retryAt'
>;

/** A group of queued jobs ahead of one: the same template and the same choices among its enum parameters. */
export interface QueuedAhead {
  templateId: string | null;
  fitChoices: string;
  count: number;
}

/** What an estimate needs of a running job. */
export interface RunningWork {
  templateId: string | null;
  /** Its choices among its template's enum parameters (`GenerationJob.fitChoices`). */
  fitChoices: string;
  engineServer: number | null;
  startedAt: Date;
  /** Waiting out a retry delay: when its next attempt is due (`GenerationJob.retryAt`). */
  retryAt: Date | null;
}

export interface JobChanges {
  progress?: { value: number; max: number };
  statusText?: string;
  error?: JobError | null;
  textOutputs?: TextOutput[];
  attempts?: number;
  startedAt?: Date;
  finishedAt?: Date;
  leaseUntil?: Date | null;
  /** The engine server the job was handed to or that ran it (1-based, as in COMFYUI_URLS): `GenerationJob.engineServer`. */
  engineServer?: number;
  /** When the next attempt of a job waiting out a retry delay is due; null once an attempt starts. */
  retryAt?: Date | null;
}

export interface JobMove {
  to: JobStatus;
  /** Only while this attempt (its run id) holds the job: an attempt that lost it can move nothing. */
  fence?: string;
  /** A new attempt taking the job (`to: 'running'`): its run id fences every later write of that attempt. */
  runId?: string;
  changes?: JobChanges;
}

export interface JobRepository {
  /** False when the id is taken. */
  create(job: NewJob): Promise<boolean>;
  findById(id: string): Promise<GenerationJob | null>;
  /** Null when the job is not this user's. */
  findForUser(id: string, userId: string): Promise<GenerationJob | null>;
  /** The same without its workflow (what `GET /generate/{id}`, polled by clients, shows); null when not this user's. */
  findSummaryForUser(id: string, userId: string): Promise<JobSummary | null>;
  /** The user's jobs, newest first, without their test runs of templates (ADR 043), and without their workflows. */
  listForUser(userId: string, request: PageRequest): Promise<Page<JobSummary>>;
  /** The test runs of one template (every administrator's), newest first, at most `max`. */
  listTestRuns(templateId: string, max: number): Promise<GenerationJob[]>;
  /** The user's queued and running jobs, oldest first (at most 100), without their workflows. */
  listActiveForUser(userId: string): Promise<JobSummary[]>;
  /** Every user's jobs in one of `statuses`, oldest first, without their workflows (the administrators' view of what waits and runs). */
  listByStatus(statuses: readonly JobStatus[], request: PageRequest): Promise<Page<JobSummary>>;
  /**
   * The user's queued and running jobs, counted inside a unit of work so that a concurrent call for the same
   * user waits until this unit of work ends: a check against the count cannot be passed by two racing submits.
   */
  countActiveForUserExclusively(userId: string): Promise<number>;
  /**
   * One conditional update: moves the job to `move.to` only from a status the domain allows
   * (`sourcesOf(move.to)`), and with `fence` only while that attempt holds it. False otherwise.
   */
  transition(id: string, move: JobMove, at: Date): Promise<boolean>;
  /** Progress, status text or lease of a running attempt; false when `fence` no longer holds a running job. */
  updateRunning(id: string, fence: string, changes: JobChanges, at: Date): Promise<boolean>;
  /** Adds `amount` to the refunded coins once: false when the job already has a refund recorded. */
  markRefunded(id: string, amount: number, at: Date): Promise<boolean>;
  countForTemplate(templateId: string): Promise<number>;
  /** Per template with jobs created at or after `since`: counts by ending, failure rate, p50/p95 run time of successes; by template id. */
  templateStats(since: Date): Promise<TemplateStats[]>;
  /** Jobs in one of `statuses` that were paid and have refunded nothing (the reconciler's first check), oldest change first. */
  listUnrefunded(statuses: readonly JobStatus[], max: number): Promise<GenerationJob[]>;
  /**
   * The queued jobs ahead of a queued job `job` in the queue's `order` (core/domain/queue-order.ts: `arrival`,
   * created earlier, the lower id first at the same instant; `owner-turns`, by `queueTurn` (fixed at submit, ADR 047),
   * each turn in arrival order), every user's, counted per template (null: raw workflows) and per choices among its
   * enum parameters (`fitChoices`, ADR 050), by template id with null first, then by choices; empty when `job` is not
   * queued. Queue positions learn from it (ADR 037). Asked for several jobs at once (a page of the job list): one
   * answer per job, in the order given, from one read.
   */
  queuedAhead(jobs: readonly Pick<GenerationJob, 'id' | 'createdAt' | 'queueTurn'>[], order: QueueOrder): Promise<QueuedAhead[][]>;
  /**
   * Records `position` as the queued job's last announced queue position: false (nothing written) when the job is
   * not queued or that position was already announced, so each change is announced once across processes.
   */
  announcePosition(id: string, position: number): Promise<boolean>;
  /**
   * Run times (finishedAt - startedAt, in ms) of the most recent `max` succeeded jobs, newest finish first: of one
   * template, or of every job when `templateId` is null; with `servers`, only of the jobs one of those engine servers
   * ran (`engineServer`); with `fitChoices`, only of the jobs among those most recent CHOICES_WINDOW successes (of the
   * template, on those servers) that made these choices (`GenerationJob.fitChoices`, ADR 050). What queue estimates
   * learn from (ADR 037).
   */
  recentRunTimes(templateId: string | null, max: number, servers?: readonly number[], fitChoices?: string): Promise<number[]>;
  /**
   * The running jobs' template, choices (`fitChoices`), engine server and start (`startedAt`, else `createdAt`), earliest start first, at most
   * `max`: the work a queued job's ETA waits for (ADR 037). Only those columns: read on every estimate.
   */
  runningWork(max: number): Promise<RunningWork[]>;
  /** Queued jobs whose start deadline is at or before `now` (they must end expired), earliest deadline first. */
  listPastStartDeadline(now: Date, max: number): Promise<GenerationJob[]>;
  /** Running jobs whose attempt's lease ended before `before` (no live claim), oldest first. */
  listStalled(before: Date, max: number): Promise<GenerationJob[]>;
}
