import type { Result } from '../../domain/result.ts';
import { reviseTemplate } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import { isPlainObject } from '../../domain/workflow-graph.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { unknownNodeTypes } from './known-nodes.service.ts';
import { reviseStoredTemplate, type ReviseTemplateDeps } from './revise-template.service.ts';

export interface PatchTemplateInput {
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

  async execute(input: PatchTemplateInput): Promise<Result<WorkflowTemplate>> {
    // Asked before the row is locked: the catalogue may be a network call.
    const workflow = isPlainObject(input.changes) ? input.changes['workflow'] : undefined;
    const unknown = await unknownNodeTypes(this.deps.nodes, workflow);
    if (unknown) return unknown;
    return reviseStoredTemplate(this.deps, input.id, (current) => reviseTemplate(current, input.changes, this.deps.rules));
  }
}
