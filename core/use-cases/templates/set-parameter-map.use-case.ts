import type { Result } from '../../domain/result.ts';
import { replaceParameterMap } from '../../domain/template-revision.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { reviseOnFleet, type TemplateWithProblems } from './fleet-check.service.ts';
import type { ReviseTemplateDeps } from './revise-template.service.ts';

export interface SetParameterMapInput {
  actorId: string;
  id: unknown;
  /** The whole map: it replaces the stored one. */
  parameterMap: unknown;
}

/**
 * Step 2 of the admin flow: the parameter map, validated against the template's own workflow and category.
 * A different map makes a new version; sending the stored map again changes nothing.
 */
export class SetParameterMap {
  constructor(private readonly deps: ReviseTemplateDeps & { nodes?: NodeCatalog }) {}

  /** Every value a parameter allows must fit the node it fills, on some server. */
  execute(input: SetParameterMapInput): Promise<Result<TemplateWithProblems>> {
    return reviseOnFleet(this.deps, input.id, (current) => replaceParameterMap(current, input.parameterMap, this.deps.rules), {
      actorId: input.actorId,
      action: () => 'template.parameter_map',
    });
  }
}
