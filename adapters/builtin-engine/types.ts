/** Internal value types of the builtin engine (what flows along the graph's links). */
import type { ResourceLimits } from '../../core/domain/resource-limits.ts';

/** One frame: uint8 interleaved pixels, like a ComfyUI IMAGE slice scaled to 0..255. */
export interface Frame {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Buffer;
}

/** IMAGE: a batch of frames, all the same size and channel count (like a [B,H,W,C] tensor). */
export interface ImageBatch {
  kind: 'IMAGE';
  frames: Frame[];
}

/** MASK: a batch of single-channel float planes in 0..1 (like a [B,H,W] tensor). */
export interface MaskBatch {
  kind: 'MASK';
  width: number;
  height: number;
  planes: Float32Array[];
}

export interface AudioValue {
  kind: 'AUDIO';
  sampleRate: number;
  /** One Float32Array per channel. */
  channels: Float32Array[];
}

export interface VideoValue {
  kind: 'VIDEO';
  frames: ImageBatch;
  fps: number;
  audio?: AudioValue;
}

/** An input declaration in object_info form: `[type, options]`; a V1 combo has the option list as type. */
export type InputSpec = [string | unknown[], Record<string, unknown>?];

export interface InputTypes {
  required: Record<string, InputSpec>;
  optional?: Record<string, InputSpec>;
  hidden?: Record<string, string>;
}

export interface NodeEnv {
  inputDir: string;
  outputDir: string;
  tempDir: string;
  ffmpegPath?: string;
  /** Caps checked by the nodes before they allocate (see run-limits.ts); none when absent. */
  limits?: ResourceLimits;
}

export interface NodeContext {
  nodeId: string;
  env: NodeEnv;
  /** Output type of the source of each linked input (PreviewAny uses it to print FLOAT like Python). */
  linkedTypes: Record<string, string>;
  /** Report progress; throttled to about 20 events per node. */
  progress(value: number, max: number): void;
  /** Yield to the event loop, then throw InterruptedError if an interrupt was requested. */
  tick(): Promise<void>;
}

export interface NodeResult {
  outputs?: unknown[];
  ui?: Record<string, unknown>;
}

export interface NodeDef {
  name: string;
  displayName: string;
  description: string;
  category: string;
  pythonModule: string;
  outputNode: boolean;
  inputTypes(env: NodeEnv): InputTypes;
  /** RETURN_TYPES */
  output: string[];
  /** RETURN_NAMES (defaults to output) */
  outputName?: string[];
  outputTooltips?: string[];
  /** VALIDATE_INPUTS: the inputs it takes skip the generic range/combo checks, as in ComfyUI. */
  validateInputs?: {
    inputs: string[];
    check(values: Record<string, unknown>, env: NodeEnv): true | false | string;
  };
  run(inputs: Record<string, unknown>, ctx: NodeContext): Promise<NodeResult>;
}

/** A Python-like exception raised by a node; `pyType` becomes exception_type. */
export class NodeError extends Error {
  constructor(
    message: string,
    readonly pyType: string = 'RuntimeError',
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

export class InterruptedError extends Error {
  constructor() {
    super('Processing interrupted');
    this.name = 'InterruptedError';
  }
}
