/**
 * What the protocol server needs from an engine runtime, written structurally so this adapter
 * does not import the builtin-engine adapter (adapters never import each other). The builtin
 * engine's `BuiltinRuntime` satisfies it; the composition root passes one in.
 */
export interface ComfyValidationError {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

export interface ComfyNodeErrors {
  errors: ComfyValidationError[];
  dependent_outputs: string[];
  class_type: string;
}

export type ProtocolValidateResult =
  | { ok: true; outputs: string[]; nodeErrors: Record<string, ComfyNodeErrors> }
  | { ok: false; error: ComfyValidationError; node_errors: Record<string, ComfyNodeErrors> };

export interface ProtocolExecuteHooks {
  onExecutionStart?(): void;
  onCached?(nodeIds: string[]): void;
  onExecuting?(nodeId: string): void;
  onProgress?(value: number, max: number, nodeId: string): void;
  onExecuted?(nodeId: string, output: Record<string, unknown>): void;
  isInterrupted?(): boolean;
  /** The server's execution cache, kept across prompts. */
  cache?: {
    get(signature: string): { outputs: unknown[]; ui: Record<string, unknown> | undefined } | undefined;
    set(signature: string, value: { outputs: unknown[]; ui: Record<string, unknown> | undefined }): void;
    keepOnly(signatures: ReadonlySet<string>): void;
  };
}

type UiOutputs = Record<string, Record<string, unknown>>;

export type ProtocolExecuteResult =
  | { status: 'success'; outputs: UiOutputs; executed: string[] }
  | {
      status: 'error';
      nodeId: string;
      nodeType: string;
      exceptionMessage: string;
      exceptionType: string;
      executed: string[];
      outputs: UiOutputs;
    }
  | { status: 'interrupted'; nodeId: string; nodeType: string; executed: string[]; outputs: UiOutputs };

export type ComfyGraph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

export interface ProtocolRuntime {
  objectInfo(): Record<string, unknown>;
  validate(prompt: unknown, partialExecutionTargets?: string[]): ProtocolValidateResult;
  execute(
    promptId: string,
    prompt: ComfyGraph,
    hooks?: ProtocolExecuteHooks,
    outputs?: string[],
  ): Promise<ProtocolExecuteResult>;
}
