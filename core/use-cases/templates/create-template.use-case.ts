import { ok, type Result } from '../../domain/result.ts';
import { checkNewTemplate, type TemplateRules } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { checkOnFleet, type TemplateWithProblems } from './fleet-check.service.ts';
import { templateNameTaken } from './template-results.service.ts';

export interface CreateTemplateDeps {
  templates: TemplateRepository;
  ids: IdGenerator;
  clock: Clock;
  rules: TemplateRules;
  /** When bound, a workflow no engine server can run (ComfyUI's own checks against each /object_info) is refused. */
  nodes?: NodeCatalog;
}

/**
 * Step 1 of the admin flow: name, category, workflow, cost, output type. The parameter map starts empty and is
 * set in step 2 (SetParameterMap), once the admin has seen the stored, validated workflow.
 */
export class CreateTemplate {
  constructor(private readonly deps: CreateTemplateDeps) {}

  async execute(input: unknown): Promise<Result<TemplateWithProblems>> {
    const { templates, ids, clock, rules } = this.deps;
    const checked = checkNewTemplate(input, rules);
    if (!checked.ok) return checked;
    const fields = checked.value;
    const fleet = await checkOnFleet(this.deps.nodes, fields.workflow);
    if (!fleet.ok) return fleet;
    if (await templates.nameTaken(fields.name)) return templateNameTaken(fields.name);
    const now = clock.now();
    const template: WorkflowTemplate = { id: ids.newId(), ...fields, parameterMap: {}, version: 1, createdAt: now, updatedAt: now };
    // The unique index decides a race between two creators of the same name.
    if (!(await templates.create(template))) return templateNameTaken(fields.name);
    return ok(this.deps.nodes ? { ...template, problems: fleet.problems } : template);
  }
}
