import type { AuditAction } from '../../domain/audit.ts';
import { sameValue } from '../../domain/render-workflow.ts';
import type { WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';

/** Who changes a template, for its audit entry (written in the change's own transaction). */
export interface TemplateActor {
  actorId: string;
}

const FIELDS = ['name', 'description', 'category', 'workflow', 'parameterMap', 'cost', 'outputType', 'isActive', 'publishedAt'] as const;

/** The names of the fields that differ between two states of a template, in a fixed order. */
export const changedFields = (before: WorkflowTemplate, after: WorkflowTemplate): string[] =>
  FIELDS.filter((field) => {
    const [a, b] = [before[field], after[field]];
    return a instanceof Date || b instanceof Date ? a?.valueOf() !== b?.valueOf() : !sameValue(a, b);
  });

/** A PATCH that only switches `isActive` reads as what it is in the log; anything else is an update. */
export const patchAction = (before: WorkflowTemplate, after: WorkflowTemplate): AuditAction => {
  const changed = changedFields(before, after);
  if (changed.length === 1 && changed[0] === 'isActive') return after.isActive ? 'template.activate' : 'template.deactivate';
  return 'template.update';
};

export const recordTemplateAudit = (
  tx: Transaction,
  deps: { ids: IdGenerator; clock: Clock },
  actorId: string,
  action: AuditAction,
  template: WorkflowTemplate,
  changed: string[],
): Promise<void> =>
  tx.audit.record({
    id: deps.ids.newId(),
    actorId,
    action,
    targetUserId: null,
    details: { templateId: template.id, name: template.name, version: template.version, changed },
    createdAt: deps.clock.now(),
  });
