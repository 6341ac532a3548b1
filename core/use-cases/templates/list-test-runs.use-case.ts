import { isUuid } from '../../domain/ids.ts';
import type { JobView } from '../../domain/job-views.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import type { JobQueries } from '../generation/job-queries.service.ts';

export interface ListTestRunsDeps {
  templates: TemplateRepository;
  jobs: JobRepository;
  /** The job views users get (outputs with signed view URLs, queue position), for test runs too. */
  queries: Pick<JobQueries, 'view'>;
}

/** How many of a template's latest test runs are listed. */
export const TEST_RUNS_LISTED = 20;

/** GET /admin/templates/{id}/test-runs (ADR 043): the template's latest test runs, every administrator's, newest first, with their outputs. */
export class ListTestRuns {
  constructor(private readonly deps: ListTestRunsDeps) {}

  async execute(input: { templateId: unknown }): Promise<Result<JobView[]>> {
    if (!isUuid(input.templateId)) return fail('NOT_FOUND', 'No such template');
    const template = await this.deps.templates.findById(input.templateId.toLowerCase());
    if (!template) return fail('NOT_FOUND', 'No such template');
    const jobs = await this.deps.jobs.listTestRuns(template.id, TEST_RUNS_LISTED);
    return ok(await Promise.all(jobs.map((job) => this.deps.queries.view(job))));
  }
}
