/**
 * Runs a prompt: topological order from the output nodes, each node once, links resolved to the
 * source's output slot. Interrupts are honoured before each node (after its `executing` event, as
 * ComfyUI checks inside the node call) and at every ctx.tick() in long loops.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExecuteHooks, ExecuteResult, PromptGraph } from './runtime-types.ts';
import { InterruptedError, NodeError } from './types.ts';
import type { NodeContext, NodeDef, NodeEnv } from './types.ts';
import { PyException } from './py-format.ts';

const PROGRESS_STEPS = 20;

class GraphError extends Error {
  constructor(
    readonly nodeId: string,
    readonly nodeType: string,
    message: string,
    readonly pyType: string,
  ) {
    super(message);
  }
}

const isLinkValue = (v: unknown): v is [string, number] => Array.isArray(v) && v.length === 2;

const order = (registry: ReadonlyMap<string, NodeDef>, prompt: PromptGraph, outputs: string[]): string[] => {
  const done = new Set<string>();
  const visiting = new Set<string>();
  const list: string[] = [];
  const visit = (id: string, from: string): void => {
    if (done.has(id)) return;
    const node = prompt[id];
    if (!node) throw new GraphError(from, prompt[from]?.class_type ?? '', `'${id}'`, 'KeyError');
    if (!registry.has(node.class_type)) {
      throw new GraphError(id, node.class_type, `Cannot execute because node ${node.class_type} does not exist.`, 'KeyError');
    }
    if (visiting.has(id)) throw new GraphError(id, node.class_type, 'Dependency cycle detected', 'graph.DependencyCycleError');
    visiting.add(id);
    for (const v of Object.values(node.inputs ?? {})) if (isLinkValue(v)) visit(String(v[0]), id);
    visiting.delete(id);
    done.add(id);
    list.push(id);
  };
  for (const o of outputs) visit(o, o);
  return list;
};

const errorType = (ex: unknown): string => {
  if (ex instanceof NodeError || ex instanceof PyException) return ex.pyType;
  return 'RuntimeError';
};

/**
 * ComfyUI's input signature of a node (comfy_execution/caching.py): its class, each literal input, and for a
 * link the signature of the node it comes from; LoadImage's IS_CHANGED (the file's content) is the file's
 * size and time here. Equal signatures mean equal results, so a server answers them from its cache.
 */
const signatures = (prompt: PromptGraph, env: NodeEnv, plan: string[]): Map<string, string> => {
  const sigs = new Map<string, string>();
  for (const id of plan) {
    const node = prompt[id]!;
    const inputs = Object.keys(node.inputs ?? {})
      .sort()
      .map((key) => {
        const value = node.inputs[key];
        return isLinkValue(value) ? [key, 'ANCESTOR', sigs.get(String(value[0]))!, Number(value[1])] : [key, value];
      });
    sigs.set(id, JSON.stringify([node.class_type, changedMark(node, env), inputs]));
  }
  return sigs;
};

const changedMark = (node: PromptGraph[string], env: NodeEnv): string => {
  const image = node.inputs?.['image'];
  if (!node.class_type.startsWith('LoadImage') || typeof image !== 'string') return '';
  try {
    const info = statSync(path.join(env.inputDir, image));
    return `${info.size}:${info.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

export const executePrompt = async (
  registry: ReadonlyMap<string, NodeDef>,
  env: NodeEnv,
  prompt: PromptGraph,
  hooks: ExecuteHooks = {},
  outputs?: string[],
): Promise<ExecuteResult> => {
  const executed: string[] = [];
  const uiOutputs: Record<string, Record<string, unknown>> = {};
  const targets =
    outputs ?? Object.keys(prompt).filter((id) => registry.get(prompt[id]?.class_type ?? '')?.outputNode === true);
  const interrupted = (): boolean => hooks.isInterrupted?.() === true;
  const checkBudget = (): void => {
    const over = hooks.overBudget?.();
    if (over) throw new NodeError(over, 'MemoryError');
  };
  hooks.onExecutionStart?.();
  let plan: string[];
  try {
    plan = order(registry, prompt, targets);
  } catch (ex) {
    hooks.onCached?.([]);
    const g = ex as GraphError;
    return { status: 'error', nodeId: g.nodeId, nodeType: g.nodeType, exceptionMessage: g.message, exceptionType: g.pyType, executed, outputs: uiOutputs };
  }
  const { cache } = hooks;
  const sigs = cache ? signatures(prompt, env, plan) : new Map<string, string>();
  cache?.keepOnly(new Set(sigs.values()));
  hooks.onCached?.(cache ? plan.filter((id) => cache.get(sigs.get(id)!) !== undefined) : []);
  const results = new Map<string, unknown[]>();
  for (const id of plan) {
    const node = prompt[id]!;
    const def = registry.get(node.class_type)!;
    const hit = cache?.get(sigs.get(id)!);
    if (hit) {
      // Served from the cache: nothing runs, an output node's earlier ui (its earlier files) is sent again.
      results.set(id, hit.outputs);
      if (hit.ui) {
        uiOutputs[id] = hit.ui;
        hooks.onExecuted?.(id, hit.ui);
      }
      continue;
    }
    hooks.onExecuting?.(id);
    if (interrupted()) return { status: 'interrupted', nodeId: id, nodeType: node.class_type, executed, outputs: uiOutputs };
    let lastStep = -1;
    const ctx: NodeContext = {
      nodeId: id,
      env,
      linkedTypes: {},
      progress(value, max) {
        const step = max > 0 ? Math.floor((value * PROGRESS_STEPS) / max) : 0;
        // The last step (value = max) is always a new one: a node's progress always ends at its max.
        if (step === lastStep) return;
        lastStep = step;
        hooks.onProgress?.(value, max, id);
      },
      async tick() {
        await nextTurn();
        if (interrupted()) throw new InterruptedError();
        checkBudget();
      },
    };
    try {
      const declared = def.inputTypes(env);
      const specs = { ...declared.required, ...declared.optional };
      const inputs: Record<string, unknown> = {};
      for (const name of Object.keys(specs)) {
        if (!(name in node.inputs)) continue;
        const val = node.inputs[name];
        if (isLinkValue(val)) {
          const [src, slot] = [String(val[0]), Number(val[1])];
          const srcOut = results.get(src) ?? [];
          // A negative slot counts from the end, as Python's indexing (and so validation) does.
          const index = slot < 0 ? srcOut.length + slot : slot;
          if (!(index in srcOut)) throw new NodeError(`input ${name}: output ${slot} of node ${src} is not available`, 'KeyError');
          inputs[name] = srcOut[index];
          ctx.linkedTypes[name] = registry.get(prompt[src]!.class_type)!.output[index] ?? '*';
        } else {
          // Validation converted the literal in place (as ComfyUI's does); the node gets it as it is.
          inputs[name] = val;
        }
      }
      const result = await def.run(inputs, ctx);
      checkBudget();
      results.set(id, result.outputs ?? []);
      cache?.set(sigs.get(id)!, { outputs: result.outputs ?? [], ui: result.ui });
      executed.push(id);
      if (result.ui) {
        uiOutputs[id] = result.ui;
        hooks.onExecuted?.(id, result.ui);
      }
    } catch (ex) {
      if (ex instanceof InterruptedError) {
        return { status: 'interrupted', nodeId: id, nodeType: node.class_type, executed, outputs: uiOutputs };
      }
      return {
        status: 'error',
        nodeId: id,
        nodeType: node.class_type,
        exceptionMessage: (ex as Error)?.message ?? String(ex),
        exceptionType: errorType(ex),
        executed,
        outputs: uiOutputs,
      };
    }
  }
  return { status: 'success', outputs: uiOutputs, executed };
};
