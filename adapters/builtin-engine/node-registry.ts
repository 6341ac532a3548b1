/** All builtin nodes by class_type, and their GET /object_info entries. */
import type { NodeInfo } from './runtime-types.ts';
import type { NodeDef, NodeEnv } from './types.ts';
import { imageNodes } from './nodes/image-nodes.ts';
import { saveImageNodes } from './nodes/save-image-nodes.ts';
import { utilityNodes } from './nodes/utility-nodes.ts';
import { transformNodes } from './nodes/transform-nodes.ts';
import { maskNodes } from './nodes/mask-nodes.ts';
import { videoNodes } from './nodes/video-nodes.ts';
import { audioNodes } from './nodes/audio-nodes.ts';

export const createRegistry = (extra: NodeDef[][] = []): ReadonlyMap<string, NodeDef> =>
  new Map([imageNodes, transformNodes, maskNodes, utilityNodes, saveImageNodes, videoNodes, audioNodes, ...extra].flat().map((d) => [d.name, d]));

export const nodeInfo = (def: NodeDef, env: NodeEnv): NodeInfo => {
  const input = def.inputTypes(env);
  const info: NodeInfo = {
    input: input as NodeInfo['input'],
    input_order: Object.fromEntries(
      Object.entries(input).map(([k, v]) => [k, Object.keys(v as object)]),
    ) as NodeInfo['input_order'],
    output: [...def.output],
    output_is_list: def.output.map(() => false),
    output_name: [...(def.outputName ?? def.output)],
    name: def.name,
    display_name: def.displayName,
    description: def.description,
    python_module: def.pythonModule,
    category: def.category,
    output_node: def.outputNode,
  };
  if (def.outputTooltips) info.output_tooltips = def.outputTooltips;
  return info;
};
