/** An input image a user uploaded, stored in object storage under `storageKey`. */
export interface Upload {
  id: string;
  userId: string;
  storageKey: string;
  mimeType: string;
  width: number;
  height: number;
  sizeBytes: number;
  createdAt: Date;
  /** When a job first used it; uploads never used expire (see SweepExpiredUploads). */
  usedAt: Date | null;
}

export interface UploadRepository {
  create(upload: Omit<Upload, 'usedAt'>): Promise<void>;
  /** Null when there is no such upload or it belongs to someone else. */
  findForUser(id: string, userId: string): Promise<Upload | null>;
  /** Records the first use (a later call keeps the first time). False when the upload does not exist. */
  markUsed(id: string, at: Date): Promise<boolean>;
  /** Unused uploads created before `before`, oldest first, at most `limit`. */
  listExpired(before: Date, limit?: number): Promise<Upload[]>;
  /**
   * Deletes the row; with `onlyIfUnused`, only while `usedAt` is still null, so a job that marks the
   * upload used at the same moment wins. True when a row was deleted.
   */
  delete(id: string, options?: { onlyIfUnused?: boolean }): Promise<boolean>;
}
