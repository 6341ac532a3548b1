import type { TemplateVersion, WorkflowTemplate } from '../domain/workflow-template.ts';

export type TemplateUpdateOutcome = 'updated' | 'not_found' | 'name_taken';

/**
 * Workflow templates and every version of their workflow and parameter map. Deleting is soft: a deleted
 * template is invisible to every lookup here except `findVersion` (job history), and its name is free again.
 * Names are unique among live templates by `templateNameKey` (case-insensitive).
 */
export interface TemplateRepository {
  /** Stores the template and records `template.version` as its first version. False when the name is taken. */
  create(template: WorkflowTemplate): Promise<boolean>;
  /**
   * A live (not deleted) template, active or not. `forUpdate` locks the row until the surrounding unit of
   * work ends (where the database can), so concurrent edits queue instead of overwriting each other.
   */
  findById(id: string, options?: { forUpdate?: boolean }): Promise<WorkflowTemplate | null>;
  /** True when a live template other than `exceptId` has this name (by `templateNameKey`). */
  nameTaken(name: string, exceptId?: string): Promise<boolean>;
  /** Live templates, oldest first; with `offeredOnly`, only those users may run (published and active, see `isOffered`). */
  list(options?: { offeredOnly?: boolean }): Promise<WorkflowTemplate[]>;
  /** The names of those of `ids` that are live templates (not deleted), without reading their workflows. */
  namesOf(ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * Saves the whole state of a live template. With `newVersion`, `next.version` is recorded as a new version
   * (its workflow and map); otherwise the current version's category, cost and outputType follow `next`.
   */
  update(next: WorkflowTemplate, options: { newVersion: boolean }): Promise<TemplateUpdateOutcome>;
  /** Marks a live template deleted and frees its name. False when there was no live template with this id. */
  softDelete(id: string, at: Date): Promise<boolean>;
  /** One version of a template, deleted or not; null when the template or that version never existed. */
  findVersion(templateId: string, version: number): Promise<TemplateVersion | null>;
  /** Every template ever stored, deleted ones included (ready templates are installed only into an empty table). */
  countEver(): Promise<number>;
}
