import { ok, type Result } from '../../domain/result.ts';
import { templateIdOf } from '../../domain/workflow-template.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { templateNotFound } from './template-results.service.ts';

/**
 * Soft delete: the template leaves every list and lookup and its name is free again, while its versions stay
 * readable (GetTemplateVersion) for the jobs that ran them.
 */
export class DeleteTemplate {
  constructor(private readonly deps: { templates: TemplateRepository; clock: Clock }) {}

  async execute(input: { id: unknown }): Promise<Result<void>> {
    const id = templateIdOf(input.id);
    if (!id) return templateNotFound();
    const deleted = await this.deps.templates.softDelete(id, this.deps.clock.now());
    return deleted ? ok(undefined) : templateNotFound();
  }
}
