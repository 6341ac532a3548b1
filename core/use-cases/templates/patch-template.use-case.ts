import type { Result } from '../../domain/result.ts';
import { reviseTemplate } from '../../domain/template-revision.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { reviseOnFleet, type TemplateWithProblems } from './fleet-check.service.ts';
import type { ReviseTemplateDeps } from './revise-template.service.ts';
import { patchAction } from './template-audit.service.ts';

export interface PatchTemplateInput {
  actorId: string;
  id: unknown;
  /** Any subset of name, description, category, workflow, cost, outputType, isActive and parameter_map. */
  changes: unknown;
}

/**
 * Changes any fields of a template, validated together (see `reviseTemplate`): a new workflow or category
 * re-checks the map, new or stored. Only a change of workflow or map makes a new version.
 */
export class PatchTemplate {
  constructor(private readonly deps: ReviseTemplateDeps & { nodes?: NodeCatalog }) {}

  execute(input: PatchTemplateInput): Promise<Result<TemplateWithProblems>> {
    return reviseOnFleet(this.deps, input.id, (current) => reviseTemplate(current, input.changes, this.deps.rules), {
      actorId: input.actorId,
      action: patchAction,
    });
  }
}
