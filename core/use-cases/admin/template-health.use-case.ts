import { ok, validationFailed, type Result } from '../../domain/result.ts';
import type { TemplateStats } from '../../domain/template-stats.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';

export const MAX_WINDOW_HOURS = 24 * 90;

export interface TemplateHealthView {
  since: Date;
  hours: number;
  /** Per template with jobs in the window; `name` is null for a template deleted since. */
  templates: (TemplateStats & { name: string | null })[];
}

/** How each template's jobs of the last `hours` (default 24) fared, computed by the database over the jobs table. */
export class TemplateHealth {
  constructor(private readonly deps: { jobs: JobRepository; templates: TemplateRepository; clock: Clock }) {}

  async execute(input: { hours?: unknown }): Promise<Result<TemplateHealthView>> {
    const hours = input.hours === undefined || input.hours === '' ? 24 : Number(input.hours);
    if (!Number.isInteger(hours) || hours < 1 || hours > MAX_WINDOW_HOURS) return validationFailed([{ field: 'hours', message: `must be an integer from 1 to ${MAX_WINDOW_HOURS}` }]);
    const since = new Date(this.deps.clock.now().getTime() - hours * 3600_000);
    const [stats, live] = await Promise.all([this.deps.jobs.templateStats(since), this.deps.templates.list()]);
    const names = new Map(live.map((template) => [template.id, template.name]));
    return ok({ since, hours, templates: stats.map((row) => ({ ...row, name: names.get(row.templateId) ?? null })) });
  }
}
