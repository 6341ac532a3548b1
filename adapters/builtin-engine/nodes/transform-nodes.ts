/** Size, orientation and batch nodes: ImageScale(By), ImageCrop, ImageFlip, ImageRotate, ImageBatch, RepeatImageBatch, ImageFromBatch. */
import { NodeError } from '../types.ts';
import type { Frame, NodeContext, NodeDef } from '../types.ts';
import { MAX_RESOLUTION, UPSCALE_METHODS, asImage, batch, cropRect, fromSharp, resizeFrame, sharpOf } from '../image-ops.ts';
import { pyRound } from '../py-format.ts';
import { ensureBatchSize, ensureImages } from '../run-limits.ts';

const mapFrames = async (frames: Frame[], ctx: NodeContext, fn: (f: Frame) => Promise<Frame>): Promise<Frame[]> => {
  const out: Frame[] = [];
  for (const [n, f] of frames.entries()) {
    await ctx.tick();
    out.push(await fn(f));
    ctx.progress(n + 1, frames.length);
  }
  return out;
};

const simple = (
  name: string,
  displayName: string,
  category: string,
  pythonModule: string,
  required: Record<string, [string | unknown[], Record<string, unknown>?]>,
  run: NodeDef['run'],
): NodeDef => ({
  name,
  displayName,
  description: '',
  category,
  pythonModule,
  outputNode: false,
  inputTypes: () => ({ required: { image: ['IMAGE'], ...required } }),
  output: ['IMAGE'],
  run,
});

const SIZE = { min: 0, max: MAX_RESOLUTION, step: 1 };

export const transformNodes: NodeDef[] = [
  simple(
    'ImageScale',
    'Upscale Image',
    'image/upscaling',
    'nodes',
    {
      upscale_method: [UPSCALE_METHODS],
      width: ['INT', { default: 512, ...SIZE }],
      height: ['INT', { default: 512, ...SIZE }],
      crop: [['disabled', 'center']],
    },
    async (i, ctx) => {
      const img = asImage(i['image']);
      let [w, h] = [i['width'] as number, i['height'] as number];
      if (w === 0 && h === 0) return { outputs: [img] };
      const f = img.frames[0]!;
      if (w === 0) w = Math.max(1, pyRound((f.width * h) / f.height));
      else if (h === 0) h = Math.max(1, pyRound((f.height * w) / f.width));
      ensureImages(ctx.env, w, h, img.frames.length);
      const frames = await mapFrames(img.frames, ctx, (x) => resizeFrame(x, w, h, i['upscale_method'] as string, i['crop'] as string));
      return { outputs: [batch(frames)] };
    },
  ),
  simple(
    'ImageScaleBy',
    'Upscale Image By',
    'image/upscaling',
    'nodes',
    { upscale_method: [UPSCALE_METHODS], scale_by: ['FLOAT', { default: 1.0, min: 0.01, max: 8.0, step: 0.01 }] },
    async (i, ctx) => {
      const img = asImage(i['image']);
      const f = img.frames[0]!;
      const s = i['scale_by'] as number;
      const [w, h] = [pyRound(f.width * s), pyRound(f.height * s)];
      if (w < 1 || h < 1) throw new NodeError(`Input and output sizes should be greater than 0, but got output (H: ${h}, W: ${w})`);
      ensureImages(ctx.env, w, h, img.frames.length);
      const frames = await mapFrames(img.frames, ctx, (x) => resizeFrame(x, w, h, i['upscale_method'] as string, 'disabled'));
      return { outputs: [batch(frames)] };
    },
  ),
  simple(
    'ImageCrop',
    'Image Crop',
    'image/transform',
    'comfy_extras.nodes_images',
    {
      width: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
      height: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
      x: ['INT', { default: 0, ...SIZE }],
      y: ['INT', { default: 0, ...SIZE }],
    },
    async (i) => {
      const img = asImage(i['image']);
      const f = img.frames[0]!;
      // image[:, y:y+height, x:x+width] with x, y clamped to the last pixel, as ComfyUI slices.
      const x = Math.min(i['x'] as number, f.width - 1);
      const y = Math.min(i['y'] as number, f.height - 1);
      const w = Math.min(i['width'] as number, f.width - x);
      const h = Math.min(i['height'] as number, f.height - y);
      return { outputs: [batch(img.frames.map((fr) => cropRect(fr, x, y, w, h)))] };
    },
  ),
  simple(
    'ImageFlip',
    'Image Flip',
    'image/transform',
    'comfy_extras.nodes_images',
    { flip_method: [['x-axis: vertically', 'y-axis: horizontally']] },
    async (i, ctx) => {
      const vertical = i['flip_method'] === 'x-axis: vertically';
      const frames = await mapFrames(asImage(i['image']).frames, ctx, (f) =>
        fromSharp(vertical ? sharpOf(f).flip() : sharpOf(f).flop()),
      );
      return { outputs: [batch(frames)] };
    },
  ),
  simple(
    'ImageRotate',
    'Image Rotate',
    'image/transform',
    'comfy_extras.nodes_images',
    { rotation: [['none', '90 degrees', '180 degrees', '270 degrees']] },
    async (i, ctx) => {
      const img = asImage(i['image']);
      const degrees = { none: 0, '90 degrees': 90, '180 degrees': 180, '270 degrees': 270 }[i['rotation'] as string] ?? 0;
      if (degrees === 0) return { outputs: [img] };
      // torch.rot90(k, dims=[2, 1]) turns clockwise, as sharp's rotate does.
      const frames = await mapFrames(img.frames, ctx, (f) => fromSharp(sharpOf(f).rotate(degrees)));
      return { outputs: [batch(frames)] };
    },
  ),
  {
    name: 'ImageBatch',
    displayName: 'Batch Images',
    description: '',
    category: 'image',
    pythonModule: 'nodes',
    outputNode: false,
    inputTypes: () => ({ required: { image1: ['IMAGE'], image2: ['IMAGE'] } }),
    output: ['IMAGE'],
    async run(i, ctx) {
      const a = asImage(i['image1'], 'image1');
      let b = asImage(i['image2'], 'image2');
      const fa = a.frames[0]!;
      const fb = b.frames[0]!;
      ensureImages(ctx.env, fa.width, fa.height, a.frames.length + b.frames.length);
      if (fa.width !== fb.width || fa.height !== fb.height) {
        b = batch(await mapFrames(b.frames, ctx, (f) => resizeFrame(f, fa.width, fa.height, 'bilinear', 'center')));
      }
      if (fa.channels !== fb.channels) {
        throw new NodeError(
          `Sizes of tensors must match except in dimension 0. Expected size ${fa.channels} but got size ${fb.channels} for tensor number 1 in the list.`,
        );
      }
      return { outputs: [batch([...a.frames, ...b.frames])] };
    },
  },
  {
    name: 'RepeatImageBatch',
    displayName: 'RepeatImageBatch',
    description: '',
    category: 'image/batch',
    pythonModule: 'comfy_extras.nodes_images',
    outputNode: false,
    inputTypes: () => ({ required: { image: ['IMAGE'], amount: ['INT', { default: 1, min: 1, max: 4096 }] } }),
    output: ['IMAGE'],
    async run(i, ctx) {
      const img = asImage(i['image']);
      ensureBatchSize(ctx.env, 'amount', i['amount'] as number);
      ensureImages(ctx.env, img.frames[0]!.width, img.frames[0]!.height, img.frames.length * (i['amount'] as number));
      const frames = Array.from({ length: i['amount'] as number }, () => img.frames).flat();
      return { outputs: [batch(frames)] };
    },
  },
  {
    name: 'ImageFromBatch',
    displayName: 'ImageFromBatch',
    description: '',
    category: 'image/batch',
    pythonModule: 'comfy_extras.nodes_images',
    outputNode: false,
    inputTypes: () => ({
      required: {
        image: ['IMAGE'],
        batch_index: ['INT', { default: 0, min: 0, max: 4095 }],
        length: ['INT', { default: 1, min: 1, max: 4096 }],
      },
    }),
    output: ['IMAGE'],
    async run(i) {
      const img = asImage(i['image']);
      const n = img.frames.length;
      const start = Math.min(n - 1, i['batch_index'] as number);
      const len = Math.min(n - start, i['length'] as number);
      return { outputs: [batch(img.frames.slice(start, start + len).map((f) => ({ ...f, data: Buffer.from(f.data) })))] };
    },
  },
];
