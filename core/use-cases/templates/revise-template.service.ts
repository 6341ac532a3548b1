import { ok, type Result } from '../../domain/result.ts';
import type { TemplateRevision, TemplateRules } from '../../domain/template-revision.ts';
import { templateIdOf, templateNameKey, type WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { AuditAction } from '../../domain/audit.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { changedFields, recordTemplateAudit } from './template-audit.service.ts';
import { templateNameTaken, templateNotFound } from './template-results.service.ts';

export interface ReviseTemplateDeps {
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  rules: TemplateRules;
}

/** The administrator making the change and how the audit log names it (chosen from the states before and after). */
export interface RevisionAudit {
  actorId: string;
  action: (before: WorkflowTemplate, after: WorkflowTemplate) => AuditAction;
}

/**
 * The shared write path of PUT parameter-map and PATCH: lock the row, compute the revision from what is
 * stored now, save it. Two admins editing at once are serialised, so neither silently undoes the other.
 * A change is audit-logged in its own transaction; a request that changes nothing writes nothing.
 */
export const reviseStoredTemplate = (
  deps: ReviseTemplateDeps,
  rawId: unknown,
  revise: (current: WorkflowTemplate) => Result<TemplateRevision>,
  audit: RevisionAudit,
): Promise<Result<WorkflowTemplate>> => {
  const id = templateIdOf(rawId);
  if (!id) return Promise.resolve(templateNotFound());
  const { uow, clock } = deps;
  return uow.run(async (tx): Promise<Result<WorkflowTemplate>> => {
    const { templates } = tx;
    const current = await templates.findById(id, { forUpdate: true });
    if (!current) return templateNotFound();
    const revision = revise(current);
    if (!revision.ok) return revision;
    const { next, changed, newVersion } = revision.value;
    if (!changed) return ok(current);
    if (templateNameKey(next.name) !== templateNameKey(current.name) && (await templates.nameTaken(next.name, id))) {
      return templateNameTaken(next.name);
    }
    next.updatedAt = clock.now();
    const outcome = await templates.update(next, { newVersion });
    if (outcome === 'not_found') return templateNotFound();
    if (outcome === 'name_taken') return templateNameTaken(next.name);
    await recordTemplateAudit(tx, deps, audit.actorId, audit.action(current, next), next, changedFields(current, next));
    return ok(next);
  });
};
