/**
 * The resource caps as the builtin engine applies them while running: each node that makes images checks the
 * size it is about to allocate before allocating it, so a graph that slipped past the submit-time check (sizes
 * that depend on an upload, a raw ComfyUI client of the protocol server) fails cleanly instead of exhausting memory.
 */
import { LIMIT_NAMES, type ResourceLimits } from '../../core/domain/resource-limits.ts';
import { NodeError } from './types.ts';
import type { NodeEnv } from './types.ts';

export class ResourceLimitError extends NodeError {
  constructor(message: string) {
    super(message, 'ResourceLimitError');
  }
}

/** Throws when `frames` images of width × height would break a cap of `env.limits`. */
export const ensureImages = (env: NodeEnv, width: number, height: number, frames: number): void => {
  const limits = env.limits;
  if (!limits) return;
  const pixels = width * height;
  if (pixels > limits.maxImagePixels) {
    throw new ResourceLimitError(`${width}×${height} images (${pixels} pixels) are above the ${LIMIT_NAMES.maxImagePixels} (${limits.maxImagePixels})`);
  }
  if (frames > limits.maxFrames) throw new ResourceLimitError(`a batch of ${frames} images is above the ${LIMIT_NAMES.maxFrames} (${limits.maxFrames})`);
};

export const ensureBatchSize = (env: NodeEnv, name: string, value: number): void => {
  const limits = env.limits;
  if (limits && value > limits.maxBatchSize) throw new ResourceLimitError(`${name} ${value} is above the ${LIMIT_NAMES.maxBatchSize} (${limits.maxBatchSize})`);
};

export const ensureSeconds = (env: NodeEnv, seconds: number): void => {
  const limits = env.limits;
  if (limits && seconds > limits.maxVideoSeconds) {
    throw new ResourceLimitError(`${Math.round(seconds * 10) / 10} s of media is above the ${LIMIT_NAMES.maxVideoSeconds} (${limits.maxVideoSeconds} s)`);
  }
};

export type { ResourceLimits };
