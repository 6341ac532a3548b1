import type { ImageRef } from './render-workflow.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';

export type { ImageRef };

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINISHED: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled', 'expired'];
export const isFinished = (status: JobStatus): boolean => FINISHED.includes(status);

/**
 * The only moves a job can make; every repository's guarded transition takes its allowed sources from
 * here (`sourcesOf`). `running → running` is a new delivery attempt taking the job over (it gets a new
 * run id, which fences the old attempt out). `queued → expired` is a job whose start deadline passed before any
 * attempt took it (ADR 037); a running job never expires. Finished states have no way out.
 */
export const TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['running', 'failed', 'cancelled', 'expired'],
  running: ['running', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
  expired: [],
};

export const canMove = (from: JobStatus, to: JobStatus): boolean => TRANSITIONS[from].includes(to);

/** The statuses a job may be in for a move to `to` (the guard of every conditional transition). */
export const sourcesOf = (to: JobStatus): JobStatus[] => JOB_STATUSES.filter((from) => canMove(from, to));

/** The longest status text a job keeps (the SQL stores' column holds 255 characters; every store cuts there). */
export const STATUS_TEXT_MAX = 255;

/** A status text as every job store keeps it: cut at STATUS_TEXT_MAX characters. */
export const storedStatusText = (text: string): string => text.slice(0, STATUS_TEXT_MAX);

/** Progress as every job store keeps it (the SQL columns are integers): whole steps, and at least one step in all. */
export const storedProgress = (progress: { value: number; max: number }): { value: number; max: number } => ({
  value: Math.round(progress.value),
  max: Math.max(1, Math.round(progress.max)),
});

export interface JobError {
  code: string;
  message: string;
  nodeId?: string;
}

export interface TextOutput {
  nodeId: string;
  text: string;
}

export interface GenerationJob {
  id: string;
  userId: string;
  templateId: string | null;
  templateVersion: number | null;
  status: JobStatus;
  progress: { value: number; max: number };
  statusText: string;
  workflow: WorkflowGraph;
  usedParameters: Record<string, unknown>;
  imageRefs: ImageRef[];
  outputType: 'image' | 'video';
  /** Coins this job was paid with (its own charge or a linked deduction). */
  paidCoins: number;
  /** Set once, when the payment went back. */
  refundedCoins: number;
  /**
   * An administrator's test run of a template (ADR 043): charged to nobody (paidCoins 0, no ledger row), and left
   * out of the owner's job list and output history.
   */
  testRun: boolean;
  error: JobError | null;
  textOutputs: TextOutput[];
  attempts: number;
  /** The delivery attempt that holds the job while it runs; its writes are fenced by this id. */
  runId: string | null;
  /** Until when that attempt has promised to be alive (extended by its heartbeat). */
  leaseUntil: Date | null;
  /** The client's time-to-start deadline (`startDeadlineSeconds` after submission): not started by then, it ends expired. */
  startDeadline: Date | null;
  /**
   * Its owner's turn in a queue that serves owners in turn (ADR 047): 1 + the owner's queued and running jobs when it
   * was submitted. Fixed then: the database queue serves by it, and the position counts by it.
   */
  queueTurn: number;
  /**
   * Its choices among its template's enum parameters, as `fitChoicesOf` writes them at submit ('' when none, and for
   * jobs submitted before they were kept): with the template, they decide which servers can run it (ADR 050).
   */
  fitChoices: string;
  /**
   * The engine server its latest attempt was handed to, or that ran it (1-based, as in COMFYUI_URLS); null before it
   * starts and where servers are not told apart (the builtin engine). Run estimates learn per server from it.
   */
  engineServer: number | null;
  /** A running job waiting out a retry delay: when its next attempt is due; null otherwise. */
  retryAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A job as lists show it: everything but its workflow (a rendered ComfyUI graph, often tens of kilobytes). */
export type JobSummary = Omit<GenerationJob, 'workflow'>;

export interface HistoryItem {
  id: string;
  jobId: string;
  userId: string;
  templateId: string | null;
  storageKey: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  usedParameters: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Where an output is stored: `outputs/<userId>/<jobId>/<file>`, where the file part starts with a tag of
 * the attempt that wrote it, so two attempts of one job never write (or delete) each other's files.
 */
export const outputKey = (userId: string, jobId: string, runId: string, fileName: string): string =>
  `outputs/${userId}/${jobId}/${runId.replace(/-/g, '').slice(0, 12)}-${fileName}`;


/** A queued job whose start deadline has passed at `now`: it must end expired, never run. */
export const pastStartDeadline = (job: Pick<GenerationJob, 'status' | 'startDeadline'>, now: Date): boolean =>
  job.status === 'queued' && job.startDeadline !== null && job.startDeadline.getTime() <= now.getTime();
