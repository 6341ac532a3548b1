import { isUuid } from './ids.ts';
import type { FieldProblem } from './result.ts';
import { inputField, isPlainObject } from './workflow-graph.ts';

/**
 * A Comfy API v2 asset reference (ADR 042): where a workflow would name a file, @comfyorg/sdk puts
 * `{"__type": "core/ASSET", "info": {"id", "hash"?, "file_path"?}}`; `info.id` is one of the caller's uploads or
 * outputs. The job runs with the id in its place, read like an `image` parameter's value.
 */
export interface AssetInput {
  nodeId: string;
  inputName: string;
  id: string;
}

const isReference = (value: unknown): value is Record<string, unknown> => isPlainObject(value) && value['__type'] === 'core/ASSET';

/**
 * The workflow with every node input that is an asset reference replaced by the asset's id (lowercased), and where
 * they were. Nodes and inputs are copied only where one was replaced. A reference without a UUID `info.id` is a problem.
 */
export function takeAssetReferences(workflow: unknown): { workflow: unknown; inputs: AssetInput[]; problems: FieldProblem[] } {
  const inputs: AssetInput[] = [];
  const problems: FieldProblem[] = [];
  if (!isPlainObject(workflow)) return { workflow, inputs, problems };
  let out: Record<string, unknown> | null = null;
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (!isPlainObject(node) || !isPlainObject(node['inputs'])) continue;
    let replaced: Record<string, unknown> | null = null;
    for (const [inputName, value] of Object.entries(node['inputs'])) {
      if (!isReference(value)) continue;
      const info = value['info'];
      const id = isPlainObject(info) ? info['id'] : undefined;
      if (!isUuid(id)) {
        problems.push({ field: inputField(nodeId, inputName), message: 'is a core/ASSET reference without an asset id (info.id)' });
        continue;
      }
      replaced ??= { ...node['inputs'] };
      replaced[inputName] = id.toLowerCase();
      inputs.push({ nodeId, inputName, id: id.toLowerCase() });
    }
    if (replaced) (out ??= { ...workflow })[nodeId] = { ...node, inputs: replaced };
  }
  return { workflow: out ?? workflow, inputs, problems };
}
