/**
 * Simulated GPU time for a stand-in of a fleet (benches, dispatch tests; ADR 044): a prompt whose model files
 * differ from the ones this server loaded last waits `modelLoadMs` first (as a GPU server loads a checkpoint), and
 * every node it executes (not answered from the cache) adds `nodeMs`. A prompt that loads no model keeps what is
 * loaded. Counts the loads and the time spent executing, for a bench's busy fraction.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { jobModelFiles, jobRequirements } from '../../core/domain/object-info.ts';
import type { ComfyGraph, ProtocolExecuteHooks, ProtocolExecuteResult, ProtocolRuntime, ProtocolValidateResult } from './protocol-runtime.types.ts';

export interface RunCosts {
  /** Paid when a prompt's model files differ from the last loaded ones (ms). */
  modelLoadMs?: number;
  /** Paid per executed node (ms). */
  nodeMs?: number;
}

export class CostlyRuntime implements ProtocolRuntime {
  /** Model switches so far (the first load counts). */
  loads = 0;
  /** Time spent executing prompts, loads included (ms). */
  busyMs = 0;
  private loaded: string | null = null;

  constructor(
    private readonly inner: ProtocolRuntime,
    private readonly costs: RunCosts,
  ) {}

  objectInfo(): Record<string, unknown> {
    return this.inner.objectInfo();
  }

  validate(prompt: unknown, partialExecutionTargets?: string[]): ProtocolValidateResult {
    return this.inner.validate(prompt, partialExecutionTargets);
  }

  async execute(promptId: string, prompt: ComfyGraph, hooks?: ProtocolExecuteHooks, outputs?: string[]): Promise<ProtocolExecuteResult> {
    const began = performance.now();
    try {
      const models = jobModelFiles(jobRequirements(prompt)).join('\n');
      if (models !== '' && models !== this.loaded) {
        this.loads += 1;
        await sleep(this.costs.modelLoadMs ?? 0);
        this.loaded = models;
      }
      const result = await this.inner.execute(promptId, prompt, hooks, outputs);
      await sleep((this.costs.nodeMs ?? 0) * result.executed.length);
      return result;
    } finally {
      this.busyMs += performance.now() - began;
    }
  }
}
