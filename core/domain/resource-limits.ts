import type { FieldProblem } from './result.ts';
import type { WorkflowGraph } from './workflow-graph.types.ts';

/** What one job may ask of an engine. Checked at submit time on the workflow that will run, and by the builtin engine while it runs. */
export interface ResourceLimits {
  /** Pixels of one image (width × height). */
  maxImagePixels: number;
  /** A node's batch_size / amount / length input. */
  maxBatchSize: number;
  /** Images in one batch (frames of a video included). */
  maxFrames: number;
  maxVideoSeconds: number;
  /** Bytes of all output files of one job. */
  maxOutputBytes: number;
  maxWorkflowNodes: number;
}

/** Defaults: 8192² images, so every ready template fits while a 16384² canvas or a 16000² pixel bomb does not. */
export const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  maxImagePixels: 8192 * 8192,
  maxBatchSize: 64,
  maxFrames: 600,
  maxVideoSeconds: 120,
  maxOutputBytes: 512 * 1024 * 1024,
  maxWorkflowNodes: 200,
});

/** The human names of the limits, used in messages (the operator's variable names live in the configuration docs). */
export const LIMIT_NAMES = {
  maxImagePixels: 'pixel limit per image',
  maxBatchSize: 'batch size limit',
  maxFrames: 'frame limit',
  maxVideoSeconds: 'video length limit',
  maxOutputBytes: 'output size limit per job',
  maxWorkflowNodes: 'node limit per workflow',
} as const satisfies Record<keyof ResourceLimits, string>;

interface Shape {
  width: number;
  height: number;
  frames: number;
}

const BATCH_INPUTS = ['batch_size', 'amount', 'length'];
/** Nodes whose saved files are (about) their uncompressed pixels; video encoders are bounded by frames and seconds instead. */
const IMAGE_SAVERS = new Set(['SaveImage', 'PreviewImage', 'SaveAnimatedPNG', 'SaveAnimatedWEBP']);
/** Nodes that pass their first image input's shape through unchanged (or rotated: same pixel count). */
const SAME_SHAPE = new Set(['ImageInvert', 'ImageBlur', 'ImageSharpen', 'ImageFlip', 'ImageRotate', 'ImageBlend', 'ImageCompositeMasked', 'JoinImageWithAlpha']);

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * What can be known before running: the size of each image a node makes, followed along the links from
 * literal inputs (EmptyImage's width and height, ImageScale's target, RepeatImageBatch's amount...). A size
 * that depends on an upload is unknown here (uploads are checked when stored) and left to the engine.
 */
class ShapeWalk {
  private readonly shapes = new Map<string, Shape | null>();
  constructor(private readonly graph: WorkflowGraph) {}

  shape(id: string, depth = 0): Shape | null {
    if (this.shapes.has(id)) return this.shapes.get(id)!;
    this.shapes.set(id, null); // a cycle reads as unknown (the graph validation refuses cycles anyway)
    const found = depth > 256 ? null : this.compute(id, depth);
    this.shapes.set(id, found);
    return found;
  }

  private source(v: unknown, depth: number): Shape | null {
    return Array.isArray(v) && v.length === 2 ? this.shape(String(v[0]), depth + 1) : null;
  }

  private compute(id: string, depth: number): Shape | null {
    const node = this.graph[id];
    if (!node) return null;
    const i = node.inputs ?? {};
    const from = (name: string) => this.source(i[name], depth);
    switch (node.class_type) {
      case 'EmptyImage': {
        const [width, height, frames] = [num(i['width']), num(i['height']), num(i['batch_size']) ?? 1];
        return width !== null && height !== null ? { width, height, frames } : null;
      }
      case 'ImageScale': {
        const input = from('image');
        const [w, h] = [num(i['width']), num(i['height'])];
        if (w === null || h === null) return null;
        if (w > 0 && h > 0) return { width: w, height: h, frames: input?.frames ?? 1 };
        if (!input) return null;
        if (w === 0 && h === 0) return input;
        return w === 0 ? { width: Math.round((input.width * h) / input.height), height: h, frames: input.frames } : { width: w, height: Math.round((input.height * w) / input.width), frames: input.frames };
      }
      case 'ImageScaleBy': {
        const input = from('image');
        const s = num(i['scale_by']);
        return input && s !== null ? { width: Math.round(input.width * s), height: Math.round(input.height * s), frames: input.frames } : null;
      }
      case 'RepeatImageBatch': {
        const input = from('image');
        const amount = num(i['amount']);
        return input && amount !== null ? { ...input, frames: input.frames * amount } : null;
      }
      case 'ImageBatch': {
        const [a, b] = [from('image1'), from('image2')];
        return a && b ? { ...a, frames: a.frames + b.frames } : null;
      }
      case 'ImageFromBatch': {
        const input = from('image');
        const length = num(i['length']);
        return input && length !== null ? { ...input, frames: Math.min(input.frames, length) } : null;
      }
      case 'CreateVideo':
        return from('images');
      case 'SaveVideo':
        return from('video');
      default:
        return SAME_SHAPE.has(node.class_type) ? from('image') ?? from('image1') ?? from('images') : null;
    }
  }
}

/** The workflow's problems with the limits, each naming the node, the input and the limit; empty when it fits. */
export function checkResourceLimits(graph: WorkflowGraph, limits: ResourceLimits): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const ids = Object.keys(graph);
  if (ids.length > limits.maxWorkflowNodes) {
    problems.push({ field: 'workflow', message: `has ${ids.length} nodes; the ${LIMIT_NAMES.maxWorkflowNodes} is ${limits.maxWorkflowNodes}` });
    return problems;
  }
  const walk = new ShapeWalk(graph);
  let outputBytes = 0;
  for (const id of ids) {
    const node = graph[id]!;
    const label = `${node.class_type} #${id}`;
    for (const name of BATCH_INPUTS) {
      const v = num(node.inputs?.[name]);
      if (v !== null && v > limits.maxBatchSize) {
        problems.push({ field: `workflow.${id}.inputs.${name}`, message: `${label}: ${name} ${v} is above the ${LIMIT_NAMES.maxBatchSize} (${limits.maxBatchSize})` });
      }
    }
    if (IMAGE_SAVERS.has(node.class_type)) {
      const input = walk.shape(String((node.inputs?.['images'] as unknown[] | undefined)?.[0] ?? ''));
      if (input) outputBytes += input.width * input.height * 3 * input.frames;
    }
    const duration = node.class_type === 'EmptyAudio' ? num(node.inputs?.['duration']) : null;
    if (duration !== null && duration > limits.maxVideoSeconds) {
      problems.push({ field: `workflow.${id}.inputs.duration`, message: `${label}: duration ${duration} s is above the ${LIMIT_NAMES.maxVideoSeconds} (${limits.maxVideoSeconds} s)` });
    }
    const shape = walk.shape(id);
    if (!shape) continue;
    const pixels = shape.width * shape.height;
    if (pixels > limits.maxImagePixels) {
      problems.push({ field: `workflow.${id}`, message: `${label} makes ${shape.width}×${shape.height} images (${pixels} pixels), above the ${LIMIT_NAMES.maxImagePixels} (${limits.maxImagePixels})` });
    }
    if (shape.frames > limits.maxFrames) {
      problems.push({ field: `workflow.${id}`, message: `${label} makes a batch of ${shape.frames} images, above the ${LIMIT_NAMES.maxFrames} (${limits.maxFrames})` });
    }
    const fps = num(node.inputs?.['fps']);
    if (fps !== null && fps > 0 && shape.frames / fps > limits.maxVideoSeconds) {
      problems.push({ field: `workflow.${id}.inputs.fps`, message: `${label} makes ${Math.round((shape.frames / fps) * 10) / 10} s of video, above the ${LIMIT_NAMES.maxVideoSeconds} (${limits.maxVideoSeconds} s)` });
    }
  }
  if (outputBytes > limits.maxOutputBytes) {
    problems.push({ field: 'workflow', message: `would save about ${Math.ceil(outputBytes / 1048576)} MB of uncompressed images, above the ${LIMIT_NAMES.maxOutputBytes} (${Math.floor(limits.maxOutputBytes / 1048576)} MB)` });
  }
  return problems;
}
