import test from 'ava';
import { mkdtempSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { ExecuteHooks, ExecuteResult, PromptGraph } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { PyException } from '../../adapters/builtin-engine/py-format.ts';
import type { NodeDef, NodeResult } from '../../adapters/builtin-engine/types.ts';
import { ExecutionCache } from '../../adapters/comfyui-protocol-server/execution-cache.ts';
import { customNode } from '../support/custom-node.ts';

// The executor's guards: what runs (once, in order), what a node gets, how failures, budgets and the execution cache
// behave — as ComfyUI's executor does for the same prompt.

const makeRuntime = (extraNodes: NodeDef[] = []) => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-execute-'));
  const dirs = { inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') };
  return { rt: new BuiltinRuntime({ ...dirs, extraNodes }), ...dirs };
};


const empty = (over: Record<string, unknown> = {}) => ({ class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0, ...over } });
const save = (images: unknown, prefix = 'x') => ({ class_type: 'SaveImage', inputs: { images, filename_prefix: prefix } });
const preview = (source: unknown) => ({ class_type: 'PreviewAny', inputs: { source } });

/** Validates (converting literals in place, as POST /prompt does) and runs the valid outputs, recording the hooks. */
const run = async (rt: BuiltinRuntime, prompt: PromptGraph, hooks: ExecuteHooks = {}) => {
  const v = rt.validate(prompt);
  if (!v.ok) throw new Error(JSON.stringify(v));
  const executing: string[] = [];
  const cached: string[][] = [];
  const executed: [string, unknown][] = [];
  const result = await rt.execute('p', prompt, {
    onExecuting: (id) => executing.push(id),
    onCached: (ids) => cached.push(ids),
    onExecuted: (id, ui) => executed.push([id, ui]),
    ...hooks,
  }, v.outputs);
  return { result, executing, cached, executed };
};

const failure = (r: ExecuteResult) => {
  if (r.status !== 'error') throw new Error(`expected an error, got ${JSON.stringify(r)}`);
  return { nodeId: r.nodeId, nodeType: r.nodeType, exceptionType: r.exceptionType, exceptionMessage: r.exceptionMessage };
};

const texts = (r: ExecuteResult, id: string): unknown => r.outputs[id]?.['text'];

// Pins: each node runs once per prompt however many nodes use its output (one SaveImage file each, not a re-run).
test('a node feeding several outputs runs once', async (t) => {
  const { rt } = makeRuntime();
  const { result, executing } = await run(rt, { '1': empty(), '2': save(['1', 0], 'a'), '3': save(['1', 0], 'b') });
  t.is(result.status, 'success');
  t.deepEqual(executing, ['1', '2', '3']);
  t.deepEqual(result.status === 'success' ? result.executed : [], ['1', '2', '3']);
});

// Pins: a link slot counts from the end when negative, as Python indexes the node's outputs; validation accepts
// such a link, so the run must read the same output instead of failing.
test('a negative link slot reads the output counted from the end', async (t) => {
  const { rt } = makeRuntime();
  const { result } = await run(rt, {
    '1': empty({ width: 5, height: 7, batch_size: 3 }),
    '2': { class_type: 'GetImageSize', inputs: { image: ['1', 0] } },
    '3': preview(['2', -1]),
    '4': preview(['2', -3]),
  });
  t.is(result.status, 'success', JSON.stringify(result));
  t.deepEqual(texts(result, '3'), ['3']);
  t.deepEqual(texts(result, '4'), ['5']);
});

// Pins: run() on a prompt that skipped validation still fails on the node at fault, with ComfyUI's exception types,
// instead of throwing or recursing forever.
test('an unvalidated prompt with a dangling link, an unknown node or a cycle fails on the node at fault', async (t) => {
  const { rt } = makeRuntime();
  t.deepEqual(failure(await rt.execute('p', { '2': save(['99', 0]) })), { nodeId: '2', nodeType: 'SaveImage', exceptionType: 'KeyError', exceptionMessage: "'99'" });
  t.deepEqual(failure(await rt.execute('p', { '1': { class_type: 'Nope', inputs: {} }, '2': save(['1', 0]) })), {
    nodeId: '1',
    nodeType: 'Nope',
    exceptionType: 'KeyError',
    exceptionMessage: 'Cannot execute because node Nope does not exist.',
  });
  const cycle = await rt.execute('p', {
    '1': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': save(['1', 0]),
  });
  t.deepEqual(failure(cycle), { nodeId: '1', nodeType: 'ImageInvert', exceptionType: 'graph.DependencyCycleError', exceptionMessage: 'Dependency cycle detected' });
  t.deepEqual(cycle.executed, []);
});

// Pins: without a list of outputs the runtime runs every output node and what they need, as ComfyUI does: a node no
// output needs does not run.
test('without outputs given, the output nodes run with what they need, and a node none of them needs does not', async (t) => {
  const { rt } = makeRuntime();
  const executing: string[] = [];
  const result = await rt.execute('p', { '1': empty(), '2': save(['1', 0]), '3': empty({ width: 16 }) }, { onExecuting: (id) => executing.push(id) });
  t.is(result.status, 'success');
  t.deepEqual(executing, ['1', '2']);
  t.deepEqual(result.executed, ['1', '2']);
});

// Pins: a node that declares no inputs runs even when its prompt entry has no "inputs" key.
test('a node without an inputs key runs when it takes no inputs', async (t) => {
  const { rt } = makeRuntime([customNode('Hello', { required: {} }, async () => ({ ui: { text: ['hello'] } }), { outputNode: true })]);
  const result = await rt.execute('p', { '1': { class_type: 'Hello' } as PromptGraph[string] });
  t.is(result.status, 'success', JSON.stringify(result));
  t.deepEqual(texts(result, '1'), ['hello']);
});

// Pins: an optional input left out of the prompt is not passed at all (a node may test whether it was given, as
// Python kwargs are), and a literal reaches the node as validation left it.
test('a node gets the inputs given, as validation converted them, and no others', async (t) => {
  const seen: Record<string, unknown>[] = [];
  const probe = customNode(
    'Probe',
    { required: { n: ['INT', { min: 0 }], s: ['*', {}] }, optional: { extra: ['STRING', {}] } },
    async (inputs) => {
      seen.push({ ...inputs });
      return { ui: { text: ['ok'] } };
    },
    { outputNode: true },
  );
  const { rt } = makeRuntime([probe]);
  const { result } = await run(rt, { '1': { class_type: 'Probe', inputs: { n: '7', s: { __value__: { __value__: 1 } } } } });
  t.is(result.status, 'success');
  t.deepEqual(seen, [{ n: 7, s: { __value__: 1 } }], 'ComfyUI unwraps __value__ once, in validation');
});

// Pins: a node that returns fewer outputs than it declares fails the node reading the missing one, not later on an
// undefined value.
test('reading an output the node did not produce fails the reading node', async (t) => {
  const lazy = customNode('Lazy', { required: {} }, async (): Promise<NodeResult> => ({}), { output: ['IMAGE'] });
  const { rt } = makeRuntime([lazy]);
  const { result } = await run(rt, { '1': { class_type: 'Lazy', inputs: {} }, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } }, '3': save(['2', 0]) });
  t.deepEqual(failure(result), { nodeId: '2', nodeType: 'ImageInvert', exceptionType: 'KeyError', exceptionMessage: 'input image: output 0 of node 1 is not available' });
});

// Pins: execution_error carries the node's Python exception type (a custom node raising ValueError says so); any
// other failure is a RuntimeError with its message.
test('a failing node reports its Python exception type, or RuntimeError', async (t) => {
  const py = customNode('RaisesPy', { required: {} }, async () => {
    throw new PyException('ValueError', 'bad value');
  }, { outputNode: true });
  const js = customNode('RaisesJs', { required: {} }, async () => {
    throw new Error('oops');
  }, { outputNode: true });
  const { rt } = makeRuntime([py, js]);
  t.deepEqual(failure((await run(rt, { '1': { class_type: 'RaisesPy', inputs: {} } })).result), { nodeId: '1', nodeType: 'RaisesPy', exceptionType: 'ValueError', exceptionMessage: 'bad value' });
  t.deepEqual(failure((await run(rt, { '1': { class_type: 'RaisesJs', inputs: {} } })).result), { nodeId: '1', nodeType: 'RaisesJs', exceptionType: 'RuntimeError', exceptionMessage: 'oops' });
});

// Pins: the worker thread's memory budget fails the node that went over it: checked after each node, and inside a
// long node at each step, so a heavy node stops part-way instead of finishing its allocations.
test('going over the memory budget fails the node with MemoryError, after it or part-way through it', async (t) => {
  const { rt } = makeRuntime();
  const prompt = () => ({ '1': empty({ batch_size: 3 }), '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 2, sigma: 1 } }, '3': save(['2', 0]) });
  const after = await run(rt, prompt(), { overBudget: () => 'over the memory budget' });
  t.deepEqual(failure(after.result), { nodeId: '1', nodeType: 'EmptyImage', exceptionType: 'MemoryError', exceptionMessage: 'over the memory budget' });
  t.deepEqual(after.result.executed, []);
  let current = '';
  const progressOf2: number[] = [];
  const inside = await run(rt, prompt(), {
    onExecuting: (id) => (current = id),
    onProgress: (value, _max, id) => id === '2' && progressOf2.push(value),
    overBudget: () => (current === '2' ? 'over the memory budget' : null),
  });
  t.deepEqual(failure(inside.result), { nodeId: '2', nodeType: 'ImageBlur', exceptionType: 'MemoryError', exceptionMessage: 'over the memory budget' });
  t.deepEqual(progressOf2, [], 'the blur stopped before its first frame was done');
});

// Pins: ComfyUI's execution cache (the stand-in keeps one): an identical prompt runs nothing and sends the output's
// earlier ui again; execution_cached lists every node served from it.
test('with a cache, an identical prompt runs nothing and replays the output ui', async (t) => {
  const { rt } = makeRuntime();
  const cache = new ExecutionCache();
  const prompt = () => ({ '1': empty(), '2': save(['1', 0]) });
  const first = await run(rt, prompt(), { cache });
  t.deepEqual(first.executing, ['1', '2']);
  t.deepEqual(first.cached, [[]]);
  const second = await run(rt, prompt(), { cache });
  t.deepEqual(second.cached, [['1', '2']]);
  t.deepEqual(second.executing, []);
  t.is(second.result.status, 'success');
  t.deepEqual(second.result.outputs, first.result.outputs);
  t.deepEqual(second.executed, first.executed);
  t.deepEqual(second.result.status === 'success' ? second.result.executed : null, []);
});

// Pins: a node's cache key includes what it links to, so a change upstream re-runs everything downstream (a stale
// image would be served otherwise); like ComfyUI's classic cache, entries a new prompt does not use are dropped.
test('with a cache, a change re-runs the changed node and all that depends on it; unused entries are dropped', async (t) => {
  const { rt } = makeRuntime();
  const cache = new ExecutionCache();
  const prompt = (color: number, prefix = 'x') => ({ '1': empty({ color }), '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } }, '3': save(['2', 0], prefix) });
  await run(rt, prompt(0), { cache });
  const changed = await run(rt, prompt(1), { cache });
  t.deepEqual(changed.cached, [[]]);
  t.deepEqual(changed.executing, ['1', '2', '3']);
  const prefixOnly = await run(rt, prompt(1, 'y'), { cache });
  t.deepEqual(prefixOnly.cached, [['1', '2']]);
  t.deepEqual(prefixOnly.executing, ['3']);
  const back = await run(rt, prompt(0), { cache });
  t.deepEqual(back.executing, ['1', '2', '3'], 'the first prompt\'s entries were dropped by the prompts that did not use them');
});

// Pins: LoadImage's IS_CHANGED: a new file under the same name is read again, not served from the cache; a file that
// went missing fails the node as it would without a cache.
test('with a cache, LoadImage re-reads a replaced file, and a missing one fails the node', async (t) => {
  const { rt, inputDir } = makeRuntime();
  const cache = new ExecutionCache();
  const file = path.join(inputDir, 'a.png');
  await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toFile(file);
  const prompt = () => ({ '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } }, '2': { class_type: 'GetImageSize', inputs: { image: ['1', 0] } }, '3': preview(['2', 0]) });
  t.deepEqual(texts((await run(rt, prompt(), { cache })).result, '3'), ['4']);
  await sharp({ create: { width: 6, height: 4, channels: 3, background: '#000' } }).png().toFile(file);
  const again = await run(rt, prompt(), { cache });
  t.deepEqual(again.executing, ['1', '2', '3']);
  t.deepEqual(texts(again.result, '3'), ['6']);
  const validated = prompt();
  t.true(rt.validate(validated).ok);
  unlinkSync(file);
  const gone = await rt.execute('p', validated, { cache });
  t.deepEqual(failure(gone), { nodeId: '1', nodeType: 'LoadImage', exceptionType: 'FileNotFoundError', exceptionMessage: "No such file or directory: 'a.png'" });
});
