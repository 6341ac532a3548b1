import { ok, type Result } from '../../domain/result.ts';
import { templateIdOf } from '../../domain/workflow-template.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { recordTemplateAudit } from './template-audit.service.ts';
import { templateNotFound } from './template-results.service.ts';

/**
 * Soft delete: the template leaves every list and lookup and its name is free again, while its versions stay
 * readable (GetTemplateVersion) for the jobs that ran them. Audit-logged in the same transaction.
 */
export class DeleteTemplate {
  constructor(private readonly deps: { uow: UnitOfWork; ids: IdGenerator; clock: Clock }) {}

  async execute(input: { actorId: string; id: unknown }): Promise<Result<void>> {
    const id = templateIdOf(input.id);
    if (!id) return templateNotFound();
    const deleted = await this.deps.uow.run(async (tx) => {
      const template = await tx.templates.findById(id, { forUpdate: true });
      if (!template || !(await tx.templates.softDelete(id, this.deps.clock.now()))) return false;
      await recordTemplateAudit(tx, this.deps, input.actorId, 'template.delete', template, []);
      return true;
    });
    return deleted ? ok(undefined) : templateNotFound();
  }
}
