import type { InputTypes } from '../../adapters/builtin-engine/types.ts';
import { customNode } from './custom-node.ts';

/**
 * A node `TestGate` that runs until its gate opens (or an interrupt stops it): a prompt that stays running as long as a
 * test needs, without CPU. `inputTypes` lets a test give it inputs (e.g. a key that makes prompts differ).
 */
export const gateNode = (inputTypes: InputTypes = { required: {} }) => {
  let open = false;
  const node = customNode(
    'TestGate',
    inputTypes,
    async (_inputs, ctx) => {
      while (!open) {
        await ctx.tick();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return {};
    },
    { displayName: 'Test Gate', description: 'Runs until the test opens the gate.', pythonModule: 'custom_nodes.test_gate', outputNode: true },
  );
  return { node, open: () => void (open = true) };
};
