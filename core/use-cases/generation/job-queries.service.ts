import type { GenerationJob, HistoryItem } from '../../domain/job.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import { historyItemView, jobView, type JobView } from './history-view.service.ts';
import { isUuid } from '../../domain/ids.ts';
import type { EstimatedJob, QueueEstimates } from './queue-estimates.service.ts';

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

  /** Polled by clients: the job without its workflow, which the view does not show. */
  async get(input: { userId: string; jobId: string }): Promise<Result<JobView>> {
    const job = await this.owned(input, (id, userId) => this.deps.jobs.findSummaryForUser(id, userId));
    return job ? ok(await this.view(job)) : notFound();
  }

  /** The job itself (its workflow, its times) beside its view: for surfaces that show more than the view (ADR 040). */
  async detail(input: { userId: string; jobId: string }): Promise<Result<{ job: GenerationJob; view: JobView }>> {
    const job = await this.owned(input, (id, userId) => this.deps.jobs.findForUser(id, userId));
    return job ? ok({ job, view: await this.view(job) }) : notFound();
  }

  /** The caller's job by an id as a client wrote it (a UUID, any case); null when it is not a UUID or not theirs. */
  private owned<T>(input: { userId: string; jobId: string }, find: (id: string, userId: string) => Promise<T | null>): Promise<T | null> {
    return isUuid(input.jobId) ? find(input.jobId.toLowerCase(), input.userId) : Promise.resolve(null);
  }

  async list(input: { userId: string; page?: unknown; limit?: unknown }): Promise<Result<Page<JobView>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    const page = await this.deps.jobs.listForUser(input.userId, request.value);
    return ok({ ...page, items: await this.views(page.items) });
  }

  async active(userId: string): Promise<JobView[]> {
    return this.views(await this.deps.jobs.listActiveForUser(userId));
  }

  async view(job: ViewedJob): Promise<JobView> {
    return (await this.views([job]))[0]!;
  }

  /** Views of several jobs with one read of their outputs and one set of queue estimates (not one of each per job). */
  private async views(jobs: readonly ViewedJob[]): Promise<JobView[]> {
    const withOutputs = jobs.filter((job) => job.status === 'succeeded' || job.status === 'running').map((job) => job.id);
    const [items, estimates] = await Promise.all([this.deps.history.listForJobs(withOutputs), this.deps.queue.ofMany(jobs)]);
    const byJob = new Map<string, HistoryItem[]>();
    for (const item of items) {
      const list = byJob.get(item.jobId);
      if (list) list.push(item);
      else byJob.set(item.jobId, [item]);
    }
    return Promise.all(
      jobs.map(async (job, i) => ({
        ...jobView(job, await Promise.all((byJob.get(job.id) ?? []).map((item) => historyItemView(item, this.deps.viewUrl)))),
        ...estimates[i]!,
      })),
    );
  }
}

type ViewedJob = Parameters<typeof jobView>[0] & EstimatedJob;

const notFound = () => fail('NOT_FOUND', 'No such job');
