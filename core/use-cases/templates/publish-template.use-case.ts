import { validateParameterMap } from '../../domain/parameter-map.ts';
import { ok, validationFailed, type Result } from '../../domain/result.ts';
import type { TemplateRevision } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { NodeCatalog, ServerCatalogue } from '../../ports/node-catalog.port.ts';
import { judgeOnFleet, withProblems, type TemplateWithProblems } from './fleet-check.service.ts';
import { reviseStoredTemplate, type ReviseTemplateDeps } from './revise-template.service.ts';

export interface PublishTemplateInput {
  actorId: string;
  id: unknown;
  /** True publishes; false takes the template back to a draft (users stop seeing it, its jobs keep their version). */
  publish: boolean;
}

/**
 * Is the template complete enough for users? A parameter map is set and still valid for the workflow and category
 * (step 2 done), and some engine server can run workflow and map.
 */
const checkPublishable = (template: WorkflowTemplate, fleet: ServerCatalogue[] | null): Result<void> => {
  if (Object.keys(template.parameterMap).length === 0) {
    return validationFailed([{ field: 'parameter_map', message: 'is empty: map the parameters users may set (step 2) before publishing' }], 'The template is not complete');
  }
  const map = validateParameterMap(template.parameterMap, template.workflow, template.category);
  if (!map.ok) return validationFailed(map.details ?? [], 'The template is not complete');
  const verdict = judgeOnFleet(fleet, template.workflow, template.parameterMap);
  return verdict.ok ? ok(undefined) : verdict;
};

/**
 * Publishes a draft (users then see and run it, when it is active) or takes a published template back to a draft.
 * Both are audit-logged; asking for the state the template is already in changes and logs nothing.
 */
export class PublishTemplate {
  constructor(private readonly deps: ReviseTemplateDeps & { nodes?: NodeCatalog }) {}

  async execute(input: PublishTemplateInput): Promise<Result<TemplateWithProblems>> {
    const fleet = this.deps.nodes ? await this.deps.nodes.catalogues() : null;
    const revise = (current: WorkflowTemplate): Result<TemplateRevision> => {
      if (input.publish) {
        const complete = checkPublishable(current, fleet);
        if (!complete.ok) return complete;
      }
      const publishedAt = input.publish ? (current.publishedAt ?? this.deps.clock.now()) : null;
      return ok({ next: { ...current, publishedAt }, changed: publishedAt !== current.publishedAt, newVersion: false });
    };
    const result = await reviseStoredTemplate(this.deps, input.id, revise, {
      actorId: input.actorId,
      action: () => (input.publish ? 'template.publish' : 'template.unpublish'),
    });
    return result.ok ? ok(withProblems(fleet, result.value)) : result;
  }
}
