import { fail, ok, type Result } from '../../domain/result.ts';
import { templateIdOf, type TemplateVersion } from '../../domain/workflow-template.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { templateNotFound } from './template-results.service.ts';

export interface GetTemplateVersionInput {
  templateId: unknown;
  /** A recorded version (found even when the template was deleted since); omitted: the current version of a live template. */
  version?: number;
}

/**
 * For generation and job history: the workflow and parameter map a job renders (or rendered) from, with
 * category, cost and outputType. It does not judge: callers decide what an inactive or deleted template means.
 */
export class GetTemplateVersion {
  constructor(private readonly deps: { templates: TemplateRepository }) {}

  async execute(input: GetTemplateVersionInput): Promise<Result<TemplateVersion>> {
    const { templates } = this.deps;
    const templateId = templateIdOf(input.templateId);
    if (!templateId) return templateNotFound();
    let version = input.version;
    if (version === undefined) {
      const current = await templates.findById(templateId);
      if (!current) return templateNotFound();
      version = current.version;
    }
    if (!Number.isSafeInteger(version) || version < 1) {
      return fail('NOT_FOUND', `Workflow template version ${String(version)} not found`);
    }
    const found = await templates.findVersion(templateId, version);
    return found ? ok(found) : fail('NOT_FOUND', `Workflow template version ${version} not found`);
  }
}
