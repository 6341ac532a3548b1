import type { GenerationJob, HistoryItem } from '../../domain/job.ts';

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

export async function historyItemView(item: HistoryItem, viewUrl: (item: HistoryItem) => Promise<string>): Promise<HistoryView> {
  return {
    id: item.id,
    jobId: item.jobId,
    templateId: item.templateId,
    mimeType: item.mimeType,
    usedParameters: item.usedParameters,
    createdAt: item.createdAt.toISOString(),
    expiresAt: item.expiresAt.toISOString(),
    viewUrl: await viewUrl(item),
    fileName: item.fileName,
    sizeBytes: item.sizeBytes,
    ...(item.width !== null ? { width: item.width } : {}),
    ...(item.height !== null ? { height: item.height } : {}),
    ...(item.durationSeconds !== null ? { durationSeconds: item.durationSeconds } : {}),
  };
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
  createdAt: string;
  updatedAt: string;
}

export const jobView = (job: GenerationJob, outputs: HistoryView[]): JobView => ({
  id: job.id,
  status: job.status,
  templateId: job.templateId,
  templateVersion: job.templateVersion,
  progress: job.progress,
  statusText: job.statusText,
  outputs,
  textOutputs: job.textOutputs,
  usedParameters: job.usedParameters,
  error: job.error,
  paidCoins: job.paidCoins,
  refundedCoins: job.refundedCoins,
  createdAt: job.createdAt.toISOString(),
  updatedAt: job.updatedAt.toISOString(),
});
