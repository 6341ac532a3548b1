import type { HistoryItem, JobSummary } from '../../domain/job.ts';
import type { HistoryView, JobView } from '../../domain/job-views.ts';

export type { HistoryView, JobView };

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

export const jobView = (job: JobSummary, outputs: HistoryView[]): JobView => ({
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
  testRun: job.testRun,
  startDeadline: job.startDeadline ? job.startDeadline.toISOString() : null,
  createdAt: job.createdAt.toISOString(),
  updatedAt: job.updatedAt.toISOString(),
});
