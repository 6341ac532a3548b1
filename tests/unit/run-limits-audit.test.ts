import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { BuiltinRuntime, type ExecuteResult, type PromptGraph } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { DEFAULT_RESOURCE_LIMITS, type ResourceLimits } from '../../core/domain/resource-limits.ts';

// Guards of the builtin engine's run-time caps (adapters/builtin-engine/run-limits.ts) at their edges: what is
// exactly at a cap runs, one more is refused with the ResourceLimitError naming the cap, the pixel cap is on
// width × height (not on a side), and an engine configured without caps checks nothing.

const CAPS: ResourceLimits = { ...DEFAULT_RESOURCE_LIMITS, maxImagePixels: 64 * 64, maxBatchSize: 4, maxFrames: 8, maxVideoSeconds: 2 };

const runtime = (t: { teardown(fn: () => void): void }, limits?: ResourceLimits) => {
  const root = mkdtempSync(path.join(tmpdir(), 'run-limits-audit-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return new BuiltinRuntime({ inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp'), ...(limits ? { limits } : {}) });
};

/** Runs the graph up to node `target`: 'ran', or the failing node and its error. */
const outcome = async (rt: BuiltinRuntime, graph: PromptGraph, target: string) => {
  const r: ExecuteResult = await rt.execute('p', graph, {}, [target]);
  return r.status === 'error' ? { nodeId: r.nodeId, type: r.exceptionType, message: r.exceptionMessage } : r.status === 'success' ? 'ran' : r.status;
};

const empty = (width: number, height: number, batch = 1) => ({ '1': { class_type: 'EmptyImage', inputs: { width, height, batch_size: batch, color: 0 } } });
const repeat = (batch: number, amount: number) => ({ ...empty(2, 2, batch), '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount } } });
const mask = (width: number, height: number) => ({ '1': { class_type: 'SolidMask', inputs: { value: 1, width, height } } });
const audio = (duration: number) => ({ '1': { class_type: 'EmptyAudio', inputs: { duration, sample_rate: 8000, channels: 1 } } });
const refused = (nodeId: string, message: string) => ({ nodeId, type: 'ResourceLimitError', message });

test('the pixel cap is on width × height: at the cap (square or not) it runs, one pixel over it is refused', async (t) => {
  const rt = runtime(t, CAPS);
  t.is(await outcome(rt, empty(64, 64), '1'), 'ran');
  t.is(await outcome(rt, empty(128, 32), '1'), 'ran');
  t.is(await outcome(rt, mask(4096, 1), '1'), 'ran');
  t.is(await outcome(rt, empty(65, 63), '1'), 'ran', 'a side over 64, 4095 pixels');
  t.deepEqual(await outcome(rt, empty(4097, 1), '1'), refused('1', '4097×1 images (4097 pixels) are above the pixel limit per image (4096)'));
  t.deepEqual(await outcome(rt, mask(129, 32), '1'), refused('1', '129×32 images (4128 pixels) are above the pixel limit per image (4096)'));
});

test('the batch cap: a batch_size or amount at the cap runs, one more is refused', async (t) => {
  const rt = runtime(t, CAPS);
  t.is(await outcome(rt, empty(2, 2, 4), '1'), 'ran');
  t.deepEqual(await outcome(rt, empty(2, 2, 5), '1'), refused('1', 'batch_size 5 is above the batch size limit (4)'));
  t.is(await outcome(rt, repeat(1, 4), '2'), 'ran');
  t.deepEqual(await outcome(rt, repeat(1, 5), '2'), refused('2', 'amount 5 is above the batch size limit (4)'));
});

test('the frame cap: a batch of exactly the cap runs, one image more is refused', async (t) => {
  const rt = runtime(t, CAPS);
  t.is(await outcome(rt, repeat(4, 2), '2'), 'ran');
  t.deepEqual(await outcome(rt, repeat(3, 3), '2'), refused('2', 'a batch of 9 images is above the frame limit (8)'));
});

test('the length cap: media of exactly the cap runs, longer is refused', async (t) => {
  const rt = runtime(t, CAPS);
  t.is(await outcome(rt, audio(2), '1'), 'ran');
  t.deepEqual(await outcome(rt, audio(2.5), '1'), refused('1', '2.5 s of media is above the video length limit (2 s)'));
});

test('an engine without caps checks none', async (t) => {
  const rt = runtime(t);
  t.is(await outcome(rt, empty(65, 65, 5), '1'), 'ran');
  t.is(await outcome(rt, repeat(3, 5), '2'), 'ran');
  t.is(await outcome(rt, mask(65, 65), '1'), 'ran');
  t.is(await outcome(rt, audio(3), '1'), 'ran');
});
