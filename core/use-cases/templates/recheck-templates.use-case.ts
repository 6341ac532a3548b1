import { problemField } from '../../domain/object-info.ts';
import { ok, type Result } from '../../domain/result.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { NodeCatalog } from '../../ports/node-catalog.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { fleetProblems, type ServerProblem } from './fleet-check.service.ts';

export interface TemplateOnFleet {
  templateId: string;
  name: string;
  /** False when no server can run it any more: every job of it would fail. */
  runnable: boolean;
  problems: ServerProblem[];
}

/**
 * After the fleet changed (a server came back with other models or nodes), every active template is checked
 * again; each one some server can no longer run is logged as a warning for operators (administrators see the
 * same problems on the template itself). Nothing is deactivated: the fleet may change back.
 */
export class RecheckTemplates {
  constructor(private readonly deps: { templates: TemplateRepository; nodes: NodeCatalog; logger: Logger }) {}

  async execute(): Promise<Result<TemplateOnFleet[]>> {
    const fleet = await this.deps.nodes.catalogues();
    if (fleet === null) return ok([]);
    const affected: TemplateOnFleet[] = [];
    for (const template of await this.deps.templates.list()) {
      if (!template.isActive) continue;
      const { problems, runnable } = fleetProblems(fleet, template.workflow, template.parameterMap);
      if (problems.length === 0) continue;
      affected.push({ templateId: template.id, name: template.name, runnable, problems });
      this.deps.logger.warn(runnable ? 'template cannot run on some engine servers' : 'template cannot run on any engine server', {
        templateId: template.id,
        name: template.name,
        servers: [...new Set(problems.map((p) => p.server))],
        problems: problems.slice(0, 10).map((p) => `server ${p.server}: ${problemField(p).message}`),
      });
    }
    return ok(affected);
  }
}
