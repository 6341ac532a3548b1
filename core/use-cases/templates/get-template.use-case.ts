import { ok, type Result } from '../../domain/result.ts';
import { templateIdOf, type WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { templateNotFound } from './template-results.service.ts';

/** One live template, active or not, for administrators. */
export class GetTemplate {
  constructor(private readonly deps: { templates: TemplateRepository }) {}

  async execute(input: { id: unknown }): Promise<Result<WorkflowTemplate>> {
    const id = templateIdOf(input.id);
    if (!id) return templateNotFound();
    const template = await this.deps.templates.findById(id);
    return template ? ok(template) : templateNotFound();
  }
}
