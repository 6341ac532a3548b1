import { publicParameters } from './parameter-map.ts';
import type { ParameterMap, PublicParameter } from './parameter-map.ts';
import type { Category } from './parameter-presets.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';
import { isUuid } from './ids.ts';

export const OUTPUT_TYPES = ['image', 'video'] as const;
export type OutputType = (typeof OUTPUT_TYPES)[number];

export const TEMPLATE_NAME_MAX = 100;
export const TEMPLATE_DESCRIPTION_MAX = 2_000;
export const TEMPLATE_COST_MAX = 1_000_000;

/** The current state of a template. `version` counts changes of `workflow` or `parameterMap` only. */
export interface WorkflowTemplate {
  id: string;
  name: string;
  description: string | null;
  category: Category;
  workflow: WorkflowGraph;
  parameterMap: ParameterMap;
  cost: number;
  outputType: OutputType;
  isActive: boolean;
  /**
   * When an administrator last published it; null while it is a draft (ADR 039). Users see and run only templates
   * that are both published and active.
   */
  publishedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Whether users may see and run the template: published, and not deactivated. */
export const isOffered = (template: Pick<WorkflowTemplate, 'isActive' | 'publishedAt'>): boolean =>
  template.isActive && template.publishedAt !== null;

/**
 * One version of a template as a job rendered it. Workflow and map never change once recorded; category, cost
 * and outputType are the values in force while this version was the current one (the last of them).
 * Readable after the template is deleted, so a job's history keeps its meaning.
 */
export interface TemplateVersion {
  templateId: string;
  version: number;
  /** The template's name now (names are not versioned). */
  name: string;
  category: Category;
  workflow: WorkflowGraph;
  parameterMap: ParameterMap;
  cost: number;
  outputType: OutputType;
  /** The template's state now: whether users may still run it. */
  isActive: boolean;
  deletedAt: Date | null;
  /** When this version was recorded. */
  createdAt: Date;
}

/** What end users see of a template: no node wiring. */
export interface CatalogueTemplate {
  id: string;
  name: string;
  description: string | null;
  category: Category;
  cost: number;
  outputType: OutputType;
  parameters: PublicParameter[];
}


/** Ids are UUIDs; anything else cannot name a template, so it is "not found" without a lookup. */

/** A template id as stored (lower case), or null for anything that cannot be one. */
export const templateIdOf = (value: unknown): string | null => (isUuid(value) ? value.toLowerCase() : null);

/**
 * Names are unique among live templates regardless of case ("Portrait" and "portrait" would confuse admins
 * picking one). Lower-casing here, in one place, keeps every adapter and both SQL collations in agreement.
 */
export const templateNameKey = (name: string): string => name.trim().toLowerCase();

export const toCatalogueTemplate = (template: WorkflowTemplate): CatalogueTemplate => ({
  id: template.id,
  name: template.name,
  description: template.description,
  category: template.category,
  cost: template.cost,
  outputType: template.outputType,
  parameters: publicParameters(template.parameterMap, template.workflow),
});
