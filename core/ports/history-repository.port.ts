import type { HistoryItem } from '../domain/job.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';

export interface HistoryRepository {
  /** Idempotent per (jobId, fileName): a second insert of the same file returns false and changes nothing. */
  add(item: HistoryItem): Promise<boolean>;
  findForUser(id: string, userId: string): Promise<HistoryItem | null>;
  /** The user's outputs, newest first, without those of test runs of templates (ADR 043). */
  listForUser(userId: string, request: PageRequest): Promise<Page<HistoryItem>>;
  listForJob(jobId: string): Promise<HistoryItem[]>;
  /** The items of several jobs in one read (a page of the job list), each job's oldest first; none for no jobs. */
  listForJobs(jobIds: readonly string[]): Promise<HistoryItem[]>;
  delete(id: string): Promise<void>;
  /** Every item the user owns, test runs' included, oldest first, at most `max`: what a deleted account's purge removes. */
  listAllForUser(userId: string, max: number): Promise<HistoryItem[]>;
  /** Items whose expiresAt is at or before `before`, at most `max`. */
  listExpired(before: Date, max: number): Promise<HistoryItem[]>;
}
