import { ok, type Result } from '../../domain/result.ts';
import { templateIdOf } from '../../domain/workflow-template.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { withProblems, type TemplateWithProblems } from './fleet-check.service.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { templateNotFound } from './template-results.service.ts';

/** One live template, active or not, for administrators. */
export class GetTemplate {
  constructor(private readonly deps: { templates: TemplateRepository; nodes?: NodeCatalog }) {}

  /** With a node catalogue, the template carries the problems of the servers that cannot run it (the fleet may have changed since it was saved). */
  async execute(input: { id: unknown }): Promise<Result<TemplateWithProblems>> {
    const id = templateIdOf(input.id);
    if (!id) return templateNotFound();
    const template = await this.deps.templates.findById(id);
    if (!template) return templateNotFound();
    return ok(this.deps.nodes ? withProblems(await this.deps.nodes.catalogues(), template) : template);
  }
}
