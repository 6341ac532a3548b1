/**
 * Files a delivery attempt has put (or is putting) into object storage but not yet committed as history.
 * The row is written before the upload starts and removed in the transaction that records the history,
 * so a file is always either reachable through history or listed here for deletion: an attempt that dies,
 * loses its claim, fails or is cancelled never leaks a file.
 */
export interface StagedOutput {
  storageKey: string;
  jobId: string;
  runId: string;
  createdAt: Date;
}

export interface StagedOutputs {
  /** Idempotent per storage key. */
  add(entry: StagedOutput): Promise<void>;
  remove(storageKeys: readonly string[]): Promise<void>;
  listForRun(runId: string): Promise<StagedOutput[]>;
  /**
   * Staged files created at or before `before` whose attempt can no longer commit them (its job finished or is
   * held by another attempt) and that no history row points at, oldest first.
   */
  listOrphaned(before: Date, max: number): Promise<StagedOutput[]>;
}
