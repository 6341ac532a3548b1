import type { GenerationJob, HistoryItem } from '../../domain/job.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import { historyItemView, jobView, type JobView } from './history-view.service.ts';
import { isUuid } from '../../domain/ids.ts';
import type { QueueEstimates } from './queue-estimates.service.ts';

export interface JobQueryDeps {
  jobs: JobRepository;
  history: HistoryRepository;
  viewUrl(item: HistoryItem): Promise<string>;
  /** Queue position and ETA of queued and running jobs (ADR 037). */
  queue: QueueEstimates;
}

/** GET /generate/{id}, GET /generate and the WebSocket snapshot. */
export class JobQueries {
  constructor(private readonly deps: JobQueryDeps) {}

  async get(input: { userId: string; jobId: string }): Promise<Result<JobView>> {
    const found = await this.detail(input);
    return found.ok ? ok(found.value.view) : found;
  }

  /** The job itself (its workflow, its times) beside its view: for surfaces that show more than the view (ADR 040). */
  async detail(input: { userId: string; jobId: string }): Promise<Result<{ job: GenerationJob; view: JobView }>> {
    if (!isUuid(input.jobId)) return fail('NOT_FOUND', 'No such job');
    const job = await this.deps.jobs.findForUser(input.jobId.toLowerCase(), input.userId);
    if (!job) return fail('NOT_FOUND', 'No such job');
    return ok({ job, view: await this.view(job) });
  }

  async list(input: { userId: string; page?: unknown; limit?: unknown }): Promise<Result<Page<JobView>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    const page = await this.deps.jobs.listForUser(input.userId, request.value);
    return ok({ ...page, items: await Promise.all(page.items.map((job) => this.view(job))) });
  }

  async active(userId: string): Promise<JobView[]> {
    const jobs = await this.deps.jobs.listActiveForUser(userId);
    return Promise.all(jobs.map((job) => this.view(job)));
  }

  async view(job: Parameters<typeof jobView>[0]): Promise<JobView> {
    const items = job.status === 'succeeded' || job.status === 'running' ? await this.deps.history.listForJob(job.id) : [];
    const view = jobView(job, await Promise.all(items.map((item) => historyItemView(item, this.deps.viewUrl))));
    return { ...view, ...(await this.deps.queue.of(job)) };
  }
}
