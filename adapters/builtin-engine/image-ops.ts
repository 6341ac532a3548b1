/** Pixel helpers shared by the nodes: frames, sharp round-trips, ComfyUI's gaussian filter. */
import sharp from 'sharp';
import type { Sharp } from 'sharp';
import { NodeError } from './types.ts';
import type { Frame, ImageBatch, MaskBatch, NodeContext } from './types.ts';
import { pyRound } from './py-format.ts';

export const MAX_RESOLUTION = 16384;

export const newFrame = (width: number, height: number, channels: 3 | 4): Frame => ({
  width,
  height,
  channels,
  data: Buffer.alloc(width * height * channels),
});

export const batch = (frames: Frame[]): ImageBatch => ({ kind: 'IMAGE', frames });

export const asImage = (v: unknown, name = 'image'): ImageBatch => {
  const img = v as ImageBatch | undefined;
  if (!img || img.kind !== 'IMAGE' || img.frames.length === 0) throw new NodeError(`${name} is not an IMAGE`, 'TypeError');
  return img;
};

export const asMask = (v: unknown, name = 'mask'): MaskBatch => {
  const m = v as MaskBatch | undefined;
  if (!m || m.kind !== 'MASK' || m.planes.length === 0) throw new NodeError(`${name} is not a MASK`, 'TypeError');
  return m;
};

export const toU8 = (v: number): number => (v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v));

export const sharpOf = (f: Frame): Sharp =>
  sharp(f.data, { raw: { width: f.width, height: f.height, channels: f.channels } });

export const fromSharp = async (s: Sharp): Promise<Frame> => {
  const { data, info } = await s.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels === 4 ? 4 : 3, data };
};

const KERNELS = {
  'nearest-exact': 'nearest',
  bilinear: 'linear',
  // torch's "area" is an adaptive average pool; sharp's reducer with a cubic kernel is the nearest match.
  area: 'cubic',
  bicubic: 'cubic',
  lanczos: 'lanczos3',
} as const;

export const UPSCALE_METHODS = Object.keys(KERNELS);

export const cropRect = (f: Frame, x: number, y: number, w: number, h: number): Frame => {
  const out = newFrame(w, h, f.channels);
  const rowBytes = w * f.channels;
  for (let r = 0; r < h; r++) {
    const src = ((y + r) * f.width + x) * f.channels;
    f.data.copy(out.data, r * rowBytes, src, src + rowBytes);
  }
  return out;
};

/** comfy.utils.common_upscale: optional center crop to the target aspect, then resize. */
export const resizeFrame = async (f: Frame, width: number, height: number, method: string, crop: string): Promise<Frame> => {
  let src = f;
  if (crop === 'center') {
    const oldAspect = f.width / f.height;
    const newAspect = width / height;
    let x = 0;
    let y = 0;
    if (oldAspect > newAspect) x = pyRound((f.width - f.width * (newAspect / oldAspect)) / 2);
    else if (oldAspect < newAspect) y = pyRound((f.height - f.height * (oldAspect / newAspect)) / 2);
    if (x > 0 || y > 0) src = cropRect(f, x, y, f.width - 2 * x, f.height - 2 * y);
  }
  if (src.width === width && src.height === height) return { ...src, data: Buffer.from(src.data) };
  const kernel = KERNELS[method as keyof typeof KERNELS];
  return fromSharp(sharpOf(src).resize(width, height, { fit: 'fill', kernel }));
};

/** ComfyUI's gaussian_kernel is separable; x runs over linspace(-1, 1, size), so sigma is relative to the radius. */
const gaussian1d = (radius: number, sigma: number): Float64Array => {
  const size = radius * 2 + 1;
  const k = new Float64Array(size);
  let sum = 0;
  for (let i = 0; i < size; i++) {
    const x = -1 + (2 * i) / (size - 1); // radius >= 1 (the nodes' min), so size >= 3
    k[i] = Math.exp(-(x * x) / (2 * sigma * sigma));
    sum += k[i]!;
  }
  for (let i = 0; i < size; i++) k[i]! /= sum;
  return k;
};

/**
 * Index table for reflect padding (torch 'reflect': the edge pixel is not repeated). Torch takes only r < n, so one
 * reflection lands inside (the nodes refuse a larger radius first, as torch does).
 */
const reflectTable = (n: number, r: number): Int32Array => {
  const t = new Int32Array(n + 2 * r);
  for (let p = -r; p < n + r; p++) t[p + r] = p < 0 ? -p : p >= n ? 2 * (n - 1) - p : p;
  return t;
};

/** Gaussian blur of one frame as ComfyUI's ImageBlur computes it, in float. Yields between passes. */
export const gaussianBlurFloat = async (f: Frame, radius: number, sigma: number, ctx: NodeContext): Promise<Float32Array> => {
  const { width: w, height: h, channels: c } = f;
  const k = gaussian1d(radius, sigma);
  const size = k.length;
  const tx = reflectTable(w, radius);
  const ty = reflectTable(h, radius);
  const tmp = new Float32Array(w * h * c);
  const src = f.data;
  for (let y = 0; y < h; y++) {
    const row = y * w * c;
    for (let x = 0; x < w; x++) {
      for (let ch = 0; ch < c; ch++) {
        let s = 0;
        for (let j = 0; j < size; j++) s += k[j]! * src[row + tx[x + j]! * c + ch]!;
        tmp[row + x * c + ch] = s;
      }
    }
  }
  await ctx.tick();
  const out = new Float32Array(w * h * c);
  const stride = w * c;
  for (let y = 0; y < h; y++) {
    for (let i = 0; i < stride; i++) {
      let s = 0;
      for (let j = 0; j < size; j++) s += k[j]! * tmp[ty[y + j]! * stride + i]!;
      out[y * stride + i] = s;
    }
  }
  return out;
};

export const maskPlaneFromFrame = (f: Frame, channel: number): Float32Array => {
  if (channel >= f.channels) {
    throw new NodeError(`index ${channel} is out of bounds for dimension 3 with size ${f.channels}`, 'IndexError');
  }
  const plane = new Float32Array(f.width * f.height);
  for (let i = 0; i < plane.length; i++) plane[i] = f.data[i * f.channels + channel]! / 255;
  return plane;
};

/** Bilinear resize of a mask plane (F.interpolate bilinear, align_corners=False). */
export const resizePlane = (p: Float32Array, w: number, h: number, nw: number, nh: number): Float32Array => {
  if (w === nw && h === nh) return p;
  const out = new Float32Array(nw * nh);
  const sx = w / nw;
  const sy = h / nh;
  for (let y = 0; y < nh; y++) {
    const fy = Math.max(0, (y + 0.5) * sy - 0.5);
    const y0 = Math.min(h - 1, Math.floor(fy));
    const y1 = Math.min(h - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < nw; x++) {
      const fx = Math.max(0, (x + 0.5) * sx - 0.5);
      const x0 = Math.min(w - 1, Math.floor(fx));
      const x1 = Math.min(w - 1, x0 + 1);
      const wx = fx - x0;
      const a = p[y0 * w + x0]! * (1 - wx) + p[y0 * w + x1]! * wx;
      const b = p[y1 * w + x0]! * (1 - wx) + p[y1 * w + x1]! * wx;
      out[y * nw + x] = a * (1 - wy) + b * wy;
    }
  }
  return out;
};
