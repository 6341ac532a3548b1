/** nodes_mask.py / nodes_compositing.py: SolidMask, MaskToImage, ImageToMask, JoinImageWithAlpha. */
import type { Frame, MaskBatch, NodeDef } from '../types.ts';
import { ensureImages } from '../run-limits.ts';
import { MAX_RESOLUTION, asImage, asMask, batch, maskPlaneFromFrame, newFrame, resizePlane, toU8 } from '../image-ops.ts';

const CHANNELS = ['red', 'green', 'blue', 'alpha'];

export const maskNodes: NodeDef[] = [
  {
    name: 'SolidMask',
    displayName: 'SolidMask',
    description: '',
    category: 'mask',
    pythonModule: 'comfy_extras.nodes_mask',
    outputNode: false,
    inputTypes: () => ({
      required: {
        value: ['FLOAT', { default: 1.0, min: 0.0, max: 1.0, step: 0.01 }],
        width: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
        height: ['INT', { default: 512, min: 1, max: MAX_RESOLUTION, step: 1 }],
      },
    }),
    output: ['MASK'],
    async run(i, ctx) {
      const [w, h] = [i['width'] as number, i['height'] as number];
      ensureImages(ctx.env, w, h, 1);
      const mask: MaskBatch = { kind: 'MASK', width: w, height: h, planes: [new Float32Array(w * h).fill(i['value'] as number)] };
      return { outputs: [mask] };
    },
  },
  {
    name: 'MaskToImage',
    displayName: 'Convert Mask to Image',
    description: '',
    category: 'mask',
    pythonModule: 'comfy_extras.nodes_mask',
    outputNode: false,
    inputTypes: () => ({ required: { mask: ['MASK'] } }),
    output: ['IMAGE'],
    async run(i) {
      const m = asMask(i['mask']);
      const frames = m.planes.map((p) => {
        const f = newFrame(m.width, m.height, 3);
        for (let k = 0; k < p.length; k++) {
          const v = toU8(p[k]! * 255);
          f.data[k * 3] = v;
          f.data[k * 3 + 1] = v;
          f.data[k * 3 + 2] = v;
        }
        return f;
      });
      return { outputs: [batch(frames)] };
    },
  },
  {
    name: 'ImageToMask',
    displayName: 'Convert Image to Mask',
    description: '',
    category: 'mask',
    pythonModule: 'comfy_extras.nodes_mask',
    outputNode: false,
    inputTypes: () => ({ required: { image: ['IMAGE'], channel: [CHANNELS] } }),
    output: ['MASK'],
    async run(i) {
      const img = asImage(i['image']);
      const channel = CHANNELS.indexOf(i['channel'] as string);
      const f = img.frames[0]!;
      const mask: MaskBatch = {
        kind: 'MASK',
        width: f.width,
        height: f.height,
        planes: img.frames.map((fr) => maskPlaneFromFrame(fr, channel)),
      };
      return { outputs: [mask] };
    },
  },
  {
    name: 'JoinImageWithAlpha',
    displayName: 'Join Image with Alpha',
    description: '',
    category: 'mask/compositing',
    pythonModule: 'comfy_extras.nodes_compositing',
    outputNode: false,
    inputTypes: () => ({ required: { image: ['IMAGE'], alpha: ['MASK'] } }),
    output: ['IMAGE'],
    async run(i) {
      const img = asImage(i['image']);
      const m = asMask(i['alpha'], 'alpha');
      const n = Math.min(img.frames.length, m.planes.length);
      const frames: Frame[] = [];
      for (let b = 0; b < n; b++) {
        const src = img.frames[b]!;
        const plane = resizePlane(m.planes[b]!, m.width, m.height, src.width, src.height);
        const out = newFrame(src.width, src.height, 4);
        for (let k = 0; k < plane.length; k++) {
          out.data[k * 4] = src.data[k * src.channels]!;
          out.data[k * 4 + 1] = src.data[k * src.channels + 1]!;
          out.data[k * 4 + 2] = src.data[k * src.channels + 2]!;
          out.data[k * 4 + 3] = toU8((1 - plane[k]!) * 255);
        }
        frames.push(out);
      }
      return { outputs: [batch(frames)] };
    },
  },
];
