import { ok, type Result } from '../../domain/result.ts';
import { isOffered, templateIdOf, toCatalogueTemplate, type CatalogueTemplate } from '../../domain/workflow-template.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { templateNotFound } from './template-results.service.ts';

/** One template as users see it; a draft or inactive template is "not found" to them, like a deleted one. */
export class GetCatalogueTemplate {
  constructor(private readonly deps: { templates: TemplateRepository }) {}

  async execute(input: { id: unknown }): Promise<Result<CatalogueTemplate>> {
    const id = templateIdOf(input.id);
    if (!id) return templateNotFound();
    const template = await this.deps.templates.findById(id);
    if (!template || !isOffered(template)) return templateNotFound();
    return ok(toCatalogueTemplate(template));
  }
}
