import { ok, type Result } from '../../domain/result.ts';
import { toCatalogueTemplate, type CatalogueTemplate } from '../../domain/workflow-template.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';

/** What users may run: published, active, live templates with their public parameters and no node wiring. */
export class ListCatalogue {
  constructor(private readonly deps: { templates: TemplateRepository }) {}

  async execute(): Promise<Result<CatalogueTemplate[]>> {
    const templates = await this.deps.templates.list({ offeredOnly: true });
    return ok(templates.map(toCatalogueTemplate));
  }
}
