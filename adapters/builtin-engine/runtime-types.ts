/** Public types of the builtin runtime (re-exported by builtin-runtime.ts). */
import type { NodeDef } from './types.ts';
import type { ResourceLimits } from '../../core/domain/resource-limits.ts';

export interface ComfyValidationError {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

export interface NodeErrorEntry {
  errors: ComfyValidationError[];
  dependent_outputs: string[];
  class_type: string;
}

export type ValidateResult =
  | { ok: true; outputs: string[]; nodeErrors: Record<string, NodeErrorEntry> }
  | {
      ok: false;
      error: { type: string; message: string; details: string; extra_info: Record<string, unknown> };
      node_errors: Record<string, NodeErrorEntry>;
    };

export interface ExecuteHooks {
  onExecutionStart?(): void;
  /** execution_cached (may be an empty list) */
  onCached?(nodeIds: string[]): void;
  /** before each node */
  onExecuting?(nodeId: string): void;
  onProgress?(value: number, max: number, nodeId: string): void;
  /** ui dict, e.g. {images:[{filename,subfolder,type}]}, {images:[...],animated:[true]}, {text:["..."]} */
  onExecuted?(nodeId: string, output: Record<string, unknown>): void;
  /** checked before each node and inside progress loops */
  isInterrupted?(): boolean;
  /** checked after each node and inside progress loops: a message fails the node (a memory budget ran out) */
  overBudget?(): string | null;
  /** ComfyUI's execution cache (a server keeps one across prompts; the in-process engine runs without). */
  cache?: NodeOutputCache;
}

/** A node's results by its input signature (class, literal inputs, the signatures of what it links to). */
export interface NodeOutputCache {
  get(signature: string): { outputs: unknown[]; ui: Record<string, unknown> | undefined } | undefined;
  set(signature: string, value: { outputs: unknown[]; ui: Record<string, unknown> | undefined }): void;
  /** After a prompt is set: ComfyUI's classic cache keeps only the entries this prompt's nodes use. */
  keepOnly(signatures: ReadonlySet<string>): void;
}

export type ExecuteResult =
  | { status: 'success'; outputs: Record<string, Record<string, unknown>>; executed: string[] }
  | {
      status: 'error';
      nodeId: string;
      nodeType: string;
      exceptionMessage: string;
      exceptionType: string;
      executed: string[];
      outputs: Record<string, Record<string, unknown>>;
    }
  | {
      status: 'interrupted';
      nodeId: string;
      nodeType: string;
      executed: string[];
      outputs: Record<string, Record<string, unknown>>;
    };

/** One node of GET /object_info. */
export interface NodeInfo {
  input: {
    required: Record<string, unknown[]>;
    optional?: Record<string, unknown[]>;
    hidden?: Record<string, string>;
  };
  input_order: { required: string[]; optional?: string[]; hidden?: string[] };
  output: string[];
  output_is_list: boolean[];
  output_name: string[];
  name: string;
  display_name: string;
  description: string;
  python_module: string;
  category: string;
  output_node: boolean;
  output_tooltips?: string[];
}

export interface BuiltinRuntimeOptions {
  inputDir: string;
  outputDir: string;
  tempDir: string;
  ffmpegPath?: string;
  limits?: ResourceLimits;
  /** Nodes beyond the builtin ones (a stand-in server's model loader, say). */
  extraNodes?: NodeDef[];
  /** Builtin nodes this runtime leaves out, as a server without them would (a stand-in for a smaller server). */
  hideNodes?: string[];
}

export type PromptGraph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;
