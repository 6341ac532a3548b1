import { ok, type Result } from '../../domain/result.ts';
import { checkNewTemplate, type TemplateRules } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import { checkOnFleet, type TemplateWithProblems } from './fleet-check.service.ts';
import { recordTemplateAudit } from './template-audit.service.ts';
import { templateNameTaken } from './template-results.service.ts';

export interface CreateTemplateDeps {
  templates: TemplateRepository;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  rules: TemplateRules;
  /** When bound, a workflow no engine server can run (ComfyUI's own checks against each /object_info) is refused. */
  nodes?: NodeCatalog;
}

/**
 * Step 1 of the admin flow: name, category, workflow, cost, output type. The parameter map starts empty and is
 * set in step 2 (SetParameterMap), once the admin has seen the stored, validated workflow. A new template is a
 * draft: users neither see nor run it until it is published (PublishTemplate).
 */
export class CreateTemplate {
  constructor(private readonly deps: CreateTemplateDeps) {}

  async execute(input: { actorId: string; fields: unknown }): Promise<Result<TemplateWithProblems>> {
    const { templates, uow, ids, clock, rules } = this.deps;
    const checked = checkNewTemplate(input.fields, rules);
    if (!checked.ok) return checked;
    const fields = checked.value;
    const fleet = await checkOnFleet(this.deps.nodes, fields.workflow);
    if (!fleet.ok) return fleet;
    if (await templates.nameTaken(fields.name)) return templateNameTaken(fields.name);
    const now = clock.now();
    const template: WorkflowTemplate = { id: ids.newId(), ...fields, parameterMap: {}, publishedAt: null, version: 1, createdAt: now, updatedAt: now };
    // The unique index decides a race between two creators of the same name.
    const created = await uow.run(async (tx) => {
      if (!(await tx.templates.create(template))) return false;
      await recordTemplateAudit(tx, this.deps, input.actorId, 'template.create', template, []);
      return true;
    });
    if (!created) return templateNameTaken(fields.name);
    return ok(this.deps.nodes ? { ...template, problems: fleet.problems } : template);
  }
}
