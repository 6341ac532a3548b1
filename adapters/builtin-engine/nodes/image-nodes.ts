/** nodes.py / nodes_post_processing.py image nodes: EmptyImage, LoadImage, ImageInvert, ImageBlur, ImageSharpen, ImageBlend. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { NodeError } from '../types.ts';
import type { Frame, MaskBatch, NodeDef, NodeEnv } from '../types.ts';
import { pyStr } from '../py-format.ts';
import { ensureBatchSize, ensureImages } from '../run-limits.ts';
import { MAX_RESOLUTION, asImage, batch, gaussianBlurFloat, newFrame, resizeFrame, toU8 } from '../image-ops.ts';

const IMAGE_EXT = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif', '.bmp', '.tif', '.tiff', '.avif', '.heic']);

const listInputImages = (dir: string): string[] => {
  try {
    return readdirSync(dir)
      .filter((f) => IMAGE_EXT.has(path.extname(f).toLowerCase()) && statSync(path.join(dir, f)).isFile())
      .sort();
  } catch {
    return [];
  }
};

/** folder_paths.get_annotated_filepath: "name.png [output]" picks the folder; plain names live in input. */
/**
 * Blur and sharpen share one loop: ComfyUI's gaussian per frame, then a per-pixel combination of the
 * original value and the blurred one. Progress per frame. (ComfyUI returns the image as it is for a radius
 * of 0; both nodes' radius inputs have a min of 1, so validation never lets one through.)
 */
async function mapBlurred(
  img: ReturnType<typeof asImage>,
  radius: number,
  sigma: number,
  ctx: Parameters<typeof gaussianBlurFloat>[3],
  combine: (pixel: number, blurred: number) => number,
): Promise<ReturnType<typeof batch>> {
  // ComfyUI pads the whole (B, C, H, W) batch with torch's reflect padding, which needs the radius below the width, then
  // below the height, and fails the node otherwise (CPU torch's words).
  const { width, height, channels } = img.frames[0]!;
  const shape = `[${img.frames.length}, ${channels}, ${height}, ${width}]`;
  for (const [argument, dimension, size] of [[4, 3, width], [6, 2, height]] as const) {
    if (radius >= size) {
      throw new NodeError(`Argument #${argument}: Padding size should be less than the corresponding input dimension, but got: padding (${radius}, ${radius}) at dimension ${dimension} of input ${shape}`);
    }
  }
  const frames: Frame[] = [];
  for (const [n, f] of img.frames.entries()) {
    await ctx.tick();
    const blurred = await gaussianBlurFloat(f, radius, sigma, ctx);
    const out = { ...f, data: Buffer.allocUnsafe(f.data.length) };
    for (let k = 0; k < blurred.length; k++) out.data[k] = toU8(combine(f.data[k]!, blurred[k]!));
    frames.push(out);
    ctx.progress(n + 1, img.frames.length);
  }
  return batch(frames);
}

export const annotatedPath = (name: string, env: NodeEnv): string | null => {
  let base = env.inputDir;
  let file = name;
  const m = / \[(input|output|temp)\]$/.exec(name);
  if (m) {
    file = name.slice(0, -m[0].length);
    base = m[1] === 'output' ? env.outputDir : m[1] === 'temp' ? env.tempDir : env.inputDir;
  }
  const root = path.resolve(base);
  const full = path.resolve(root, file);
  if (!full.startsWith(root + path.sep)) return null;
  return full;
};

const imageExists = (name: unknown, env: NodeEnv): boolean => {
  if (typeof name !== 'string') return false;
  const p = annotatedPath(name, env);
  return p !== null && existsSync(p) && statSync(p).isFile();
};

export const imageNodes: NodeDef[] = [
  {
    name: 'EmptyImage',
    displayName: 'EmptyImage',
    description: '',
    category: 'image',
    pythonModule: 'nodes',
    outputNode: false,
    inputTypes: () => ({
      required: {
        width: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
        height: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
        batch_size: ['INT', { default: 1, min: 1, max: 4096 }],
        color: ['INT', { default: 0, min: 0, max: 0xffffff, step: 1, display: 'color' }],
      },
    }),
    output: ['IMAGE'],
    async run(i, ctx) {
      const [w, h, n, color] = [i['width'] as number, i['height'] as number, i['batch_size'] as number, i['color'] as number];
      ensureBatchSize(ctx.env, 'batch_size', n);
      ensureImages(ctx.env, w, h, n);
      const rgb = [(color >> 16) & 0xff, (color >> 8) & 0xff, color & 0xff];
      const proto = newFrame(w, h, 3);
      for (let p = 0; p < w * h; p++) proto.data.set(rgb, p * 3);
      const frames = Array.from({ length: n }, (_, k) => (k === 0 ? proto : { ...proto, data: Buffer.from(proto.data) }));
      return { outputs: [batch(frames)] };
    },
  },
  {
    name: 'LoadImage',
    displayName: 'Load Image',
    description: '',
    category: 'image',
    pythonModule: 'nodes',
    outputNode: false,
    inputTypes: (env) => ({ required: { image: [listInputImages(env.inputDir), { image_upload: true }] } }),
    output: ['IMAGE', 'MASK'],
    validateInputs: {
      inputs: ['image'],
      check: (v, env) => (imageExists(v['image'], env) ? true : `Invalid image file: ${pyStr(v['image'])}`),
    },
    async run(i, ctx) {
      const file = annotatedPath(i['image'] as string, ctx.env);
      if (!file || !existsSync(file)) throw new NodeError(`No such file or directory: '${String(i['image'])}'`, 'FileNotFoundError');
      let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
      try {
        meta = await sharp(file, { animated: true }).metadata();
      } catch {
        throw new NodeError(`cannot identify image file '${file}'`, 'PIL.UnidentifiedImageError');
      }
      const pages = meta.pages ?? 1;
      const pageHeight = meta.pageHeight ?? meta.height ?? 0;
      // From the header, before decoding: a file placed in the input folder is not an upload we measured.
      ensureImages(ctx.env, meta.width ?? 0, pageHeight, pages);
      // 8-bit sRGB + alpha whatever the source (grey, 16-bit, palette), as PIL's convert("RGB") does.
      const decoded = await sharp(file, { animated: pages > 1, limitInputPixels: ctx.env.limits ? ctx.env.limits.maxImagePixels * pages : true })
        .autoOrient()
        .toColourspace('srgb')
        .ensureAlpha()
        .raw({ depth: 'uchar' })
        .toBuffer({ resolveWithObject: true });
      const width = decoded.info.width;
      const frameH = pages > 1 ? pageHeight : decoded.info.height;
      const frames: Frame[] = [];
      const planes: Float32Array[] = [];
      for (let p = 0; p < pages; p++) {
        const f = newFrame(width, frameH, 3);
        const plane = new Float32Array(width * frameH);
        const off = p * width * frameH * 4;
        for (let k = 0; k < width * frameH; k++) {
          f.data[k * 3] = decoded.data[off + k * 4]!;
          f.data[k * 3 + 1] = decoded.data[off + k * 4 + 1]!;
          f.data[k * 3 + 2] = decoded.data[off + k * 4 + 2]!;
          plane[k] = 1 - decoded.data[off + k * 4 + 3]! / 255;
        }
        frames.push(f);
        planes.push(meta.hasAlpha ? plane : new Float32Array(64 * 64));
      }
      const mask: MaskBatch = meta.hasAlpha
        ? { kind: 'MASK', width, height: frameH, planes }
        : { kind: 'MASK', width: 64, height: 64, planes };
      return { outputs: [batch(frames), mask] };
    },
  },
  {
    name: 'ImageInvert',
    displayName: 'Invert Image',
    description: '',
    category: 'image',
    pythonModule: 'nodes',
    outputNode: false,
    inputTypes: () => ({ required: { image: ['IMAGE'] } }),
    output: ['IMAGE'],
    async run(i) {
      const img = asImage(i['image']);
      const frames = img.frames.map((f) => {
        const out = { ...f, data: Buffer.allocUnsafe(f.data.length) };
        for (let k = 0; k < f.data.length; k++) out.data[k] = 255 - f.data[k]!;
        return out;
      });
      return { outputs: [batch(frames)] };
    },
  },
  {
    name: 'ImageBlur',
    displayName: 'Image Blur',
    description: '',
    category: 'image/postprocessing',
    pythonModule: 'comfy_extras.nodes_post_processing',
    outputNode: false,
    inputTypes: () => ({
      required: {
        image: ['IMAGE'],
        blur_radius: ['INT', { default: 1, min: 1, max: 31, step: 1 }],
        sigma: ['FLOAT', { default: 1.0, min: 0.1, max: 10.0, step: 0.1 }],
      },
    }),
    output: ['IMAGE'],
    async run(i, ctx) {
      return { outputs: [await mapBlurred(asImage(i['image']), i['blur_radius'] as number, i['sigma'] as number, ctx, (_pixel, blurred) => blurred)] };
    },
  },
  {
    name: 'ImageSharpen',
    displayName: 'Image Sharpen',
    description: '',
    category: 'image/postprocessing',
    pythonModule: 'comfy_extras.nodes_post_processing',
    outputNode: false,
    inputTypes: () => ({
      required: {
        image: ['IMAGE'],
        sharpen_radius: ['INT', { default: 1, min: 1, max: 31, step: 1 }],
        sigma: ['FLOAT', { default: 1.0, min: 0.1, max: 10.0, step: 0.01 }],
        alpha: ['FLOAT', { default: 1.0, min: 0.0, max: 5.0, step: 0.01 }],
      },
    }),
    output: ['IMAGE'],
    async run(i, ctx) {
      // kernel = -(10a)·gaussian with the centre raised so it sums to 1: (1+10a)·x − 10a·blur(x)
      const a10 = (i['alpha'] as number) * 10;
      const image = asImage(i['image']);
      return { outputs: [await mapBlurred(image, i['sharpen_radius'] as number, i['sigma'] as number, ctx, (pixel, blurred) => (1 + a10) * pixel - a10 * blurred)] };
    },
  },
  {
    name: 'ImageBlend',
    displayName: 'Image Blend',
    description: '',
    category: 'image/postprocessing',
    pythonModule: 'comfy_extras.nodes_post_processing',
    outputNode: false,
    inputTypes: () => ({
      required: {
        image1: ['IMAGE'],
        image2: ['IMAGE'],
        blend_factor: ['FLOAT', { default: 0.5, min: 0.0, max: 1.0, step: 0.01 }],
        blend_mode: [['normal', 'multiply', 'screen', 'overlay', 'soft_light', 'difference']],
      },
    }),
    output: ['IMAGE'],
    async run(i, ctx) {
      const a = asImage(i['image1'], 'image1');
      let b = asImage(i['image2'], 'image2');
      const fa = a.frames[0]!;
      const fb = b.frames[0]!;
      // ComfyUI upscales image2 whenever the shapes differ; only a different size changes anything.
      if (fa.width !== fb.width || fa.height !== fb.height) {
        b = batch(await Promise.all(b.frames.map((f) => resizeFrame(f, fa.width, fa.height, 'bicubic', 'center'))));
      }
      if (fa.channels !== b.frames[0]!.channels) {
        throw new NodeError(
          `The size of tensor a (${fa.channels}) must match the size of tensor b (${b.frames[0]!.channels}) at non-singleton dimension 3`,
        );
      }
      const na = a.frames.length;
      const nb = b.frames.length;
      if (na !== nb && na !== 1 && nb !== 1) {
        throw new NodeError(`The size of tensor a (${na}) must match the size of tensor b (${nb}) at non-singleton dimension 0`);
      }
      const factor = i['blend_factor'] as number;
      const mode = i['blend_mode'] as string;
      const g = (x: number): number => (x <= 0.25 ? ((16 * x - 12) * x + 4) * x : Math.sqrt(x));
      const blend = (x: number, y: number): number => {
        switch (mode) {
          case 'multiply': return x * y;
          case 'screen': return 1 - (1 - x) * (1 - y);
          case 'overlay': return x <= 0.5 ? 2 * x * y : 1 - 2 * (1 - x) * (1 - y);
          case 'soft_light': return y <= 0.5 ? x - (1 - 2 * y) * x * (1 - x) : x + (2 * y - 1) * (g(x) - x);
          case 'difference': return x - y;
          default: return y;
        }
      };
      const n = Math.max(na, nb);
      const frames: Frame[] = [];
      for (let k = 0; k < n; k++) {
        const f1 = a.frames[Math.min(k, na - 1)]!;
        const f2 = b.frames[Math.min(k, nb - 1)]!;
        const out = { ...f1, data: Buffer.allocUnsafe(f1.data.length) };
        for (let p = 0; p < f1.data.length; p++) {
          const x = f1.data[p]! / 255;
          const v = x * (1 - factor) + blend(x, f2.data[p]! / 255) * factor;
          out.data[p] = toU8(v * 255);
        }
        frames.push(out);
        ctx.progress(k + 1, n);
        await ctx.tick();
      }
      return { outputs: [batch(frames)] };
    },
  },
];
