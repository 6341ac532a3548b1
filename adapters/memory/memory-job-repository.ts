import type { GenerationJob, JobStatus } from '../../core/domain/job.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import type { JobRepository, JobUpdate, NewJob } from '../../core/ports/job-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

const apply = (job: GenerationJob, update: JobUpdate, at: Date): void => {
  job.updatedAt = at;
  if (update.progress) job.progress = { ...update.progress };
  if (update.statusText !== undefined) job.statusText = update.statusText;
  if (update.error !== undefined) job.error = update.error;
  if (update.textOutputs) job.textOutputs = update.textOutputs;
  if (update.attempts !== undefined) job.attempts = update.attempts;
  if (update.startedAt) job.startedAt = update.startedAt;
  if (update.finishedAt) job.finishedAt = update.finishedAt;
};

const copy = (job: GenerationJob): GenerationJob => structuredClone(job);

export class MemoryJobRepository implements JobRepository {
  private readonly jobs: Map<string, GenerationJob>;

  constructor(store: MemoryStore) {
    this.jobs = store.table<GenerationJob>('generation_jobs');
  }

  async create(job: NewJob): Promise<boolean> {
    if (this.jobs.has(job.id)) return false;
    this.jobs.set(job.id, structuredClone({ ...job, refundedCoins: 0, error: null, textOutputs: [], attempts: 0, updatedAt: job.createdAt, startedAt: null, finishedAt: null }));
    return true;
  }

  async findById(id: string): Promise<GenerationJob | null> {
    const job = this.jobs.get(id);
    return job ? copy(job) : null;
  }

  async findForUser(id: string, userId: string): Promise<GenerationJob | null> {
    const job = this.jobs.get(id);
    return job && job.userId === userId ? copy(job) : null;
  }

  async listForUser(userId: string, request: PageRequest): Promise<Page<GenerationJob>> {
    const mine = [...this.jobs.values()].filter((job) => job.userId === userId).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const start = offsetOf(request);
    return pageOf(mine.slice(start, start + request.limit).map(copy), request, mine.length);
  }

  async listActiveForUser(userId: string): Promise<GenerationJob[]> {
    return [...this.jobs.values()].filter((job) => job.userId === userId && (job.status === 'queued' || job.status === 'running')).map(copy);
  }

  async transition(id: string, from: readonly JobStatus[], to: JobStatus, update: JobUpdate, at: Date): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || !from.includes(job.status)) return false;
    job.status = to;
    apply(job, update, at);
    return true;
  }

  async update(id: string, update: JobUpdate, at: Date): Promise<void> {
    const job = this.jobs.get(id);
    if (job && (job.status === 'queued' || job.status === 'running')) apply(job, update, at);
  }

  async markRefunded(id: string, amount: number, at: Date): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || job.refundedCoins > 0) return false;
    job.refundedCoins = amount;
    job.updatedAt = at;
    return true;
  }

  async countForTemplate(templateId: string): Promise<number> {
    return [...this.jobs.values()].filter((job) => job.templateId === templateId).length;
  }
}
