/**
 * Fair and model-aware dispatch (issue 23, ADR 044): the same arrival schedule through the comfyui engine under
 * `shortest-queue` (arrival order) and under `fair` (users in turn, loaded models first within a bound), against
 * N protocol stand-ins in this process that pay a simulated model load per model switch and a run time per executed
 * node (sleeps: the figures are about scheduling, not this machine's CPU). M users with mixed templates and
 * checkpoints; one of them bursts many jobs at the start. Each job waits for a slot as a worker's job does
 * (`reserve`, then `run` on that slot). Twice per policy: every job at the pool as it arrives (an unbounded
 * look-ahead: the policy sees every waiting job), then as a worker with the default look-ahead takes them (slots +
 * one per server at once, from a queue in arrival order, as RabbitMQ or SQS deliver).
 *
 * Prints one JSON line: per policy, the GPU busy fraction (time the servers spent executing, loads included, over
 * servers × makespan) and its useful part (node work only), the makespan, p50/p95 wait (submit → slot), each user's
 * mean and longest wait, model switches; the ideal makespan (total node work / servers, no load ever) and each
 * policy's makespan over it.
 * `npx tsx bench/dispatch.bench.ts`   (BENCH_SERVERS, BENCH_LOAD_MS, BENCH_NODE_MS, BENCH_AFFINITY_WAIT_MS)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinRuntime } from '../adapters/builtin-engine/builtin-runtime.ts';
import { checkpointLoaderNode } from '../adapters/builtin-engine/nodes/model-nodes.ts';
import { ComfyEngine } from '../adapters/comfyui/comfy-engine.ts';
import { createComfyProtocolServer } from '../adapters/comfyui-protocol-server/comfy-protocol-server.ts';
import { CostlyRuntime } from '../adapters/comfyui-protocol-server/run-costs.ts';
import type { DispatchPolicyName } from '../core/domain/dispatch-policy.ts';
import type { WorkflowGraph } from '../core/domain/workflow-graph.types.ts';
import { pause } from './support/harness.ts';

const SERVERS = Number(process.env.BENCH_SERVERS ?? 3);
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 400);
const NODE_MS = Number(process.env.BENCH_NODE_MS ?? 80);
const AFFINITY_WAIT_MS = Number(process.env.BENCH_AFFINITY_WAIT_MS ?? 3_000);
/** COMFYUI_DISPATCH_LOOKAHEAD's default: one job per server beyond the slots. */
const LOOKAHEAD = Number(process.env.BENCH_LOOKAHEAD ?? SERVERS);
const CHECKPOINTS = ['sd15.safetensors', 'sdxl.safetensors', 'flux.safetensors'];

/** Templates by executed nodes: a small image (2 nodes), a blurred one (3), a blurred and scaled one (4). */
const TEMPLATES: { name: string; nodes: number; build(checkpoint: string, seed: number): WorkflowGraph }[] = [
  { name: 'small', nodes: 2, build: (ckpt, seed) => graph(ckpt, seed, []) },
  { name: 'blur', nodes: 3, build: (ckpt, seed) => graph(ckpt, seed, ['ImageBlur']) },
  { name: 'blur-scale', nodes: 4, build: (ckpt, seed) => graph(ckpt, seed, ['ImageBlur', 'ImageScale']) },
];

function graph(checkpoint: string, seed: number, steps: string[]): WorkflowGraph {
  const workflow: WorkflowGraph = {
    ckpt: { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } },
    '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: seed % 0xffffff } },
  };
  let last = '1';
  for (const [index, step] of steps.entries()) {
    const id = String(index + 2);
    workflow[id] =
      step === 'ImageBlur'
        ? { class_type: 'ImageBlur', inputs: { image: [last, 0], blur_radius: 1, sigma: 1 } }
        : { class_type: 'ImageScale', inputs: { image: [last, 0], upscale_method: 'nearest-exact', width: 16, height: 16, crop: 'disabled' } };
    last = id;
  }
  workflow['save'] = { class_type: 'SaveImage', inputs: { images: [last, 0], filename_prefix: 'bench' } };
  return workflow;
}

interface Arrival {
  atMs: number;
  userId: string;
  checkpoint: string;
  template: (typeof TEMPLATES)[number];
  seed: number;
}

/** A fixed schedule (seeded): user-0 bursts 40 jobs on one checkpoint at once; five others send 8 each, spread over 10 s, mostly on a checkpoint of their own. */
function schedule(): Arrival[] {
  let state = 42;
  const random = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const arrivals: Arrival[] = [];
  for (let i = 0; i < 40; i += 1) arrivals.push({ atMs: 0, userId: 'user-0', checkpoint: CHECKPOINTS[0]!, template: TEMPLATES[i % TEMPLATES.length]!, seed: arrivals.length + 1 });
  for (let u = 1; u <= 5; u += 1) {
    for (let i = 0; i < 8; i += 1) {
      const own = CHECKPOINTS[u % CHECKPOINTS.length]!;
      const checkpoint = random() < 0.75 ? own : CHECKPOINTS[Math.floor(random() * CHECKPOINTS.length)]!;
      arrivals.push({ atMs: Math.round(random() * 10_000), userId: `user-${u}`, checkpoint, template: TEMPLATES[Math.floor(random() * TEMPLATES.length)]!, seed: arrivals.length + 1 });
    }
  }
  return arrivals.sort((a, b) => a.atMs - b.atMs);
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
};

/** A worker's WORKER_CONCURRENCY: `take` waits for a free unit, in call order (arrival order: a FIFO queue's delivery). */
class WorkerUnits {
  private readonly queue: (() => void)[] = [];
  constructor(private free: number) {}

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  give(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free += 1;
  }
}

const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

interface Fleet {
  urls: string[];
  runtimes: CostlyRuntime[];
  close(): Promise<void>;
}

async function startFleet(): Promise<Fleet> {
  const root = mkdtempSync(path.join(tmpdir(), 'mgs-bench-dispatch-'));
  const started = await Promise.all(
    Array.from({ length: SERVERS }, async (_, index) => {
      const dirs = { inputDir: path.join(root, `s${index}`, 'input'), outputDir: path.join(root, `s${index}`, 'output'), tempDir: path.join(root, `s${index}`, 'temp') };
      const runtime = new CostlyRuntime(new BuiltinRuntime({ ...dirs, extraNodes: [checkpointLoaderNode(CHECKPOINTS)] }), { modelLoadMs: LOAD_MS, nodeMs: NODE_MS });
      const server = createComfyProtocolServer({ runtime, ...dirs, port: 0, log: () => undefined });
      const { port } = await server.listen();
      return { url: `http://127.0.0.1:${port}`, runtime, server };
    }),
  );
  return {
    urls: started.map((s) => s.url),
    runtimes: started.map((s) => s.runtime),
    async close() {
      await Promise.all(started.map((s) => s.server.close()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const arrivals = schedule();
const workMs = arrivals.reduce((sum, a) => sum + a.template.nodes * NODE_MS, 0);

/** `concurrency`: jobs taken at once (slots + look-ahead), or null when every job goes to the pool as it arrives. */
async function measure(policy: DispatchPolicyName, concurrency: number | null) {
  const fleet = await startFleet();
  const engine = new ComfyEngine({ urls: fleet.urls, timeoutMs: 60_000, jobsPerServer: 1, unavailableWaitMs: 10_000, catalogueRefreshMs: 0, dispatch: policy, affinityWaitMs: AFFINITY_WAIT_MS });
  try {
    await engine.check();
    const worker = concurrency === null ? null : new WorkerUnits(concurrency);
    const began = performance.now();
    const waits: { userId: string; waitMs: number }[] = [];
    let failed = 0;
    let lastEnd = began;
    const jobs = arrivals.map(async (arrival) => {
      await pause(arrival.atMs);
      const submitted = performance.now();
      const units = worker;
      await units?.take();
      const workflow = arrival.template.build(arrival.checkpoint, arrival.seed);
      const slot = await engine.reserve({ jobId: randomUUID(), userId: arrival.userId, workflow, signal: new AbortController().signal });
      waits.push({ userId: arrival.userId, waitMs: performance.now() - submitted });
      const result = await engine.run({ runId: randomUUID(), userId: arrival.userId, ...(slot ? { slot } : {}), workflow, inputs: [], onEvent: () => undefined });
      if (!result.ok) failed += 1;
      lastEnd = Math.max(lastEnd, performance.now());
      units?.give();
    });
    await Promise.all(jobs);
    const makespanMs = lastEnd - began;
    const busyMs = fleet.runtimes.reduce((sum, r) => sum + r.busyMs, 0);
    const users = [...new Set(arrivals.map((a) => a.userId))].sort();
    return {
      makespanMs: Math.round(makespanMs),
      gpuBusyFraction: Math.round((busyMs / (SERVERS * makespanMs)) * 1000) / 1000,
      usefulBusyFraction: Math.round((workMs / (SERVERS * makespanMs)) * 1000) / 1000,
      waitP50Ms: percentile(waits.map((w) => w.waitMs), 50),
      waitP95Ms: percentile(waits.map((w) => w.waitMs), 95),
      meanWaitMsByUser: Object.fromEntries(users.map((u) => [u, Math.round(mean(waits.filter((w) => w.userId === u).map((w) => w.waitMs)))])),
      maxWaitMsByUser: Object.fromEntries(users.map((u) => [u, Math.round(Math.max(...waits.filter((w) => w.userId === u).map((w) => w.waitMs)))])),
      modelSwitches: fleet.runtimes.reduce((sum, r) => sum + r.loads, 0),
      failed,
    };
  } finally {
    await engine.close();
    await fleet.close();
  }
}

const idealMs = Math.round(workMs / SERVERS);
const shortest = await measure('shortest-queue', null);
const fair = await measure('fair', null);
const ratio = (value: number, base: number): number => Math.round((value / base) * 100) / 100;
const concurrency = SERVERS + LOOKAHEAD;
const bounded = { 'shortest-queue': await measure('shortest-queue', concurrency), fair: await measure('fair', concurrency) };
process.stdout.write(
  `${JSON.stringify({
    bench: 'dispatch',
    servers: SERVERS,
    users: new Set(arrivals.map((a) => a.userId)).size,
    jobs: arrivals.length,
    modelLoadMs: LOAD_MS,
    nodeMs: NODE_MS,
    affinityWaitMs: AFFINITY_WAIT_MS,
    idealMakespanMs: idealMs,
    unboundedLookahead: {
      'shortest-queue': shortest,
      fair,
      makespanOverIdeal: { 'shortest-queue': ratio(shortest.makespanMs, idealMs), fair: ratio(fair.makespanMs, idealMs) },
      fairOverShortestQueue: { makespan: ratio(fair.makespanMs, shortest.makespanMs), waitP95: ratio(fair.waitP95Ms, shortest.waitP95Ms), modelSwitches: ratio(fair.modelSwitches, shortest.modelSwitches) },
    },
    workerLookahead: {
      lookahead: LOOKAHEAD,
      workerConcurrency: concurrency,
      ...bounded,
      makespanOverIdeal: { 'shortest-queue': ratio(bounded['shortest-queue'].makespanMs, idealMs), fair: ratio(bounded.fair.makespanMs, idealMs) },
      fairOverShortestQueue: {
        makespan: ratio(bounded.fair.makespanMs, bounded['shortest-queue'].makespanMs),
        waitP95: ratio(bounded.fair.waitP95Ms, bounded['shortest-queue'].waitP95Ms),
        modelSwitches: ratio(bounded.fair.modelSwitches, bounded['shortest-queue'].modelSwitches),
      },
    },
    machine: { cpus: cpus().length, loadavg1: Math.round(loadavg()[0]! * 100) / 100, note: 'provisional: measured on a shared, loaded machine' },
  })}\n`,
);
