/**
 * ComfyUI's model-free core nodes, run in process. The API mirrors what a ComfyUI server does
 * behind POST /prompt (validate), its worker (execute) and GET /object_info, so the same runtime
 * backs the builtin engine and a ComfyUI-protocol stand-in server.
 */
import { mkdirSync } from 'node:fs';
import type {
  BuiltinRuntimeOptions,
  ExecuteHooks,
  ExecuteResult,
  NodeInfo,
  PromptGraph,
  ValidateResult,
} from './runtime-types.ts';
import type { NodeDef, NodeEnv } from './types.ts';
import { createRegistry, nodeInfo } from './node-registry.ts';
import { validatePrompt } from './validate.ts';
import { executePrompt } from './execute.ts';

export type {
  BuiltinRuntimeOptions,
  ComfyValidationError,
  ExecuteHooks,
  ExecuteResult,
  NodeErrorEntry,
  NodeInfo,
  PromptGraph,
  ValidateResult,
} from './runtime-types.ts';

export class BuiltinRuntime {
  private readonly env: NodeEnv;
  private readonly registry: ReadonlyMap<string, NodeDef>;

  constructor(options: BuiltinRuntimeOptions) {
    const { extraNodes, hideNodes, ...env } = options;
    this.env = env;
    for (const dir of [options.inputDir, options.outputDir, options.tempDir]) mkdirSync(dir, { recursive: true });
    const registry = new Map(createRegistry(extraNodes ? [extraNodes] : []));
    for (const name of hideNodes ?? []) registry.delete(name);
    this.registry = registry;
  }

  /** GET /object_info: every node by class_type. LoadImage's combo lists the input folder now. */
  objectInfo(): Record<string, NodeInfo> {
    return Object.fromEntries([...this.registry.values()].map((d) => [d.name, nodeInfo(d, this.env)]));
  }

  /**
   * POST /prompt validation with ComfyUI's error types and messages. Like ComfyUI, literal inputs
   * of `prompt` are converted in place (e.g. "512" → 512 for an INT); defaults are not filled in.
   */
  validate(prompt: unknown, partialExecutionTargets?: string[]): ValidateResult {
    return validatePrompt(this.registry, this.env, prompt, partialExecutionTargets);
  }

  /** Runs a (validated) prompt. `outputs` defaults to every output node of the prompt. */
  execute(promptId: string, prompt: PromptGraph, hooks?: ExecuteHooks, outputs?: string[]): Promise<ExecuteResult> {
    void promptId; // ComfyUI keys its caches by prompt; this runtime keeps no cache between prompts.
    return executePrompt(this.registry, this.env, prompt, hooks, outputs);
  }
}
