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
  /** The blake3 of its bytes, `blake3:<hex>` (ADR 042); null for uploads stored before hashes were kept. */
  contentHash: string | null;
  /** The name the client gave the file (a Comfy API v2 asset's `file_path`); null when it gave none. */
  fileName: string | null;
  /** When a job first used it; uploads never used expire (see SweepExpiredUploads). */
  usedAt: Date | null;
}

export interface UploadRepository {
  create(upload: Omit<Upload, 'usedAt'>): Promise<void>;
  /** Null when there is no such upload or it belongs to someone else. */
  findForUser(id: string, userId: string): Promise<Upload | null>;
  /** Records the first use (a later call keeps the first time). False when the upload does not exist. */
  markUsed(id: string, at: Date): Promise<boolean>;
  /** The caller's newest upload with these bytes (`contentHash` as stored), or null: another user's never counts. */
  findByHashForUser(contentHash: string, userId: string): Promise<Upload | null>;
  /** The user's uploads, used or not, oldest first, at most `limit`: what a deleted account's purge removes. */
  listForUser(userId: string, limit: number): Promise<Upload[]>;
  /** Unused uploads created before `before`, oldest first, at most `limit`. */
  listExpired(before: Date, limit?: number): Promise<Upload[]>;
  /**
   * Deletes the row; with `onlyIfUnused`, only while `usedAt` is still null, so a job that marks the
   * upload used at the same moment wins. True when a row was deleted.
   */
  delete(id: string, options?: { onlyIfUnused?: boolean }): Promise<boolean>;
}
