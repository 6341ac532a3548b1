import test from 'ava';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { ExecuteResult, PromptGraph } from '../../adapters/builtin-engine/builtin-runtime.ts';

interface Env {
  rt: BuiltinRuntime;
  inputDir: string;
  outputDir: string;
  tempDir: string;
}

const makeEnv = (): Env => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-nodes-'));
  const dirs = { inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') };
  return { rt: new BuiltinRuntime(dirs), ...dirs };
};

type Item = { filename: string; subfolder: string; type: string };
const images = (r: ExecuteResult, node: string): Item[] => (r.outputs[node]?.['images'] as Item[] | undefined) ?? [];

const run = async (env: Env, prompt: PromptGraph): Promise<ExecuteResult> => {
  const v = env.rt.validate(prompt);
  if (!v.ok) throw new Error(JSON.stringify(v));
  return env.rt.execute('p', prompt);
};

/** Pixels of a saved PNG: [width, height, channels, pixel(x,y)]. */
const decode = async (file: string) => {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: info.channels,
    px: (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x + 1) * info.channels)],
  };
};

/** Writes a 40×20 test PNG: left half white, right half black, a red pixel at (0,0). */
const writeTestImage = async (env: Env, name: string, alpha = false): Promise<void> => {
  const [w, h, c] = [40, 20, alpha ? 4 : 3] as const;
  const buf = Buffer.alloc(w * h * c);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * c;
      buf.fill(x < 20 ? 255 : 0, o, o + 3);
      if (alpha) buf[o + 3] = y < 10 ? 255 : 0;
    }
  }
  buf.set([255, 0, 0], 0);
  const file = path.join(env.inputDir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  await sharp(buf, { raw: { width: w, height: h, channels: c } }).png().toFile(file);
};

const saveOf = (source: [string, number], prefix = 'ComfyUI') => ({ class_type: 'SaveImage', inputs: { images: source, filename_prefix: prefix } });
const out = (env: Env, item: Item) => path.join(item.type === 'temp' ? env.tempDir : env.outputDir, item.subfolder, item.filename);

test('EmptyImage → SaveImage writes PNGs of the right size and color, counting up', async (t) => {
  const env = makeEnv();
  const prompt = {
    '1': { class_type: 'EmptyImage', inputs: { width: 48, height: 24, batch_size: 2, color: 0x336699 } },
    '2': saveOf(['1', 0], 'probe/test'),
  };
  const r = await run(env, prompt);
  t.is(r.status, 'success');
  t.deepEqual(images(r, '2'), [
    { filename: 'test_00001_.png', subfolder: 'probe', type: 'output' },
    { filename: 'test_00002_.png', subfolder: 'probe', type: 'output' },
  ]);
  const img = await decode(out(env, images(r, '2')[0]!));
  t.deepEqual([img.width, img.height, img.channels], [48, 24, 3]);
  t.deepEqual(img.px(10, 10), [0x33, 0x66, 0x99]);
  const again = await run(env, prompt);
  t.is(images(again, '2')[0]!.filename, 'test_00003_.png');
});

test('PreviewImage writes temp files named ComfyUI_temp_xxxxx_00001_.png', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
    '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
  });
  const [item] = images(r, '2');
  t.regex(item!.filename, /^ComfyUI_temp_[a-z]{5}_00001_\.png$/);
  t.is(item!.type, 'temp');
  t.true(existsSync(out(env, item!)));
});

test('ImageInvert inverts every channel', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0x102030 } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': saveOf(['2', 0]),
  });
  t.deepEqual((await decode(out(env, images(r, '3')[0]!))).px(3, 3), [0xef, 0xdf, 0xcf]);
});

test('ImageBlur keeps flat areas and softens an edge; LoadImage reads subfolders', async (t) => {
  const env = makeEnv();
  await writeTestImage(env, 'sub/edge.png');
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'sub/edge.png' } },
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1 } },
    '3': saveOf(['2', 0]),
  });
  const img = await decode(out(env, images(r, '3')[0]!));
  t.deepEqual(img.px(10, 15), [255, 255, 255]);
  t.deepEqual(img.px(35, 15), [0, 0, 0]);
  const edge = img.px(19, 15)[0]!;
  t.true(edge > 0 && edge < 255, `edge pixel ${edge}`);
});

test('ImageBlur and ImageSharpen take a radius up to one below each side, and fail beyond it as torch reflect padding does', async (t) => {
  const env = makeEnv();
  await writeTestImage(env, 'edge.png');
  // 40 wide, 20 high: 19 fits both sides.
  const fits = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'edge.png' } },
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 19, sigma: 10 } },
    '3': saveOf(['2', 0]),
  });
  t.is(fits.status, 'success');
  const blurred = await decode(out(env, images(fits, '3')[0]!));
  t.deepEqual([blurred.width, blurred.height], [40, 20]);
  const failing = async (node: PromptGraph[string], image: PromptGraph[string]) => {
    const r = await env.rt.execute('p', { '1': image, '2': node, '3': saveOf(['2', 0]) });
    t.like(r, { status: 'error', nodeId: '2', exceptionType: 'RuntimeError', executed: ['1'] });
    return r.status === 'error' ? r.exceptionMessage : '';
  };
  const load = { class_type: 'LoadImage', inputs: { image: 'edge.png' } };
  t.is(
    await failing({ class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 20, sigma: 1 } }, load),
    'Argument #6: Padding size should be less than the corresponding input dimension, but got: padding (20, 20) at dimension 2 of input [1, 3, 20, 40]',
  );
  // The width is checked first, on the whole batch's shape.
  const narrow = { class_type: 'EmptyImage', inputs: { width: 8, height: 30, batch_size: 2, color: 0 } };
  t.is(
    await failing({ class_type: 'ImageSharpen', inputs: { image: ['1', 0], sharpen_radius: 8, sigma: 1, alpha: 1 } }, narrow),
    'Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (8, 8) at dimension 3 of input [2, 3, 30, 8]',
  );
  // Reflection, not repetition, at the edges: in a row 0 255 0 255 (rows alike), x = 0 sees 255 on both sides as
  // x = 2 does, and x = 3 sees 0 on both sides as x = 1 does.
  const stripes = Buffer.alloc(4 * 2 * 3);
  for (let p = 0; p < 8; p++) stripes.fill(p % 2 === 1 ? 255 : 0, p * 3, p * 3 + 3);
  await sharp(stripes, { raw: { width: 4, height: 2, channels: 3 } }).png().toFile(path.join(env.inputDir, 'stripes.png'));
  const reflected = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'stripes.png' } },
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 1, sigma: 1 } },
    '3': saveOf(['2', 0], 'r'),
  });
  const row = await decode(out(env, images(reflected, '3')[0]!));
  const values = [0, 1, 2, 3].map((x) => row.px(x, 0)[0]!);
  t.is(values[0], values[2], values.join());
  t.is(values[1], values[3], values.join());
  t.true(values.every((v) => v > 0 && v < 255) && values[0] !== values[1], values.join());
  const sharpened = await run(env, { '1': narrow, '2': { class_type: 'ImageSharpen', inputs: { image: ['1', 0], sharpen_radius: 7, sigma: 1, alpha: 1 } }, '3': saveOf(['2', 0], 's') });
  t.is(images(sharpened, '3').length, 2);
});

test('ImageScale keeps aspect with 0, crops center; ImageScaleBy scales', async (t) => {
  const env = makeEnv();
  await writeTestImage(env, 'edge.png');
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'edge.png' } },
    '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bilinear', width: 20, height: 0, crop: 'disabled' } },
    '3': saveOf(['2', 0], 'a'),
    '4': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 10, height: 10, crop: 'center' } },
    '5': saveOf(['4', 0], 'b'),
    '6': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'lanczos', scale_by: 1.5 } },
    '7': saveOf(['6', 0], 'c'),
  });
  const a = await decode(out(env, images(r, '3')[0]!));
  t.deepEqual([a.width, a.height], [20, 10]);
  const b = await decode(out(env, images(r, '5')[0]!));
  t.deepEqual([b.width, b.height], [10, 10]);
  // the center crop of a half-white/half-black image keeps both halves
  t.deepEqual(b.px(1, 5), [255, 255, 255]);
  t.deepEqual(b.px(8, 5), [0, 0, 0]);
  const c = await decode(out(env, images(r, '7')[0]!));
  t.deepEqual([c.width, c.height], [60, 30]);
});

test('ImageCrop, ImageFlip and ImageRotate move pixels as ComfyUI does', async (t) => {
  const env = makeEnv();
  await writeTestImage(env, 'edge.png', true);
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'edge.png' } },
    '2': { class_type: 'ImageCrop', inputs: { image: ['1', 0], width: 10, height: 10, x: 15, y: 5 } },
    '3': saveOf(['2', 0], 'crop'),
    '4': { class_type: 'ImageFlip', inputs: { image: ['1', 0], flip_method: 'y-axis: horizontally' } },
    '5': saveOf(['4', 0], 'flip'),
    '6': { class_type: 'ImageRotate', inputs: { image: ['1', 0], rotation: '90 degrees' } },
    '7': saveOf(['6', 0], 'rot'),
    '8': { class_type: 'ImageCrop', inputs: { image: ['1', 0], width: 100, height: 100, x: 500, y: 0 } },
    '9': saveOf(['8', 0], 'clamped'),
  });
  const crop = await decode(out(env, images(r, '3')[0]!));
  t.deepEqual([crop.width, crop.height], [10, 10]);
  t.deepEqual(crop.px(4, 0), [255, 255, 255]);
  t.deepEqual(crop.px(5, 0), [0, 0, 0]);
  const flip = await decode(out(env, images(r, '5')[0]!));
  t.deepEqual(flip.px(39, 0), [255, 0, 0]);
  t.deepEqual(flip.px(0, 5), [0, 0, 0]);
  const rot = await decode(out(env, images(r, '7')[0]!));
  t.deepEqual([rot.width, rot.height], [20, 40]);
  t.deepEqual(rot.px(19, 0), [255, 0, 0], 'clockwise: top-left goes to top-right');
  const clamped = await decode(out(env, images(r, '9')[0]!));
  t.deepEqual([clamped.width, clamped.height], [1, 20]);
});

test('ImageBlend modes and factor', async (t) => {
  const env = makeEnv();
  const blend = (mode: string, factor: number) => ({
    class_type: 'ImageBlend',
    inputs: { image1: ['1', 0], image2: ['2', 0], blend_factor: factor, blend_mode: mode },
  });
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0x808080 } },
    '2': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0xff0000 } },
    '3': blend('multiply', 1),
    '4': saveOf(['3', 0], 'mul'),
    '5': blend('normal', 0.5),
    '6': saveOf(['5', 0], 'half'),
    '7': blend('screen', 1),
    '8': saveOf(['7', 0], 'screen'),
  });
  const mul = await decode(out(env, images(r, '4')[0]!));
  t.deepEqual([mul.width, mul.height], [8, 8], 'image2 is resized to image1');
  t.deepEqual(mul.px(0, 0), [128, 0, 0]);
  t.deepEqual((await decode(out(env, images(r, '6')[0]!))).px(0, 0), [192, 64, 64]);
  t.deepEqual((await decode(out(env, images(r, '8')[0]!))).px(0, 0), [255, 128, 128]);
});

test('ImageBatch resizes image2 and concatenates; GetImageSize feeds PreviewAny', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 2, color: 0 } },
    '2': { class_type: 'EmptyImage', inputs: { width: 32, height: 8, batch_size: 3, color: 0xffffff } },
    '3': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } },
    '4': { class_type: 'GetImageSize', inputs: { image: ['3', 0] } },
    '5': { class_type: 'PreviewAny', inputs: { source: ['4', 2] } },
    '6': saveOf(['3', 0]),
  });
  t.deepEqual(r.outputs['5'], { text: ['5'] });
  const files = images(r, '6');
  t.is(files.length, 5);
  const last = await decode(out(env, files[4]!));
  t.deepEqual([last.width, last.height], [16, 16]);
  t.deepEqual(last.px(8, 8), [255, 255, 255]);
});

test('ImageBatch with RGB and RGBA fails at runtime like torch.cat', async (t) => {
  const env = makeEnv();
  const prompt = {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
    '2': { class_type: 'SolidMask', inputs: { value: 0.5, width: 8, height: 8 } },
    '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
    '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
    '5': saveOf(['4', 0]),
    '0': { class_type: 'PreviewAny', inputs: { source: 'before' } },
  };
  const r = await run(env, prompt);
  t.is(r.status, 'error');
  if (r.status !== 'error') return;
  t.is(r.nodeId, '4');
  t.is(r.nodeType, 'ImageBatch');
  t.is(r.exceptionType, 'RuntimeError');
  t.regex(r.exceptionMessage, /^Sizes of tensors must match except in dimension 0\. Expected size 3 but got size 4/);
  t.deepEqual(r.outputs['0'], { text: ['before'] }, 'outputs of nodes run before the failure are kept');
  t.false(r.executed.includes('4'));
});

test('LoadImage mask is 1 - alpha; MaskToImage, ImageToMask, SolidMask', async (t) => {
  const env = makeEnv();
  await writeTestImage(env, 'alpha.png', true);
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'alpha.png' } },
    '2': { class_type: 'MaskToImage', inputs: { mask: ['1', 1] } },
    '3': saveOf(['2', 0], 'mask'),
    '4': { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'red' } },
    '5': { class_type: 'MaskToImage', inputs: { mask: ['4', 0] } },
    '6': saveOf(['5', 0], 'red'),
    '7': { class_type: 'SolidMask', inputs: { value: 0.25, width: 4, height: 4 } },
    '8': { class_type: 'MaskToImage', inputs: { mask: ['7', 0] } },
    '9': saveOf(['8', 0], 'solid'),
  });
  const mask = await decode(out(env, images(r, '3')[0]!));
  t.deepEqual(mask.px(5, 2), [0, 0, 0], 'opaque → 0');
  t.deepEqual(mask.px(5, 15), [255, 255, 255], 'transparent → 1');
  const red = await decode(out(env, images(r, '6')[0]!));
  t.deepEqual(red.px(30, 2), [0, 0, 0]);
  t.deepEqual(red.px(0, 0), [255, 255, 255]);
  t.deepEqual((await decode(out(env, images(r, '9')[0]!))).px(0, 0), [64, 64, 64]);
});

test('ImageToMask alpha of an RGB image is an IndexError at runtime', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
    '2': { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'alpha' } },
    '3': { class_type: 'PreviewAny', inputs: { source: ['2', 0] } },
  });
  t.like(r, { status: 'error', nodeId: '2', exceptionType: 'IndexError' });
});

test('RepeatImageBatch and ImageFromBatch', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'EmptyImage', inputs: { width: 4, height: 4, batch_size: 2, color: 0 } },
    '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 3 } },
    '3': { class_type: 'ImageFromBatch', inputs: { image: ['2', 0], batch_index: 4, length: 10 } },
    '4': { class_type: 'GetImageSize', inputs: { image: ['2', 0] } },
    '5': { class_type: 'GetImageSize', inputs: { image: ['3', 0] } },
    '6': { class_type: 'PreviewAny', inputs: { source: ['4', 2] } },
    '7': { class_type: 'PreviewAny', inputs: { source: ['5', 2] } },
  });
  t.deepEqual([r.outputs['6'], r.outputs['7']], [{ text: ['6'] }, { text: ['2'] }]);
});

test('PreviewAny prints values like Python; StringConcatenate joins', async (t) => {
  const env = makeEnv();
  const r = await run(env, {
    '1': { class_type: 'PrimitiveFloat', inputs: { value: 2 } },
    '2': { class_type: 'PreviewAny', inputs: { source: ['1', 0] } },
    '3': { class_type: 'PrimitiveBoolean', inputs: { value: true } },
    '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
    '5': { class_type: 'StringConcatenate', inputs: { string_a: 'foo', string_b: 'bar', delimiter: ', ' } },
    '6': { class_type: 'PreviewAny', inputs: { source: ['5', 0] } },
    '7': { class_type: 'PrimitiveInt', inputs: { value: 42 } },
    '8': { class_type: 'PreviewAny', inputs: { source: ['7', 0] } },
  });
  t.deepEqual(r, {
    status: 'success',
    outputs: { '2': { text: ['2.0'] }, '4': { text: ['True'] }, '6': { text: ['foo, bar'] }, '8': { text: ['42'] } },
    executed: ['1', '2', '3', '4', '5', '6', '7', '8'],
  });
});

test('hooks: execution start, cached list, executing per node, executed with the ui dict', async (t) => {
  const env = makeEnv();
  const events: string[] = [];
  const r = await env.rt.execute(
    'p',
    {
      '1': { class_type: 'PrimitiveString', inputs: { value: 'hi' } },
      '2': { class_type: 'PreviewAny', inputs: { source: ['1', 0] } },
    },
    {
      onExecutionStart: () => events.push('start'),
      onCached: (ids) => events.push(`cached:${ids.join(',')}`),
      onExecuting: (id) => events.push(`executing:${id}`),
      onExecuted: (id, o) => events.push(`executed:${id}:${JSON.stringify(o)}`),
    },
  );
  t.is(r.status, 'success');
  t.deepEqual(events, ['start', 'cached:', 'executing:1', 'executing:2', 'executed:2:{"text":["hi"]}']);
});

test('progress: per-frame events, at most ~20 per node, ending at max', async (t) => {
  const env = makeEnv();
  const progress: [number, number, string][] = [];
  const r = await env.rt.execute(
    'p',
    {
      '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 60, color: 0 } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 2, sigma: 1 } },
      '3': { class_type: 'PreviewAny', inputs: { source: ['2', 0] } },
    },
    { onProgress: (v, m, n) => progress.push([v, m, n]) },
  );
  t.is(r.status, 'success');
  const blur = progress.filter(([, , n]) => n === '2');
  t.true(blur.length >= 10 && blur.length <= 21, `${blur.length} events`);
  t.deepEqual(blur.at(-1), [60, 60, '2']);
});

test('interrupt during a long ImageBlur stops inside the node; an early interrupt stops before the first node', async (t) => {
  const env = makeEnv();
  let stop = false;
  const started = Date.now();
  const r = await env.rt.execute(
    'p',
    {
      '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 16, color: 0x808080 } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 1 } },
      '3': { class_type: 'PreviewImage', inputs: { images: ['2', 0] } },
    },
    { onProgress: () => (stop = true), isInterrupted: () => stop },
  );
  t.deepEqual(r, { status: 'interrupted', nodeId: '2', nodeType: 'ImageBlur', executed: ['1'], outputs: {} });
  t.true(Date.now() - started < 5000, 'the 16-frame blur did not run to the end');
  const early = await env.rt.execute('q', { '1': { class_type: 'PreviewAny', inputs: { source: 'x' } } }, { isInterrupted: () => true });
  t.like(early, { status: 'interrupted', nodeId: '1', executed: [] });
});

test('LoadImage turns a 16-bit grayscale PNG into 8-bit RGB; a non-image fails like PIL', async (t) => {
  const env = makeEnv();
  mkdirSync(env.inputDir, { recursive: true });
  const grey16 = path.join(env.inputDir, 'grey16.png');
  await sharp(Buffer.alloc(16, 128), { raw: { width: 4, height: 4, channels: 1 } }).toColourspace('grey16').png().toFile(grey16);
  t.is((await sharp(grey16).metadata()).bitsPerSample, 16);
  writeFileSync(path.join(env.inputDir, 'broken.png'), 'not a png');
  const r = await run(env, {
    '1': { class_type: 'LoadImage', inputs: { image: 'grey16.png' } },
    '2': { class_type: 'GetImageSize', inputs: { image: ['1', 0] } },
    '3': saveOf(['1', 0]),
    '4': { class_type: 'PreviewAny', inputs: { source: ['1', 1] } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  const img = await decode(out(env, images(r, '3')[0]!));
  t.is(img.channels, 3);
  t.deepEqual(img.px(1, 1), [128, 128, 128]);
  t.deepEqual(r.outputs['4'], { text: ['tensor(shape=[1, 64, 64])'] }, 'no alpha: a 64×64 zero mask, as ComfyUI does');
  const broken = await run(env, { '1': { class_type: 'LoadImage', inputs: { image: 'broken.png' } }, '2': saveOf(['1', 0]) });
  t.like(broken, { status: 'error', nodeId: '1', exceptionType: 'PIL.UnidentifiedImageError' });
});
