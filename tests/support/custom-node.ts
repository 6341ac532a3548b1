import type { InputTypes, NodeDef } from '../../adapters/builtin-engine/types.ts';

/** A custom node for the builtin runtime's tests: `inputTypes` and `run` as given, `extra` over the defaults. */
export const customNode = (name: string, inputTypes: InputTypes, run: NodeDef['run'], extra: Partial<NodeDef> = {}): NodeDef => ({
  name,
  displayName: name,
  description: '',
  category: 'testing',
  pythonModule: 'custom_nodes.testing',
  outputNode: false,
  inputTypes: () => inputTypes,
  output: [],
  run,
  ...extra,
});
