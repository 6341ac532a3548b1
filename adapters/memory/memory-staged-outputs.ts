import type { GenerationJob, HistoryItem } from '../../core/domain/job.ts';
import type { StagedOutput, StagedOutputs } from '../../core/ports/staged-outputs.port.ts';
import type { MemoryStore } from './memory-store.ts';
import { rowCount } from '../../core/domain/pagination.ts';

export class MemoryStagedOutputs implements StagedOutputs {
  private readonly staged: Map<string, StagedOutput>;

  constructor(private readonly store: MemoryStore) {
    this.staged = store.table<StagedOutput>('staged_outputs');
  }

  async add(entry: StagedOutput): Promise<void> {
    if (!this.staged.has(entry.storageKey)) this.staged.set(entry.storageKey, structuredClone(entry));
  }

  async remove(storageKeys: readonly string[]): Promise<void> {
    for (const key of storageKeys) this.staged.delete(key);
  }

  async listForRun(runId: string): Promise<StagedOutput[]> {
    return [...this.staged.values()].filter((entry) => entry.runId === runId).map((entry) => structuredClone(entry));
  }

  async listOrphaned(before: Date, max: number): Promise<StagedOutput[]> {
    const jobs = this.store.table<GenerationJob>('generation_jobs');
    const referenced = new Set([...this.store.table<HistoryItem>('history_items').values()].map((item) => item.storageKey));
    return [...this.staged.values()]
      .filter((entry) => {
        const job = jobs.get(entry.jobId);
        const live = job !== undefined && job.status === 'running' && job.runId === entry.runId;
        return entry.createdAt <= before && !live && !referenced.has(entry.storageKey);
      })
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, rowCount(max))
      .map((entry) => structuredClone(entry));
  }
}
