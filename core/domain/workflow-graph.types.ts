/**
 * ComfyUI API-format workflow: node id -> { class_type, inputs }.
 * An input that is a link is `[sourceNodeId, outputIndex]`; a literal list is `{"__value__": [...]}`.
 */
export type WorkflowLink = [string, number];

export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string } & Record<string, unknown>;
}

export type WorkflowGraph = Record<string, WorkflowNode>;

export const isLink = (value: unknown): value is WorkflowLink =>
  Array.isArray(value) &&
  value.length === 2 &&
  (typeof value[0] === 'string' || typeof value[0] === 'number') &&
  typeof value[1] === 'number' &&
  Number.isInteger(value[1]);
