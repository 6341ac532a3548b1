import { ok, type Result } from '../../domain/result.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';

/** Every live template, active or not, for administrators. */
export class ListTemplates {
  constructor(private readonly deps: { templates: TemplateRepository }) {}

  async execute(): Promise<Result<WorkflowTemplate[]>> {
    return ok(await this.deps.templates.list());
  }
}
