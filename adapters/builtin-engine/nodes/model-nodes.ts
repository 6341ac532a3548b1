/**
 * A model loader for servers that stand in for a GPU fleet (the ComfyUI protocol stand-in in tests): its
 * object_info matches ComfyUI's CheckpointLoaderSimple, with the checkpoint files that server was given, so a
 * client's per-server model checks and routing can be exercised. The builtin engine has no models: "loading"
 * one yields a named token, which no builtin node consumes. Never registered unless a model list is given.
 */
import type { NodeDef } from '../types.ts';

export const checkpointLoaderNode = (checkpoints: readonly string[]): NodeDef => ({
  name: 'CheckpointLoaderSimple',
  displayName: 'Load Checkpoint',
  description: 'Loads a diffusion model checkpoint.',
  category: 'loaders',
  pythonModule: 'nodes',
  outputNode: false,
  inputTypes: () => ({ required: { ckpt_name: [[...checkpoints], { tooltip: 'The name of the checkpoint (model) to load.' }] } }),
  output: ['MODEL', 'CLIP', 'VAE'],
  run: async (inputs) => {
    const name = String(inputs['ckpt_name']);
    return { outputs: [{ kind: 'MODEL', name }, { kind: 'CLIP', name }, { kind: 'VAE', name }] };
  },
});
