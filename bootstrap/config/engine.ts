import path from 'node:path';
import { DISPATCH_POLICIES, type DispatchPolicyName } from '../../core/domain/dispatch-policy.ts';
import type { Reader } from './reader.ts';

/**
 * ENGINE_DRIVER=comfyui: the GPU servers (COMFYUI_URLS; userinfo = basic auth), a bearer token for the others
 * (COMFYUI_TOKEN), each call's deadline (COMFYUI_TIMEOUT_MS), jobs per server from one worker process
 * (COMFYUI_JOBS_PER_SERVER), how long a job waits while no server is healthy (COMFYUI_WAIT_MS), how long a
 * running prompt's server may stay unreachable before the job goes elsewhere (COMFYUI_FAILOVER_MS), the longest
 * pause between probes of a failed server (COMFYUI_PROBE_MS), how often each server's /object_info is read
 * again (COMFYUI_CATALOG_REFRESH_MS; ADR 033), and which waiting job a free slot goes to (COMFYUI_DISPATCH), how long
 * a job may be passed over for one whose models a server has loaded (COMFYUI_AFFINITY_WAIT_MS) and how many jobs
 * beyond the slots a worker takes so that there is a choice (COMFYUI_DISPATCH_LOOKAHEAD; ADR 044).
 */
export interface ComfyEngineConfig {
  driver: 'comfyui';
  urls: string[];
  token?: string;
  timeoutMs: number;
  jobsPerServer: number;
  unavailableWaitMs: number;
  failoverMs: number;
  probeMs: number;
  catalogueRefreshMs: number;
  dispatch: DispatchPolicyName;
  affinityWaitMs: number;
  lookahead: number;
}

/** builtin: runs in worker threads; a run past `timeBudgetSeconds` (ENGINE_TIME_BUDGET) or `memoryMb` (ENGINE_MEMORY_MB) is stopped and failed. */
export type EngineConfig = { driver: 'builtin'; workDir: string; timeBudgetSeconds: number; memoryMb: number } | ComfyEngineConfig;

export function readEngine(read: Reader, ctx: { dataDir: string }): EngineConfig {
  const engineDriver = read.oneOf('ENGINE_DRIVER', 'builtin', ['builtin', 'comfyui'] as const);
  let engine: EngineConfig;
  if (engineDriver === 'comfyui') {
    // COMFYUI_URL (one or more) is the older name of COMFYUI_URLS.
    const plural = read.list('COMFYUI_URLS');
    const alias = read.list('COMFYUI_URL');
    if (plural.length > 0 && alias.length > 0 && plural.join(',') !== alias.join(',')) {
      read.problems.push('COMFYUI_URLS and COMFYUI_URL disagree: set only COMFYUI_URLS');
    }
    const urls = plural.length > 0 ? plural : alias;
    if (urls.length === 0) read.problems.push('COMFYUI_URLS is required when ENGINE_DRIVER=comfyui (one or more URLs, comma-separated)');
    for (const url of urls) read.url('COMFYUI_URLS', url, ['http:', 'https:']);
    const token = read.raw('COMFYUI_TOKEN');
    engine = {
      driver: 'comfyui',
      urls,
      ...(token ? { token } : {}),
      timeoutMs: read.int('COMFYUI_TIMEOUT_MS', 30_000, 100, 3_600_000),
      jobsPerServer: read.int('COMFYUI_JOBS_PER_SERVER', 1, 1, 64),
      unavailableWaitMs: read.int('COMFYUI_WAIT_MS', 60_000, 0, 3_600_000),
      failoverMs: read.int('COMFYUI_FAILOVER_MS', 3_000, 100, 3_600_000),
      probeMs: read.int('COMFYUI_PROBE_MS', 2_000, 100, 600_000),
      catalogueRefreshMs: read.int('COMFYUI_CATALOG_REFRESH_MS', 60_000, 0, 86_400_000),
      dispatch: read.oneOf('COMFYUI_DISPATCH', 'fair', DISPATCH_POLICIES),
      affinityWaitMs: read.int('COMFYUI_AFFINITY_WAIT_MS', 15_000, 0, 3_600_000),
      lookahead: read.int('COMFYUI_DISPATCH_LOOKAHEAD', Math.max(1, urls.length), 0, 64),
    };
  } else {
    engine = {
      driver: 'builtin',
      workDir: path.join(ctx.dataDir, 'engine'),
      timeBudgetSeconds: read.duration('ENGINE_TIME_BUDGET', 10 * 60),
      memoryMb: read.int('ENGINE_MEMORY_MB', 2048, 64, 65_536),
    };
  }
  return engine;
}

/** The jobs one worker can keep busy on the servers at once: servers × COMFYUI_JOBS_PER_SERVER (capped at WORKER_CONCURRENCY's 64); 1 for builtin. */
export function engineSlots(engine: EngineConfig): number {
  return engine.driver === 'comfyui' ? Math.min(64, Math.max(1, engine.urls.length) * engine.jobsPerServer) : 1;
}

/**
 * What WORKER_CONCURRENCY is when unset: with ComfyUI every slot plus COMFYUI_DISPATCH_LOOKAHEAD jobs that wait in
 * the pool, still queued, so that a slot that frees has a choice of jobs (ADR 044); capped at 64. 1 for builtin.
 */
export function defaultWorkerConcurrency(engine: EngineConfig): number {
  return engine.driver === 'comfyui' ? Math.min(64, engineSlots(engine) + engine.lookahead) : 1;
}

/** A start-up warning when WORKER_CONCURRENCY leaves ComfyUI slots idle (each job holds one slot while it runs), else null. */
export function idleSlotsWarning(engine: EngineConfig, workerConcurrency: number): string | null {
  const slots = engineSlots(engine);
  if (engine.driver !== 'comfyui' || workerConcurrency >= slots) return null;
  return (
    `WORKER_CONCURRENCY=${workerConcurrency} runs at most ${workerConcurrency} job(s) at a time, but ${engine.urls.length} ComfyUI server(s) × ` +
    `COMFYUI_JOBS_PER_SERVER=${engine.jobsPerServer} offer ${slots} slots: ${slots - workerConcurrency} will stay idle unless other worker ` +
    `processes use them. Leave WORKER_CONCURRENCY unset (it then defaults to ${defaultWorkerConcurrency(engine)}) or raise it.`
  );
}
