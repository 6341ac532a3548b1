import type { ParameterMap } from '../domain/parameter-map.ts';
import type { WorkflowGraph } from '../domain/workflow-graph.types.ts';

/** What generation needs of a template: the current version of an active one. */
export interface TemplateForGeneration {
  id: string;
  version: number;
  workflow: WorkflowGraph;
  parameterMap: ParameterMap;
  cost: number;
  outputType: 'image' | 'video';
}

export interface TemplateSource {
  findActive(templateId: string): Promise<TemplateForGeneration | null>;
}

/** An image a job reads: one of the caller's uploads or outputs. */
export interface InputImage {
  id: string;
  storageKey: string;
  mimeType: string;
  kind: 'upload' | 'output';
}

export interface InputImageSource {
  /** Null when the id is neither an upload nor an output of this user. */
  find(userId: string, id: string): Promise<InputImage | null>;
  markUsed(image: InputImage, at: Date): Promise<void>;
}

/** Publishes an event to one user's sockets (stored for replay). */
export interface UserEventPublisher {
  execute(input: { userId: string; event: { type: string; jobId?: string; [field: string]: unknown } }): Promise<unknown>;
}
