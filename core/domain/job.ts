import type { ImageRef } from './render-workflow.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';

export type { ImageRef };

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINISHED: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isFinished = (status: JobStatus): boolean => FINISHED.includes(status);

/** The only moves a job can make. Anything else is refused by the repository's conditional update. */
export const TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['running', 'failed', 'cancelled'],
  running: ['running', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export const canMove = (from: JobStatus, to: JobStatus): boolean => TRANSITIONS[from].includes(to);

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
  error: JobError | null;
  textOutputs: TextOutput[];
  attempts: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

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

export const outputKey = (userId: string, jobId: string, fileName: string): string => `outputs/${userId}/${jobId}/${fileName}`;

/** Reason of the charge for a job: video jobs are `video_generation`. */
export const chargeReason = (outputType: 'image' | 'video'): 'video_generation' | 'image_generation' =>
  outputType === 'video' ? 'video_generation' : 'image_generation';
