import type { ParameterMap } from '../../domain/parameter-map.ts';
import type { WorkflowGraph } from '../../domain/workflow-graph.types.ts';
import { isOffered, type WorkflowTemplate } from '../../domain/workflow-template.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';

/** What generation needs of a template: the current version of an active one. */
export interface TemplateForGeneration {
  id: string;
  version: number;
  workflow: WorkflowGraph;
  parameterMap: ParameterMap;
  cost: number;
  outputType: 'image' | 'video';
}

export const forGeneration = (template: WorkflowTemplate): TemplateForGeneration => ({
  id: template.id,
  version: template.version,
  workflow: template.workflow,
  parameterMap: template.parameterMap,
  cost: template.cost,
  outputType: template.outputType,
});

/** The templates a user may generate from: live, published and active, at their current version (drafts are not). */
export class ActiveTemplates {
  constructor(private readonly templates: TemplateRepository) {}

  async find(templateId: string): Promise<TemplateForGeneration | null> {
    const template = await this.templates.findById(templateId);
    return template && isOffered(template) ? forGeneration(template) : null;
  }

  /** Oldest first (the order in which a raw workflow is matched against them). */
  async list(): Promise<TemplateForGeneration[]> {
    return (await this.templates.list({ offeredOnly: true })).map(forGeneration);
  }
}
