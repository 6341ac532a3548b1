/** SaveImage, PreviewImage (nodes.py) and SaveAnimatedWEBP, SaveAnimatedPNG (comfy_extras/nodes_images.py). */
import { randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { NodeContext, NodeDef, NodeResult } from '../types.ts';
import { asImage, sharpOf } from '../image-ops.ts';
import { counterName, getSavePath } from '../save-paths.ts';
import { encodeApng } from '../apng.ts';

const SAVE_DESCRIPTION = 'Saves the input images to your ComfyUI output directory.';
const PREFIX_TOOLTIP =
  'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.';
const HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

const savePngs = async (
  images: unknown,
  prefix: string,
  dir: string,
  type: 'output' | 'temp',
  compressionLevel: number,
  ctx: NodeContext,
): Promise<NodeResult> => {
  const img = asImage(images, 'images');
  const first = img.frames[0]!;
  const target = await getSavePath(prefix, dir, first.width, first.height);
  let counter = target.counter;
  const results: { filename: string; subfolder: string; type: string }[] = [];
  for (const [n, frame] of img.frames.entries()) {
    await ctx.tick();
    const file = counterName(target.filename.replaceAll('%batch_num%', String(n)), counter, 'png');
    const png = await sharpOf(frame).png({ compressionLevel }).toBuffer();
    await writeFile(path.join(target.fullOutputFolder, file), png);
    results.push({ filename: file, subfolder: target.subfolder, type });
    counter++;
    ctx.progress(n + 1, img.frames.length);
  }
  return { ui: { images: results } };
};

// ComfyUI's alphabet for temp names (sic: 'p' twice, no 'w').
const TEMP_ALPHABET = 'abcdefghijklmnopqrstupvxyz';
const tempSuffix = (): string =>
  '_temp_' + Array.from({ length: 5 }, () => TEMP_ALPHABET[randomInt(TEMP_ALPHABET.length)]).join('');

const ANIM_PREFIX = ['STRING', { default: 'ComfyUI' }] as [string, Record<string, unknown>];
const ANIM_FPS = ['FLOAT', { default: 6.0, min: 0.01, max: 1000.0, step: 0.01 }] as [string, Record<string, unknown>];
const WEBP_METHODS: Record<string, number> = { default: 4, fastest: 0, slowest: 6 };

export const saveImageNodes: NodeDef[] = [
  {
    name: 'SaveImage',
    displayName: 'Save Image',
    description: SAVE_DESCRIPTION,
    category: 'image',
    pythonModule: 'nodes',
    outputNode: true,
    inputTypes: () => ({
      required: {
        images: ['IMAGE', { tooltip: 'The images to save.' }],
        filename_prefix: ['STRING', { default: 'ComfyUI', tooltip: PREFIX_TOOLTIP }],
      },
      hidden: HIDDEN,
    }),
    output: [],
    run: (i, ctx) => savePngs(i['images'], i['filename_prefix'] as string, ctx.env.outputDir, 'output', 4, ctx),
  },
  {
    name: 'PreviewImage',
    displayName: 'Preview Image',
    description: SAVE_DESCRIPTION,
    category: 'image',
    pythonModule: 'nodes',
    outputNode: true,
    inputTypes: () => ({ required: { images: ['IMAGE'] }, hidden: HIDDEN }),
    output: [],
    run: (i, ctx) => savePngs(i['images'], 'ComfyUI' + tempSuffix(), ctx.env.tempDir, 'temp', 1, ctx),
  },
  {
    name: 'SaveAnimatedWEBP',
    displayName: 'SaveAnimatedWEBP',
    description: '',
    category: 'image/animation',
    pythonModule: 'comfy_extras.nodes_images',
    outputNode: true,
    inputTypes: () => ({
      required: {
        images: ['IMAGE'],
        filename_prefix: ANIM_PREFIX,
        fps: ANIM_FPS,
        lossless: ['BOOLEAN', { default: true }],
        quality: ['INT', { default: 80, min: 0, max: 100 }],
        method: [Object.keys(WEBP_METHODS)],
      },
      hidden: HIDDEN,
    }),
    output: [],
    async run(i, ctx) {
      const img = asImage(i['images'], 'images');
      const f = img.frames[0]!;
      const target = await getSavePath(i['filename_prefix'] as string, ctx.env.outputDir, f.width, f.height);
      const file = counterName(target.filename, target.counter, 'webp');
      const n = img.frames.length;
      const raw = Buffer.concat(img.frames.map((x) => x.data));
      ctx.progress(0, 1);
      const webp = await sharp(raw, { raw: { width: f.width, height: f.height * n, channels: f.channels, pageHeight: f.height } })
        .webp({
          lossless: Boolean(i['lossless']),
          quality: i['quality'] as number,
          effort: WEBP_METHODS[i['method'] as string] ?? 4,
          loop: 0,
          delay: Array<number>(n).fill(Math.trunc(1000 / (i['fps'] as number))),
        })
        .toBuffer();
      await writeFile(path.join(target.fullOutputFolder, file), webp);
      ctx.progress(1, 1);
      return { ui: { images: [{ filename: file, subfolder: target.subfolder, type: 'output' }], animated: [n !== 1] } };
    },
  },
  {
    name: 'SaveAnimatedPNG',
    displayName: 'SaveAnimatedPNG',
    description: '',
    category: 'image/animation',
    pythonModule: 'comfy_extras.nodes_images',
    outputNode: true,
    inputTypes: () => ({
      required: {
        images: ['IMAGE'],
        filename_prefix: ANIM_PREFIX,
        fps: ANIM_FPS,
        compress_level: ['INT', { default: 4, min: 0, max: 9 }],
      },
      hidden: HIDDEN,
    }),
    output: [],
    async run(i, ctx) {
      const img = asImage(i['images'], 'images');
      const f = img.frames[0]!;
      const target = await getSavePath(i['filename_prefix'] as string, ctx.env.outputDir, f.width, f.height);
      const file = counterName(target.filename, target.counter, 'png');
      const n = img.frames.length;
      const apng = await encodeApng(img.frames, Math.trunc(1000 / (i['fps'] as number)), i['compress_level'] as number, async (k) => {
        ctx.progress(k + 1, n);
        await ctx.tick();
      });
      await writeFile(path.join(target.fullOutputFolder, file), apng);
      return { ui: { images: [{ filename: file, subfolder: target.subfolder, type: 'output' }], animated: [true] } };
    },
  },
];
