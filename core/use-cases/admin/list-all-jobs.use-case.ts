import { JOB_STATUSES, type JobStatus, type JobSummary } from '../../domain/job.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { ok, validationFailed, type Result } from '../../domain/result.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';

export interface AdminJobView {
  job: JobSummary;
  /** Null when the user is gone. */
  userEmail: string | null;
}

const STATUS_PROBLEM = `must be a comma-separated list of ${JOB_STATUSES.join(', ')}`;

/** `queued,running` by default; unknown names are a validation failure, not ignored. */
export function parseStatuses(value: unknown): Result<JobStatus[]> {
  if (value === undefined || value === '') return ok(['queued', 'running']);
  if (typeof value !== 'string') return validationFailed([{ field: 'status', message: STATUS_PROBLEM }]);
  const names = value.split(',').map((name) => name.trim());
  if (!names.every((name): name is JobStatus => (JOB_STATUSES as readonly string[]).includes(name))) return validationFailed([{ field: 'status', message: STATUS_PROBLEM }]);
  return ok([...new Set(names)]);
}

/** Every user's jobs in the given statuses, oldest first, each with its owner's email. */
export class ListAllJobs {
  constructor(private readonly deps: { jobs: JobRepository; users: UserRepository }) {}

  async execute(input: { status?: unknown; page?: unknown; limit?: unknown }): Promise<Result<Page<AdminJobView>>> {
    const statuses = parseStatuses(input.status);
    const request = parsePageRequest(input);
    if (!statuses.ok) return statuses;
    if (!request.ok) return request;
    const page = await this.deps.jobs.listByStatus(statuses.value, request.value);
    const owners = [...new Set(page.items.map((job) => job.userId))];
    const emails = new Map(await Promise.all(owners.map(async (id) => [id, (await this.deps.users.findById(id))?.email] as const)));
    return ok({ ...page, items: page.items.map((job) => ({ job, userEmail: emails.get(job.userId) ?? null })) });
  }
}
