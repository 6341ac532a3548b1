import test from 'ava';
import { CostlyRuntime } from '../../adapters/comfyui-protocol-server/run-costs.ts';
import type { ComfyGraph, ProtocolExecuteResult, ProtocolRuntime } from '../../adapters/comfyui-protocol-server/protocol-runtime.types.ts';

// Guards of adapters/comfyui-protocol-server/run-costs.ts (ADR 044): the simulated GPU time a fleet bench and the
// dispatch tests rely on. A model load is paid only when a prompt's model files differ from the ones loaded last (a
// prompt without models keeps them), every executed node costs nodeMs, and busyMs/loads count what was paid.

/** An engine that executes every node of the prompt at once and reports them all as executed. */
const instant: ProtocolRuntime = {
  objectInfo: () => ({}),
  validate: () => ({ ok: true, outputs: [], nodeErrors: {} }),
  execute: async (_id: string, prompt: ComfyGraph): Promise<ProtocolExecuteResult> => ({ status: 'success', outputs: {}, executed: Object.keys(prompt) }),
};

const withModel = (ckpt: string): ComfyGraph => ({
  '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } },
  '2': { class_type: 'PreviewAny', inputs: { source: ['1', 0] } },
});
const modelFree: ComfyGraph = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } };
const nodes = (n: number): ComfyGraph => Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i + 1), { class_type: 'EmptyImage', inputs: {} }]));

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const began = performance.now();
  await run();
  return performance.now() - began;
};

test('a model is loaded only when the prompt asks for other model files; a model-free prompt keeps the loaded one', async (t) => {
  const runtime = new CostlyRuntime(instant, { modelLoadMs: 0, nodeMs: 0 });
  const sequence = [withModel('a.safetensors'), withModel('a.safetensors'), modelFree, withModel('a.safetensors'), withModel('b.safetensors'), withModel('b.safetensors'), withModel('a.safetensors')];
  const loads: number[] = [];
  for (const [i, prompt] of sequence.entries()) {
    await runtime.execute(`p${i}`, prompt);
    loads.push(runtime.loads);
  }
  t.deepEqual(loads, [1, 1, 1, 1, 2, 2, 3]);
});

test('a model switch waits modelLoadMs; a prompt that keeps the model or loads none does not', async (t) => {
  const runtime = new CostlyRuntime(instant, { modelLoadMs: 300, nodeMs: 0 });
  t.true((await timed(() => runtime.execute('first', withModel('a.safetensors')))) >= 280, 'the first load is paid');
  t.true((await timed(() => runtime.execute('same', withModel('a.safetensors')))) < 150, 'the loaded model is not loaded again');
  t.true((await timed(() => runtime.execute('free', modelFree))) < 150, 'a model-free prompt pays no load');
  t.true(runtime.busyMs >= 280, `busy ${runtime.busyMs} ms counts the load`);
});

test('each executed node costs nodeMs, counted in busyMs', async (t) => {
  const runtime = new CostlyRuntime(instant, { nodeMs: 40 });
  const took = await timed(() => runtime.execute('five', nodes(5)));
  t.true(took >= 180, `five nodes took ${took} ms`);
  t.true(runtime.busyMs >= 180 && runtime.busyMs <= took + 5, `busy ${runtime.busyMs} ms`);
  t.is(runtime.loads, 0, 'a prompt without a loader loads nothing');
});
