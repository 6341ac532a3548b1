import { ok, type Result } from '../../domain/result.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { withProblems, type TemplateWithProblems } from './fleet-check.service.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';

/** Every live template, active or not, for administrators. */
export class ListTemplates {
  constructor(private readonly deps: { templates: TemplateRepository; nodes?: NodeCatalog }) {}

  /** With a node catalogue, each template carries the problems of the servers that cannot run it. */
  async execute(): Promise<Result<TemplateWithProblems[]>> {
    const templates = await this.deps.templates.list();
    if (!this.deps.nodes) return ok(templates);
    const fleet = await this.deps.nodes.catalogues();
    return ok(templates.map((t) => withProblems(fleet, t)));
  }
}
