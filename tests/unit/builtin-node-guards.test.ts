import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { ExecuteResult, PromptGraph, ValidateResult } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { NodeDef } from '../../adapters/builtin-engine/types.ts';
import { DEFAULT_RESOURCE_LIMITS, type ResourceLimits } from '../../core/domain/resource-limits.ts';
import { customNode } from '../support/custom-node.ts';

// Guards of the image and utility nodes and of the pixel helpers they share, against what ComfyUI's nodes do.

const makeEnv = (extraNodes: NodeDef[] = [], limits?: Partial<ResourceLimits>) => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-node-guards-'));
  const dirs = { inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') };
  return { rt: new BuiltinRuntime({ ...dirs, extraNodes, ...(limits ? { limits: { ...DEFAULT_RESOURCE_LIMITS, ...limits } } : {}) }), ...dirs };
};
type Env = ReturnType<typeof makeEnv>;

const run = async (env: Env, prompt: PromptGraph): Promise<ExecuteResult> => {
  const v = env.rt.validate(prompt);
  if (!v.ok) throw new Error(JSON.stringify(v));
  return env.rt.execute('p', prompt, {}, v.outputs);
};

const failed = (r: ValidateResult) => {
  if (r.ok) throw new Error('expected a validation failure');
  return r;
};

type Item = { filename: string; subfolder: string; type: string };
/** Pixel (x, y) of the first file a save node wrote. */
const pixelOf = async (env: Env, r: ExecuteResult, node: string, x: number, y: number): Promise<number[]> => {
  const item = (r.outputs[node]?.['images'] as Item[])[0]!;
  const { data, info } = await sharp(path.join(env.outputDir, item.subfolder, item.filename)).raw().toBuffer({ resolveWithObject: true });
  const o = (y * info.width + x) * info.channels;
  return [...data.subarray(o, o + 3)];
};

const text = (r: ExecuteResult, node: string): unknown => (r.outputs[node]?.['text'] as unknown[] | undefined)?.[0];

/** A PNG of vertical (or horizontal) bands of colours, each `band` pixels wide. */
const writeBands = async (file: string, colours: [number, number, number][], band: number, vertical: boolean) => {
  const [w, h] = vertical ? [band * colours.length, band * 2] : [band * 2, band * colours.length];
  const buf = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) buf.set(colours[Math.floor((vertical ? x : y) / band)]!, (y * w + x) * 3);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  await sharp(buf, { raw: { width: w, height: h, channels: 3 } }).png().toFile(file);
};

const grey = (v: number) => ({ class_type: 'EmptyImage', inputs: { width: 4, height: 4, batch_size: 1, color: v * 0x010101 } });
const save = (images: [string, number], prefix: string) => ({ class_type: 'SaveImage', inputs: { images, filename_prefix: prefix } });
const blend = (mode: string, a = '1', b = '2') => ({ class_type: 'ImageBlend', inputs: { image1: [a, 0], image2: [b, 0], blend_factor: 1, blend_mode: mode } });

// --- image-nodes.ts

// Pins: LoadImage's list (object_info) offers the image files of the input folder, sorted, as ComfyUI's does: no
// other files, no folders; a missing input folder is an empty list, not a failing /object_info.
test('LoadImage offers the input folder\'s image files, sorted', async (t) => {
  const env = makeEnv();
  for (const name of ['b.png', 'a.JPG', 'notes.txt', 'c.webp']) writeFileSync(path.join(env.inputDir, name), 'x');
  mkdirSync(path.join(env.inputDir, 'folder.png'));
  const options = () => (env.rt.objectInfo()['LoadImage']!.input.required['image'] as unknown[])[0];
  t.deepEqual(options(), ['a.JPG', 'b.png', 'c.webp']);
  rmSync(env.inputDir, { recursive: true });
  t.deepEqual(options(), []);
});

// Pins: folder_paths' annotated names: "name [output]" and "name [temp]" load from those folders, plain names and
// "[input]" from input; an annotated name cannot climb out of its folder.
test('LoadImage reads "[output]", "[temp]" and "[input]" annotated names from those folders', async (t) => {
  const env = makeEnv();
  await writeBands(path.join(env.outputDir, 'pic.png'), [[255, 0, 0]], 2, true);
  await writeBands(path.join(env.tempDir, 'pic.png'), [[0, 255, 0]], 2, true);
  await writeBands(path.join(env.inputDir, 'pic.png'), [[0, 0, 255]], 2, true);
  const load = (image: string) => ({ '1': { class_type: 'LoadImage', inputs: { image } }, '2': save(['1', 0], image.replace(/\W/g, '')) });
  for (const [name, colour] of [['pic.png [output]', [255, 0, 0]], ['pic.png [temp]', [0, 255, 0]], ['pic.png [input]', [0, 0, 255]], ['pic.png', [0, 0, 255]]] as const) {
    const r = await run(env, load(name));
    t.deepEqual(await pixelOf(env, r, '2', 0, 0), [...colour], name);
  }
  const escape = failed(env.rt.validate(load('../in/pic.png [output]')));
  t.is(escape.node_errors['1']!.errors[0]!.details, 'image - Invalid image file: ../in/pic.png [output]');
});

// Pins: only an existing file is a valid LoadImage choice: a folder, or a value that is no file name, is refused at
// validation instead of failing (or crashing) the run.
test('LoadImage refuses a folder or a non-string name at validation', (t) => {
  const env = makeEnv();
  mkdirSync(path.join(env.inputDir, 'folder.png'));
  for (const image of ['folder.png', 5]) {
    const r = failed(env.rt.validate({ '1': { class_type: 'LoadImage', inputs: { image } }, '2': save(['1', 0], 'x') }));
    t.deepEqual(
      r.node_errors['1']!.errors.map((e) => [e.type, e.details]),
      [['custom_validation_failed', `image - Invalid image file: ${image}`]],
    );
  }
});

// Pins: like ComfyUI's LoadImage (ImageSequence), an animated file loads as a batch of its frames, each of the frame's
// height, with one (empty 64×64) mask per frame when it has no alpha.
test('LoadImage of an animated image gives one image and one mask per frame', async (t) => {
  const env = makeEnv();
  const frame = (v: number) => Buffer.alloc(6 * 4 * 3, v);
  await sharp(Buffer.concat([frame(0), frame(255)]), { raw: { width: 6, height: 8, channels: 3, pageHeight: 4 } })
    .webp({ loop: 0, delay: [100, 100], lossless: true })
    .toFile(path.join(env.inputDir, 'anim.webp'));
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'anim.webp' } },
    '2': { class_type: 'PreviewAny', inputs: { source: ['1', 0] } },
    '3': { class_type: 'PreviewAny', inputs: { source: ['1', 1] } },
    '4': { class_type: 'ImageFromBatch', inputs: { image: ['1', 0], batch_index: 1, length: 1 } },
    '5': save(['4', 0], 'second'),
  });
  t.is(text(r, '2'), 'tensor(shape=[2, 4, 6, 3])');
  t.is(text(r, '3'), 'tensor(shape=[2, 64, 64])');
  t.deepEqual(await pixelOf(env, r, '5', 5, 3), [255, 255, 255], 'the second frame is the white one');
});

// Pins: ImageBlend's modes are ComfyUI's formulas (overlay and soft light on both sides of their pivots), clamped to
// 0..1 as torch.clamp does (a negative difference is black, not wrapped round).
test('ImageBlend overlay, soft light and difference follow ComfyUI\'s formulas, clamped', async (t) => {
  const env = makeEnv();
  const pairs: [string, number, number, number][] = [
    ['overlay', 64, 192, 96],
    ['overlay', 192, 64, 161],
    ['soft_light', 26, 255, 77],
    ['soft_light', 192, 255, 221],
    ['soft_light', 192, 64, 168],
    ['difference', 192, 64, 128],
    ['difference', 64, 192, 0],
  ];
  for (const [mode, a, b, expected] of pairs) {
    const r = await run(env, { '1': grey(a), '2': grey(b), '3': blend(mode), '4': save(['3', 0], mode) });
    t.deepEqual(await pixelOf(env, r, '4', 1, 1), [expected, expected, expected], `${mode} ${a} ${b}`);
  }
});

// Pins: ImageBlend broadcasts a batch of one against a longer batch; other batch or channel mismatches fail as torch
// fails them, naming the sizes.
test('ImageBlend broadcasts a single image over a batch, and refuses other mismatches as torch does', async (t) => {
  const env = makeEnv();
  const batchOf = (n: number, v: number) => ({ class_type: 'EmptyImage', inputs: { width: 4, height: 4, batch_size: n, color: v } });
  const one = await run(env, { '1': batchOf(1, 0), '2': batchOf(3, 0xffffff), '3': blend('normal'), '4': { class_type: 'GetImageSize', inputs: { image: ['3', 0] } }, '5': { class_type: 'PreviewAny', inputs: { source: ['4', 2] } } });
  t.is(text(one, '5'), '3');
  const mismatch = await run(env, { '1': batchOf(2, 0), '2': batchOf(3, 0), '3': blend('normal'), '4': save(['3', 0], 'm') });
  t.like(mismatch, { status: 'error', nodeId: '3', exceptionType: 'RuntimeError', exceptionMessage: 'The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0' });
  const rgba = await run(env, {
    '1': batchOf(1, 0),
    '2': { class_type: 'SolidMask', inputs: { value: 1, width: 4, height: 4 } },
    '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
    '4': blend('normal', '1', '3'),
    '5': save(['4', 0], 'c'),
  });
  t.like(rgba, { status: 'error', nodeId: '4', exceptionType: 'RuntimeError', exceptionMessage: 'The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 3' });
});

// Pins: image2 of another size is scaled to image1's size first, as ComfyUI does: the blend has image1's size and,
// in normal mode at factor 1, image2's colour everywhere.
test('ImageBlend scales an image2 of another size to image1\'s', async (t) => {
  const env = makeEnv();
  const sized = (width: number, height: number, color: number) => ({ class_type: 'EmptyImage', inputs: { width, height, batch_size: 1, color } });
  const r = await run(env, {
    '1': sized(8, 6, 0),
    '2': sized(4, 4, 0xffffff),
    '3': blend('normal'),
    '4': { class_type: 'GetImageSize', inputs: { image: ['3', 0] } },
    '5': { class_type: 'PreviewAny', inputs: { source: ['4', 0] } },
    '6': { class_type: 'PreviewAny', inputs: { source: ['4', 1] } },
    '7': save(['3', 0], 'scaled'),
  });
  t.deepEqual([text(r, '5'), text(r, '6')], ['8', '6']);
  t.deepEqual(await pixelOf(env, r, '7', 7, 5), [255, 255, 255]);
});

// --- image-ops.ts

// Pins: ImageSharpen overshoots at an edge and ComfyUI clamps the result: the bright side is white and the dark
// side black, never wrapped round to other values.
test('ImageSharpen clamps its overshoot to white and black', async (t) => {
  const env = makeEnv();
  await writeBands(path.join(env.inputDir, 'edge.png'), [[200, 200, 200], [40, 40, 40]], 6, true);
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'edge.png' } },
    '2': { class_type: 'ImageSharpen', inputs: { image: ['1', 0], sharpen_radius: 2, sigma: 1, alpha: 5 } },
    '3': save(['2', 0], 'sharp'),
  });
  t.deepEqual(await pixelOf(env, r, '3', 5, 3), [255, 255, 255]);
  t.deepEqual(await pixelOf(env, r, '3', 6, 3), [0, 0, 0]);
  t.deepEqual(await pixelOf(env, r, '3', 0, 3), [200, 200, 200], 'flat areas stay as they are');
});

// Pins: comfy.utils.common_upscale's center crop cuts the sides of a wider image and the top and bottom of a taller
// one to the target's aspect before scaling.
test('a center crop cuts the sides of a wide image and the ends of a tall one', async (t) => {
  const env = makeEnv();
  const bands: [number, number, number][] = [[255, 0, 0], [255, 255, 255], [0, 0, 0], [0, 0, 255]];
  await writeBands(path.join(env.inputDir, 'wide.png'), bands, 10, true);
  await writeBands(path.join(env.inputDir, 'tall.png'), bands, 10, false);
  const scale = (image: string) => ({ class_type: 'ImageScale', inputs: { image: [image, 0], upscale_method: 'nearest-exact', width: 10, height: 10, crop: 'center' } });
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'wide.png' } },
    '2': scale('1'),
    '3': save(['2', 0], 'wide'),
    '4': { class_type: 'LoadImage', inputs: { image: 'tall.png' } },
    '5': scale('4'),
    '6': save(['5', 0], 'tall'),
  });
  t.deepEqual([await pixelOf(env, r, '3', 0, 5), await pixelOf(env, r, '3', 9, 5)], [[255, 255, 255], [0, 0, 0]]);
  t.deepEqual([await pixelOf(env, r, '6', 5, 0), await pixelOf(env, r, '6', 5, 9)], [[255, 255, 255], [0, 0, 0]]);
});

// Pins: a node handed something that is not an image or mask (a custom node's wrong output, an empty batch) fails
// with a TypeError naming the input, not with a JavaScript crash.
test('an input that is not an image or a mask fails the node with a TypeError naming it', async (t) => {
  const fake = (name: string, type: string, value: unknown): NodeDef => customNode(name, { required: {} }, async () => ({ outputs: [value] }), { output: [type] });
  const env = makeEnv([
    fake('NotImage', 'IMAGE', 'not an image'),
    fake('NoFrames', 'IMAGE', { kind: 'IMAGE', frames: [] }),
    fake('NullImage', 'IMAGE', null),
    fake('NotMask', 'MASK', { kind: 'IMAGE', frames: [] }),
    fake('NoPlanes', 'MASK', { kind: 'MASK', width: 1, height: 1, planes: [] }),
  ]);
  for (const source of ['NotImage', 'NoFrames', 'NullImage']) {
    const r = await run(env, { '1': { class_type: source, inputs: {} }, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } }, '3': save(['2', 0], 'x') });
    t.like(r, { status: 'error', nodeId: '2', exceptionType: 'TypeError', exceptionMessage: 'image is not an IMAGE' }, source);
  }
  for (const source of ['NotMask', 'NoPlanes']) {
    const r = await run(env, { '1': { class_type: source, inputs: {} }, '2': { class_type: 'MaskToImage', inputs: { mask: ['1', 0] } }, '3': save(['2', 0], 'x') });
    t.like(r, { status: 'error', nodeId: '2', exceptionType: 'TypeError', exceptionMessage: 'mask is not a MASK' }, source);
  }
});

// --- transform-nodes.ts

/** Width and height of each file a save node wrote. */
const sizesOf = async (env: Env, r: ExecuteResult, node: string): Promise<[number, number][]> =>
  Promise.all(
    (r.outputs[node]?.['images'] as Item[]).map(async (item) => {
      const meta = await sharp(path.join(env.outputDir, item.subfolder, item.filename)).metadata();
      return [meta.width, meta.height] as [number, number];
    }),
  );
const empty = (width: number, height: number, batchSize = 1, color = 0) => ({ class_type: 'EmptyImage', inputs: { width, height, batch_size: batchSize, color } });
const scale = (width: number, height: number) => ({ class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width, height, crop: 'disabled' } });
/** Runs `node` as node 2 on `image` as node 1, saving its images; the result and the saved sizes. */
const through = async (env: Env, image: object, node: object) => {
  const r = await env.rt.execute('p', { '1': image, '2': node, '3': save(['2', 0], 'out') } as PromptGraph);
  return { r, sizes: r.status === 'success' ? await sizesOf(env, r, '3') : [] };
};
const failure = (r: ExecuteResult) => (r.status === 'error' ? { nodeId: r.nodeId, type: r.exceptionType, message: r.exceptionMessage } : r.status);

// Pins comfy's ImageScale: 0 × 0 passes the image on; one side 0 keeps the aspect, max(1, round(...)) with Python's
// half-to-even round.
test('ImageScale passes 0 × 0 on, and keeps the aspect for a side of 0, rounded half to even, at least 1', async (t) => {
  const env = makeEnv();
  t.deepEqual((await through(env, empty(40, 20), scale(0, 0))).sizes, [[40, 20]]);
  t.deepEqual((await through(env, empty(40, 20), scale(0, 10))).sizes, [[20, 10]]);
  // 7 × 1 / 2 = 3.5 → 4; 2 × 1 / 7 = 0.29 → 0 → 1.
  t.deepEqual((await through(env, empty(7, 2), scale(0, 1))).sizes, [[4, 1]]);
  t.deepEqual((await through(env, empty(2, 7), scale(1, 0))).sizes, [[1, 4]]);
  t.deepEqual((await through(env, empty(2, 40), scale(0, 10))).sizes, [[1, 10]]);
});

// Pins ImageScaleBy's own error for a scale that leaves no pixel (torch's interpolate words).
test('ImageScaleBy to a side of 0 fails with the interpolation error', async (t) => {
  const { r } = await through(makeEnv(), empty(40, 20), { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 0.01 } });
  t.deepEqual(failure(r), { nodeId: '2', type: 'RuntimeError', message: 'Input and output sizes should be greater than 0, but got output (H: 0, W: 0)' });
});

// Pins the run-time caps on the nodes that make images from others: each checks what it is about to make.
test('ImageScale, ImageScaleBy, ImageBatch and RepeatImageBatch are held to the pixel, frame and batch caps', async (t) => {
  const env = makeEnv([], { maxImagePixels: 1000, maxFrames: 5, maxBatchSize: 3 });
  const refused = async (image: object, node: object, message: string) => {
    const { r } = await through(env, image, node);
    t.deepEqual(failure(r), { nodeId: '2', type: 'ResourceLimitError', message });
  };
  await refused(empty(20, 20), scale(50, 50), '50×50 images (2500 pixels) are above the pixel limit per image (1000)');
  await refused(empty(20, 20), { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'bilinear', scale_by: 2 } }, '40×40 images (1600 pixels) are above the pixel limit per image (1000)');
  await refused(empty(4, 4, 3), { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['1', 0] } }, 'a batch of 6 images is above the frame limit (5)');
  await refused(empty(4, 4, 1), { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 4 } }, 'amount 4 is above the batch size limit (3)');
  await refused(empty(4, 4, 2), { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 3 } }, 'a batch of 6 images is above the frame limit (5)');
  t.deepEqual((await through(env, empty(4, 4, 1), { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 3 } })).sizes, [[4, 4], [4, 4], [4, 4]]);
});

// Pins ImageBatch: image2 is scaled to image1's size when either side differs.
test('ImageBatch scales a second image of another height to the first one\'s size', async (t) => {
  const env = makeEnv();
  const r = await run(env, { '1': empty(4, 4), '2': empty(4, 8), '3': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } }, '4': save(['3', 0], 'b') });
  t.deepEqual(await sizesOf(env, r, '4'), [[4, 4], [4, 4]]);
});

// Pins ImageCrop's slicing: a y past the bottom is the last row, as x past the right edge is the last column.
test('ImageCrop below the image takes its last row', async (t) => {
  const env = makeEnv();
  await writeBands(path.join(env.inputDir, 'rows.png'), [[255, 0, 0], [0, 0, 255]], 2, false);
  const { r, sizes } = await through(env, { class_type: 'LoadImage', inputs: { image: 'rows.png' } }, { class_type: 'ImageCrop', inputs: { image: ['1', 0], width: 4, height: 4, x: 0, y: 99 } });
  t.deepEqual(sizes, [[4, 1]]);
  t.deepEqual(await pixelOf(env, r, '3', 0, 0), [0, 0, 255]);
});

// Pins ImageFromBatch: the start is clamped to the last image, the length to what is left.
test('ImageFromBatch takes `length` images from `batch_index`, clamped to the batch', async (t) => {
  const env = makeEnv();
  const three = {
    '1': grey(10),
    '2': grey(20),
    '3': grey(30),
    '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } },
    '5': { class_type: 'ImageBatch', inputs: { image1: ['4', 0], image2: ['3', 0] } },
  };
  const pick = async (batchIndex: number, length: number) => {
    const r = await run(env, { ...three, '6': { class_type: 'ImageFromBatch', inputs: { image: ['5', 0], batch_index: batchIndex, length } }, '7': save(['6', 0], `f${batchIndex}-${length}`) });
    const items = r.outputs['7']?.['images'] as Item[];
    return Promise.all(items.map(async (item) => (await sharp(path.join(env.outputDir, item.subfolder, item.filename)).raw().toBuffer())[0]));
  };
  t.deepEqual(await pick(0, 2), [10, 20]);
  t.deepEqual(await pick(1, 5), [20, 30]);
  t.deepEqual(await pick(99, 2), [30]);
});

// --- utility-nodes.ts

// Pins: PreviewAny prints like ComfyUI's: str() of numbers (floats as repr, also when given as a literal), True/False,
// None, and json.dumps (ensure_ascii, Python's separators and float repr) of lists and dicts.
test('PreviewAny prints literals as str() and json.dumps do', async (t) => {
  const env = makeEnv();
  const preview = (source: unknown) => ({ class_type: 'PreviewAny', inputs: { source } });
  const r = await run(env, {
    '1': preview(1e-7),
    '2': preview(2.5),
    '3': preview(3),
    '4': preview(false),
    '5': preview(null),
    '6': preview({ __value__: [1, 0.5, 1e-7, 'é\u{1F600}', true, null, { k: 'v' }] }),
    '7': preview({ a: [1.5], 'b\u007f': 'x' }),
  });
  t.is(r.status, 'success', JSON.stringify(r));
  t.deepEqual(
    ['1', '2', '3', '4', '5', '6', '7'].map((id) => text(r, id)),
    ['1e-07', '2.5', '3', 'False', 'None', '[1, 0.5, 1e-07, "\\u00e9\\ud83d\\ude00", true, null, {"k": "v"}]', '{"a": [1.5], "b\\u007f": "x"}'],
  );
});

// Pins: PreviewAny of an image, a mask, a video or audio prints what it is (its shape) rather than "None" or a dump
// of every pixel.
test('PreviewAny names images, masks, videos and audio', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 5, height: 3, batch_size: 2, color: 0 } },
    '2': { class_type: 'PreviewAny', inputs: { source: ['1', 0] } },
    '3': { class_type: 'SolidMask', inputs: { value: 1, width: 5, height: 3 } },
    '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
    '5': { class_type: 'CreateVideo', inputs: { images: ['1', 0], fps: 10 } },
    '6': { class_type: 'PreviewAny', inputs: { source: ['5', 0] } },
    '7': { class_type: 'EmptyAudio', inputs: { duration: 1, sample_rate: 8000, channels: 1 } },
    '8': { class_type: 'PreviewAny', inputs: { source: ['7', 0] } },
  });
  t.deepEqual(
    ['2', '4', '6', '8'].map((id) => text(r, id)),
    ['tensor(shape=[2, 3, 5, 3])', 'tensor(shape=[1, 3, 5])', '<comfy_api.latest._input_impl.video_types.VideoFromComponents object>', '<audio>'],
  );
});
