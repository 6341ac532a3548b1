import test from 'ava';
import { checkResourceLimits, DEFAULT_RESOURCE_LIMITS, type ResourceLimits } from '../../core/domain/resource-limits.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import { generationHarness } from '../support/generation-harness.ts';

const L: ResourceLimits = { ...DEFAULT_RESOURCE_LIMITS };
const canvas = (width: number, height: number, batch_size = 1): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width, height, batch_size, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
});

test('pixels per image: an EmptyImage above the limit is named with its node and the limit; scaling up a small canvas is caught too', (t) => {
  t.deepEqual(checkResourceLimits(canvas(8192, 8192), L), []);
  const [problem] = checkResourceLimits(canvas(16384, 16384), L);
  t.is(problem!.field, 'workflow.1');
  t.regex(problem!.message, /^EmptyImage #1 makes 16384×16384 images \(268435456 pixels\), above the pixel limit per image \(67108864\)$/);
  const scaled: WorkflowGraph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 4096, height: 4096, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 4 } },
    '3': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'x' } },
  };
  t.deepEqual(checkResourceLimits(scaled, L).map((p) => p.field), ['workflow.2', 'workflow.3', 'workflow']);
});

test('batch size: batch_size, amount and length above the limit are refused by input name', (t) => {
  const problems = checkResourceLimits(canvas(16, 16, 4096), L);
  t.true(problems.some((p) => p.field === 'workflow.1.inputs.batch_size' && /batch_size 4096 is above the batch size limit \(64\)/.test(p.message)));
  const repeat: WorkflowGraph = { ...canvas(16, 16), '3': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 65 } } };
  t.deepEqual(checkResourceLimits(repeat, L).map((p) => p.field), ['workflow.3.inputs.amount']);
});

test('frames: a batch multiplied past the frame limit is refused at the node that makes it', (t) => {
  const frames: WorkflowGraph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 20, color: 0 } },
    '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 40 } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
  };
  const problems = checkResourceLimits(frames, L);
  t.deepEqual(problems.map((p) => p.field), ['workflow.2']);
  t.regex(problems[0]!.message, /RepeatImageBatch #2 makes a batch of 800 images, above the frame limit \(600\)/);
});

test('video seconds: frames over fps past the limit are refused at the video node', (t) => {
  const video: WorkflowGraph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 50, color: 0 } },
    '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 5 } },
    '3': { class_type: 'CreateVideo', inputs: { images: ['2', 0], fps: 2 } },
    '4': { class_type: 'SaveVideo', inputs: { video: ['3', 0], filename_prefix: 'v', format: 'auto', codec: 'auto' } },
  };
  const problems = checkResourceLimits(video, L);
  t.deepEqual(problems.map((p) => p.field), ['workflow.3.inputs.fps']);
  t.regex(problems[0]!.message, /CreateVideo #3 makes 125 s of video, above the video length limit \(120 s\)/);
  t.deepEqual(checkResourceLimits(video, { ...L, maxVideoSeconds: 125 }), []);
});

test('output bytes: images saved beyond the per-job output limit are refused', (t) => {
  const problems = checkResourceLimits(canvas(8192, 8192, 4), L);
  t.deepEqual(problems.map((p) => p.field), ['workflow']);
  t.regex(problems[0]!.message, /would save about 768 MB of uncompressed images, above the output size limit per job \(512 MB\)/);
});

test('nodes: a workflow with more nodes than the limit is refused', (t) => {
  const many: WorkflowGraph = Object.fromEntries(
    Array.from({ length: 201 }, (_, k) => [String(k + 1), { class_type: 'PreviewAny', inputs: { source: 'x' } }]),
  );
  const problems = checkResourceLimits(many, L);
  t.deepEqual(problems, [{ field: 'workflow', message: 'has 201 nodes; the node limit per workflow is 200' }]);
  t.deepEqual(checkResourceLimits(many, { ...L, maxWorkflowNodes: 201 }), []);
});

test('POST /generate: a 16384² × 4096 canvas is refused with 400 before anything is charged or queued', async (t) => {
  const h = await generationHarness();
  t.teardown(() => h.dispose());
  const adminId = await h.newUser(100, 'admin');
  const result = await h.submit.execute({ userId: adminId, role: 'admin', workflow: canvas(16384, 16384, 4096) });
  t.like(result, { ok: false, code: 'VALIDATION.FAILED' });
  if (result.ok) return;
  t.regex(result.message, /^The workflow exceeds a resource limit: EmptyImage #1/);
  t.true(result.details!.some((d) => d.field === 'workflow.1' && /pixel limit per image/.test(d.message)));
  t.is(await h.balance(adminId), 100);
  t.is(await h.pendingMessages(), 0);
  t.like(await h.submit.execute({ userId: adminId, role: 'admin', workflow: canvas(64, 64) }), { ok: true });
});

test('shapes are followed through every sizing node: ImageScale (fixed, one side 0, both 0), ImageScaleBy, ImageBlend, ImageBatch and ImageFromBatch', (t) => {
  const empty = (width: number, height: number, batch_size = 1) => ({ class_type: 'EmptyImage', inputs: { width, height, batch_size, color: 0 } });
  const scale = (source: string, width: number, height: number) => ({ class_type: 'ImageScale', inputs: { image: [source, 0], upscale_method: 'nearest-exact', width, height, crop: 'disabled' } });
  const found = (graph: WorkflowGraph) => checkResourceLimits(graph, L).map((p) => `${p.field}: ${p.message}`);
  // Fixed size: the target counts, not the source.
  t.deepEqual(found({ '1': empty(64, 64), '2': scale('1', 16384, 8192) }), ['workflow.2: ImageScale #2 makes 16384×8192 images (134217728 pixels), above the pixel limit per image (67108864)']);
  t.deepEqual(found({ '1': empty(16384, 16384), '2': scale('1', 64, 64) }).map((p) => p.split(':')[0]), ['workflow.1']);
  // One side 0 keeps the source's aspect ratio (1024×512 here); both 0 keep the source's size.
  t.deepEqual(found({ '1': empty(1024, 512), '2': scale('1', 0, 8192) }), ['workflow.2: ImageScale #2 makes 16384×8192 images (134217728 pixels), above the pixel limit per image (67108864)']);
  t.deepEqual(found({ '1': empty(1024, 512), '2': scale('1', 0, 4096) }), []);
  t.deepEqual(found({ '1': empty(512, 1024), '2': scale('1', 8192, 0) }), ['workflow.2: ImageScale #2 makes 8192×16384 images (134217728 pixels), above the pixel limit per image (67108864)']);
  t.deepEqual(found({ '1': empty(512, 1024), '2': scale('1', 4096, 0) }), []);
  t.deepEqual(found({ '1': empty(1024, 512), '2': scale('1', 0, 0), '3': { class_type: 'ImageScaleBy', inputs: { image: ['2', 0], upscale_method: 'bilinear', scale_by: 16 } } }), [
    'workflow.3: ImageScaleBy #3 makes 16384×8192 images (134217728 pixels), above the pixel limit per image (67108864)',
  ]);
  // ImageBlend passes its first image's shape on.
  t.deepEqual(found({ '1': empty(64, 64), '2': scale('1', 16384, 8192), '3': { class_type: 'ImageBlend', inputs: { image1: ['2', 0], image2: ['1', 0], blend_factor: 0.5, blend_mode: 'normal' } } }).map((p) => p.split(':')[0]), ['workflow.2', 'workflow.3']);
  // Batches add up; ImageFromBatch takes at most its length of them.
  const batches: WorkflowGraph = {
    '1': empty(16, 16, 10),
    '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 40 } },
    '3': { class_type: 'ImageBatch', inputs: { image1: ['2', 0], image2: ['2', 0] } },
    '4': { class_type: 'ImageFromBatch', inputs: { image: ['3', 0], batch_index: 0, length: 64 } },
    '5': { class_type: 'ImageInvert', inputs: { image: ['4', 0] } },
  };
  t.deepEqual(found(batches), ['workflow.3: ImageBatch #3 makes a batch of 800 images, above the frame limit (600)']);
  t.deepEqual(found({ ...batches, '4': { class_type: 'ImageFromBatch', inputs: { image: ['3', 0], batch_index: 0, length: 65 } } }).map((p) => p.split(':')[0]), ['workflow.3', 'workflow.4.inputs.length']);
});

test('limits are inclusive: a workflow exactly at each limit passes, one above it does not', (t) => {
  const fields = (graph: WorkflowGraph) => checkResourceLimits(graph, L).map((p) => p.field);
  t.deepEqual(fields(canvas(16, 16, 64)), []);
  t.deepEqual(fields(canvas(16, 16, 65)), ['workflow.1.inputs.batch_size']);
  const frames = (amount: number): WorkflowGraph => ({
    '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 10, color: 0 } },
    '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount } },
    '3': { class_type: 'CreateVideo', inputs: { images: ['2', 0], fps: 5 } },
  });
  t.deepEqual(fields(frames(60)), [], '600 frames at 5 fps: 120 s');
  t.deepEqual(fields(frames(61)), ['workflow.2', 'workflow.3', 'workflow.3.inputs.fps']);
  // Output bytes count 3 per pixel: two 8192² images are 384 MB, under 512 MB, and pass a limit of exactly their size.
  t.deepEqual(fields(canvas(8192, 8192, 2)), []);
  t.deepEqual(checkResourceLimits(canvas(8192, 8192, 2), { ...L, maxOutputBytes: 8192 * 8192 * 3 * 2 }), []);
  t.deepEqual(checkResourceLimits(canvas(8192, 8192, 2), { ...L, maxOutputBytes: 8192 * 8192 * 3 * 2 - 1 }).map((p) => p.field), ['workflow']);
  t.deepEqual(checkResourceLimits(canvas(16, 16), { ...L, maxWorkflowNodes: 2 }), []);
  t.deepEqual(checkResourceLimits(canvas(16, 16), { ...L, maxWorkflowNodes: 1 }).map((p) => p.field), ['workflow']);
});

test('audio: an EmptyAudio longer than the video length limit is refused; at the limit it passes', (t) => {
  const audio = (duration: number): WorkflowGraph => ({ '1': { class_type: 'EmptyAudio', inputs: { duration, sample_rate: 44100, channels: 2 } } });
  t.deepEqual(checkResourceLimits(audio(120), L), []);
  t.deepEqual(checkResourceLimits(audio(121), L), [{ field: 'workflow.1.inputs.duration', message: 'EmptyAudio #1: duration 121 s is above the video length limit (120 s)' }]);
});

test('a cycle in the graph reads as an unknown shape, not an endless walk', (t) => {
  const cycle: WorkflowGraph = {
    '1': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
  };
  t.deepEqual(checkResourceLimits(cycle, L), []);
});

// Pins: each node's shape is worked out once per check. A chain of ImageBatch nodes that each take the one before twice
// would otherwise cost 2^20 walks here (seconds of CPU on the request path; 2^24 took 49 s), from a workflow anyone may post.
test('each shape is worked out once: a chain that doubles at every node is checked at once', (t) => {
  const chain: WorkflowGraph = { '0': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } };
  for (let i = 1; i <= 20; i += 1) chain[String(i)] = { class_type: 'ImageBatch', inputs: { image1: [String(i - 1), 0], image2: [String(i - 1), 0] } };
  const started = performance.now();
  const problems = checkResourceLimits(chain, L);
  const ms = performance.now() - started;
  t.true(ms < 500, `took ${Math.round(ms)} ms`);
  t.is(problems[0]?.field, 'workflow.10', 'the first node past the frame limit (600) is named: 2^10 frames');
});

// Pins: what cannot be known is unknown, never a guess or a crash: a link to a node the graph lacks; an ImageScale whose
// width or height comes from a link; an ImageScale that keeps a side of an image whose size is unknown (a LoadImage).
test('unknown shapes: a missing source node, a size from a link, a side kept of an unknown image', (t) => {
  const dangling: WorkflowGraph = {
    '2': { class_type: 'ImageInvert', inputs: { image: ['9', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
  };
  t.deepEqual(checkResourceLimits(dangling, L), []);
  const linkedHeight: WorkflowGraph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 8192, height: 8192, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 16384, height: ['5', 0], crop: 'disabled' } },
    '5': { class_type: 'PrimitiveInt', inputs: { value: 16 } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
  };
  t.deepEqual(checkResourceLimits(linkedHeight, L), [], 'a height from a link is not assumed to keep the aspect');
  const keptSide: WorkflowGraph = {
    '1': { class_type: 'LoadImage', inputs: { image: 'in.png' } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 0, height: 512, crop: 'disabled' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
  };
  t.deepEqual(checkResourceLimits(keptSide, L), []);
});
