import type { Result } from '../../domain/result.ts';
import { replaceParameterMap } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import { reviseStoredTemplate, type ReviseTemplateDeps } from './revise-template.service.ts';

export interface SetParameterMapInput {
  id: unknown;
  /** The whole map: it replaces the stored one. */
  parameterMap: unknown;
}

/**
 * Step 2 of the admin flow: the parameter map, validated against the template's own workflow and category.
 * A different map makes a new version; sending the stored map again changes nothing.
 */
export class SetParameterMap {
  constructor(private readonly deps: ReviseTemplateDeps) {}

  execute(input: SetParameterMapInput): Promise<Result<WorkflowTemplate>> {
    return reviseStoredTemplate(this.deps, input.id, (current) => replaceParameterMap(current, input.parameterMap, this.deps.rules));
  }
}
