import { sourcesOf, storedProgress, storedStatusText, type GenerationJob, type JobStatus, type JobSummary } from '../../core/domain/job.ts';
import { offsetOf, pageOf, rowCount, type Page, type PageRequest } from '../../core/domain/pagination.ts';
import { serveOrder, type QueueOrder } from '../../core/domain/queue-order.ts';
import { CHOICES_WINDOW } from '../../core/domain/run-estimate.ts';
import type { JobChanges, JobMove, JobRepository, NewJob, QueuedAhead, RunningWork } from '../../core/ports/job-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';
import { failureRateOf, nearestRank, type TemplateStats } from '../../core/domain/template-stats.ts';

const apply = (job: GenerationJob, update: JobChanges, at: Date): void => {
  job.updatedAt = at;
  // Objects are copied, as the SQL stores keep them serialized: the caller may go on changing its own.
  // Progress and status text as the SQL columns hold them (storedProgress, storedStatusText).
  if (update.progress) job.progress = storedProgress(update.progress);
  if (update.statusText !== undefined) job.statusText = storedStatusText(update.statusText);
  if (update.error !== undefined) job.error = structuredClone(update.error);
  if (update.textOutputs) job.textOutputs = structuredClone(update.textOutputs);
  if (update.attempts !== undefined) job.attempts = update.attempts;
  if (update.startedAt) job.startedAt = update.startedAt;
  if (update.finishedAt) job.finishedAt = update.finishedAt;
  if (update.leaseUntil !== undefined) job.leaseUntil = update.leaseUntil;
  if (update.engineServer !== undefined) job.engineServer = update.engineServer;
  if (update.retryAt !== undefined) job.retryAt = update.retryAt;
};

const copy = (job: GenerationJob): GenerationJob => structuredClone(job);
/** A copy without the workflow, as the lists give it. */
const summary = ({ workflow: _workflow, ...rest }: GenerationJob): JobSummary => structuredClone(rest);

export class MemoryJobRepository implements JobRepository {
  private readonly jobs: Map<string, GenerationJob>;
  private readonly announced: Map<string, number>;

  constructor(store: MemoryStore) {
    this.jobs = store.table<GenerationJob>('generation_jobs');
    this.announced = store.table<number>('generation_jobs_announced_position');
  }

  async create(job: NewJob): Promise<boolean> {
    if (this.jobs.has(job.id)) return false;
    this.jobs.set(job.id, structuredClone({ ...job, refundedCoins: 0, error: null, textOutputs: [], attempts: 0, runId: null, leaseUntil: null, updatedAt: job.createdAt, startedAt: null, finishedAt: null, engineServer: null, retryAt: null }));
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

  async findSummaryForUser(id: string, userId: string): Promise<JobSummary | null> {
    const job = this.jobs.get(id);
    return job && job.userId === userId ? summary(job) : null;
  }

  async listForUser(userId: string, request: PageRequest): Promise<Page<JobSummary>> {
    const mine = [...this.jobs.values()].filter((job) => job.userId === userId && !job.testRun).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
    const start = offsetOf(request);
    return pageOf(mine.slice(start, start + request.limit).map(summary), request, mine.length);
  }

  async listTestRuns(templateId: string, max: number): Promise<GenerationJob[]> {
    return [...this.jobs.values()]
      .filter((job) => job.testRun && job.templateId === templateId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id))
      .slice(0, rowCount(max))
      .map(copy);
  }

  async listActiveForUser(userId: string): Promise<JobSummary[]> {
    return [...this.jobs.values()]
      .filter((job) => job.userId === userId && (job.status === 'queued' || job.status === 'running'))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .slice(0, 100)
      .map(summary);
  }

  async templateStats(since: Date): Promise<TemplateStats[]> {
    const byTemplate = new Map<string, GenerationJob[]>();
    for (const job of this.jobs.values()) {
      if (job.templateId !== null && job.createdAt.getTime() >= since.getTime()) byTemplate.set(job.templateId, [...(byTemplate.get(job.templateId) ?? []), job]);
    }
    return [...byTemplate.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([templateId, jobs]) => {
        const count = (status: JobStatus) => jobs.filter((job) => job.status === status).length;
        const runs = jobs
          .filter((job) => job.status === 'succeeded' && job.startedAt && job.finishedAt)
          .map((job) => job.finishedAt!.getTime() - job.startedAt!.getTime())
          .sort((a, b) => a - b);
        const [succeeded, failed, cancelled] = [count('succeeded'), count('failed'), count('cancelled')];
        return { templateId, jobs: jobs.length, succeeded, failed, cancelled, failureRate: failureRateOf(succeeded, failed), p50RunMs: nearestRank(runs, 50), p95RunMs: nearestRank(runs, 95) };
      });
  }

  async listByStatus(statuses: readonly JobStatus[], request: PageRequest): Promise<Page<JobSummary>> {
    const matching = [...this.jobs.values()].filter((job) => statuses.includes(job.status)).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    const start = offsetOf(request);
    return pageOf(matching.slice(start, start + request.limit).map(summary), request, matching.length);
  }

  /** The memory unit of work runs one transaction at a time: the count is exclusive as it is. */
  async countActiveForUserExclusively(userId: string): Promise<number> {
    return [...this.jobs.values()].filter((job) => job.userId === userId && (job.status === 'queued' || job.status === 'running')).length;
  }

  async transition(id: string, move: JobMove, at: Date): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || !sourcesOf(move.to).includes(job.status)) return false;
    if (move.fence !== undefined && job.runId !== move.fence) return false;
    job.status = move.to;
    if (move.runId !== undefined) job.runId = move.runId;
    apply(job, move.changes ?? {}, at);
    return true;
  }

  async updateRunning(id: string, fence: string, changes: JobChanges, at: Date): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || job.status !== 'running' || job.runId !== fence) return false;
    apply(job, changes, at);
    return true;
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

  async listUnrefunded(statuses: readonly JobStatus[], max: number): Promise<GenerationJob[]> {
    return [...this.jobs.values()]
      .filter((job) => statuses.includes(job.status) && job.refundedCoins === 0 && job.paidCoins > 0)
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())
      .slice(0, rowCount(max))
      .map(copy);
  }

  async announcePosition(id: string, position: number): Promise<boolean> {
    if (this.jobs.get(id)?.status !== 'queued' || this.announced.get(id) === position) return false;
    this.announced.set(id, position);
    return true;
  }

  async queuedAhead(jobs: readonly Pick<GenerationJob, 'id' | 'createdAt' | 'queueTurn'>[], order: QueueOrder): Promise<QueuedAhead[][]> {
    const line = serveOrder([...this.jobs.values()].filter((other) => other.status === 'queued'), order);
    return jobs.map((job) => aheadIn(line, job.id));
  }

  async recentRunTimes(templateId: string | null, max: number, servers?: readonly number[], fitChoices?: string): Promise<number[]> {
    const ranOn = (job: GenerationJob) => servers === undefined || (job.engineServer !== null && servers.includes(job.engineServer));
    const byFinish = (a: GenerationJob, b: GenerationJob) => b.finishedAt!.getTime() - a.finishedAt!.getTime() || (a.id < b.id ? 1 : -1);
    const recent = [...this.jobs.values()]
      .filter((job) => job.status === 'succeeded' && job.startedAt && job.finishedAt && (templateId === null || job.templateId === templateId) && ranOn(job))
      .sort(byFinish);
    const chosen = fitChoices !== undefined ? recent.slice(0, CHOICES_WINDOW).filter((job) => job.fitChoices === fitChoices) : recent;
    return chosen.slice(0, rowCount(max)).map((job) => job.finishedAt!.getTime() - job.startedAt!.getTime());
  }

  async runningWork(max: number): Promise<RunningWork[]> {
    const start = (job: GenerationJob) => (job.startedAt ?? job.createdAt).getTime();
    return [...this.jobs.values()]
      .filter((job) => job.status === 'running')
      .sort((a, b) => start(a) - start(b) || (a.id < b.id ? -1 : 1))
      .slice(0, rowCount(max))
      .map((job) => ({ templateId: job.templateId, fitChoices: job.fitChoices, engineServer: job.engineServer, startedAt: new Date(start(job)), retryAt: job.retryAt && new Date(job.retryAt) }));
  }

  async listPastStartDeadline(now: Date, max: number): Promise<GenerationJob[]> {
    return [...this.jobs.values()]
      .filter((job) => job.status === 'queued' && job.startDeadline !== null && job.startDeadline <= now)
      .sort((a, b) => a.startDeadline!.getTime() - b.startDeadline!.getTime())
      .slice(0, rowCount(max))
      .map(copy);
  }

  async listStalled(before: Date, max: number): Promise<GenerationJob[]> {
    return [...this.jobs.values()]
      .filter((job) => job.status === 'running' && job.leaseUntil !== null && job.leaseUntil < before)
      .sort((a, b) => a.leaseUntil!.getTime() - b.leaseUntil!.getTime())
      .slice(0, rowCount(max))
      .map(copy);
  }
}

/** The queued jobs ahead of `id` in `line` (the queued jobs in the queue's order), per template and choices, sorted as the SQL store sorts them; none when `id` is not in line. */
function aheadIn(line: readonly GenerationJob[], id: string): QueuedAhead[] {
  const place = line.findIndex((other) => other.id === id);
  const groups = new Map<string, QueuedAhead>();
  for (const other of line.slice(0, Math.max(0, place))) {
    const key = JSON.stringify([other.templateId, other.fitChoices]);
    const group = groups.get(key) ?? { templateId: other.templateId, fitChoices: other.fitChoices, count: 0 };
    group.count += 1;
    groups.set(key, group);
  }
  const byTemplate = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
  return [...groups.values()].sort((a, b) => byTemplate(a.templateId, b.templateId) || (a.fitChoices < b.fitChoices ? -1 : a.fitChoices > b.fitChoices ? 1 : 0));
}
