import type { GenerationJob } from './job.ts';

/** HistoryItemData: the shape clients receive, over HTTP and in `job.output` / `job.completed` events alike. */
export interface HistoryView {
  id: string;
  jobId: string;
  templateId: string | null;
  mimeType: string;
  usedParameters: Record<string, unknown>;
  createdAt: string;
  expiresAt: string;
  viewUrl: string;
  fileName: string;
  sizeBytes: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

export interface JobView {
  id: string;
  status: GenerationJob['status'];
  templateId: string | null;
  templateVersion: number | null;
  progress: { value: number; max: number };
  statusText: string;
  outputs: HistoryView[];
  textOutputs: { nodeId: string; text: string }[];
  usedParameters: Record<string, unknown>;
  error: { code: string; message: string; nodeId?: string } | null;
  paidCoins: number;
  refundedCoins: number;
  /** An administrator's test run of a template (ADR 043): not in job lists or history, charged to nobody. */
  testRun: boolean;
  /** When the job must have started by (ISO), or null; a queued job still waiting then ends `expired`. */
  startDeadline: string | null;
  /** Queued jobs ahead of this one; null unless queued. Given by GET /generate/{id}, GET /generate and the snapshot (not the 202 of a submit). */
  position?: number | null;
  /** Estimated seconds until the job is done; null when finished or nothing is known. Given where `position` is. */
  etaSeconds?: number | null;
  createdAt: string;
  updatedAt: string;
}

