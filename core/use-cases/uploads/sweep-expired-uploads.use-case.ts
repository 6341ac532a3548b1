import type { Clock } from '../../ports/clock.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { UploadRepository } from '../../ports/upload-repository.port.ts';

export const UPLOAD_RETENTION_SECONDS = 24 * 60 * 60;

export interface SweepExpiredUploadsDeps {
  uploads: UploadRepository;
  storage: ObjectStorage;
  clock: Clock;
  /** Unused uploads older than this go; default 24 h. */
  maxAgeSeconds?: number;
  batchSize?: number;
}

export interface SweepReport {
  deleted: number;
  /** Keys whose row is gone but whose file could not be deleted (left behind; logged by the caller). */
  failedKeys: string[];
}

/**
 * Deletes uploads no job has used within the retention: the row first, conditionally on it still
 * being unused (a job marking it used at the same moment keeps it), then the file. Safe to run from
 * several API processes at once.
 */
export class SweepExpiredUploads {
  constructor(private readonly deps: SweepExpiredUploadsDeps) {}

  async execute(): Promise<SweepReport> {
    const { uploads, storage, clock } = this.deps;
    const batchSize = this.deps.batchSize ?? 200;
    const before = new Date(clock.now().getTime() - (this.deps.maxAgeSeconds ?? UPLOAD_RETENTION_SECONDS) * 1000);
    const report: SweepReport = { deleted: 0, failedKeys: [] };
    for (;;) {
      const batch = await uploads.listExpired(before, batchSize);
      for (const upload of batch) {
        if (!(await uploads.delete(upload.id, { onlyIfUnused: true }))) continue;
        report.deleted += 1;
        try {
          await storage.delete(upload.storageKey);
        } catch {
          report.failedKeys.push(upload.storageKey);
        }
      }
      if (batch.length < batchSize) return report;
    }
  }
}
