import { validateParameterMap } from '../../domain/parameter-map.ts';
import type { ReadyTemplate } from '../../domain/ready-templates.ts';
import { ok, type FieldProblem, type Result } from '../../domain/result.ts';
import { checkNewTemplate, type TemplateRules } from '../../domain/template-revision.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export interface InstallReadyTemplatesDeps {
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  rules: TemplateRules;
  ready: readonly ReadyTemplate[];
}

export interface InstallReport {
  /** False when the table already had (or once had) templates: then nothing is installed, ever. */
  installedNow: boolean;
  installed: string[];
  /** Templates this server's rules reject (e.g. ALLOWED_NODE_TYPES without PreviewAny). */
  skipped: { name: string; problems: FieldProblem[] }[];
}

/** Thrown inside the unit of work to roll back when another process installed the templates first. */
class InstalledElsewhere extends Error {}

/**
 * Installs the ready templates into a database that has never held a template, so a fresh installation can
 * generate at once, while an admin who deleted them does not get them back on the next start.
 */
export class InstallReadyTemplates {
  constructor(private readonly deps: InstallReadyTemplatesDeps) {}

  async execute(): Promise<Result<InstallReport>> {
    const { uow, rules, ready } = this.deps;
    const report: InstallReport = { installedNow: false, installed: [], skipped: [] };
    try {
      await uow.run(async ({ templates }) => {
        if ((await templates.countEver()) > 0) return;
        for (const candidate of ready) {
          const built = this.build(candidate, rules);
          if (!built.ok) {
            report.skipped.push({ name: candidate.name, problems: built.details ?? [] });
            continue;
          }
          // A name clash in an empty table means a second process is installing at the same moment.
          if (!(await templates.create(built.value))) throw new InstalledElsewhere();
          report.installed.push(candidate.name);
        }
        report.installedNow = true;
      });
    } catch (error) {
      if (!(error instanceof InstalledElsewhere)) throw error;
      return ok({ installedNow: false, installed: [], skipped: [] });
    }
    return ok(report);
  }

  private build(candidate: ReadyTemplate, rules: TemplateRules): Result<WorkflowTemplate> {
    const fields = checkNewTemplate(
      {
        name: candidate.name,
        description: candidate.description,
        category: candidate.category,
        workflow: candidate.workflow,
        cost: candidate.cost,
        outputType: candidate.outputType,
      },
      rules,
    );
    if (!fields.ok) return fields;
    const map = validateParameterMap(candidate.parameterMap, fields.value.workflow, fields.value.category);
    if (!map.ok) return map;
    const now = this.deps.clock.now();
    return ok({ id: this.deps.ids.newId(), ...fields.value, parameterMap: map.value, publishedAt: now, version: 1, createdAt: now, updatedAt: now });
  }
}
