import type { GenerationJob, HistoryItem } from '../../core/domain/job.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

export class MemoryHistoryRepository implements HistoryRepository {
  private readonly items: Map<string, HistoryItem>;
  private readonly jobs: Map<string, GenerationJob>;

  constructor(store: MemoryStore) {
    this.items = store.table<HistoryItem>('history_items');
    this.jobs = store.table<GenerationJob>('generation_jobs');
  }

  async add(item: HistoryItem): Promise<boolean> {
    for (const existing of this.items.values()) if (existing.jobId === item.jobId && existing.fileName === item.fileName) return false;
    this.items.set(item.id, structuredClone(item));
    return true;
  }

  async findForUser(id: string, userId: string): Promise<HistoryItem | null> {
    const item = this.items.get(id);
    return item && item.userId === userId ? structuredClone(item) : null;
  }

  async listForUser(userId: string, request: PageRequest): Promise<Page<HistoryItem>> {
    // Outputs of test runs are the administrators' (ADR 043), read through the template's test runs.
    const mine = [...this.items.values()].filter((item) => item.userId === userId && !this.jobs.get(item.jobId)?.testRun).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const start = offsetOf(request);
    return pageOf(mine.slice(start, start + request.limit).map((item) => structuredClone(item)), request, mine.length);
  }

  async listForJob(jobId: string): Promise<HistoryItem[]> {
    return [...this.items.values()].filter((item) => item.jobId === jobId).map((item) => structuredClone(item));
  }

  async listForJobs(jobIds: readonly string[]): Promise<HistoryItem[]> {
    const wanted = new Set(jobIds);
    return [...this.items.values()]
      .filter((item) => wanted.has(item.jobId))
      .sort((a, b) => a.jobId.localeCompare(b.jobId) || a.createdAt.getTime() - b.createdAt.getTime() || a.fileName.localeCompare(b.fileName))
      .map((item) => structuredClone(item));
  }

  async delete(id: string): Promise<void> {
    this.items.delete(id);
  }

  async listAllForUser(userId: string, max: number): Promise<HistoryItem[]> {
    return [...this.items.values()]
      .filter((item) => item.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .slice(0, max)
      .map((item) => structuredClone(item));
  }

  async listExpired(before: Date, max: number): Promise<HistoryItem[]> {
    return [...this.items.values()].filter((item) => item.expiresAt <= before).slice(0, max).map((item) => structuredClone(item));
  }
}
