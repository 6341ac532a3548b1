/**
 * comfyui engine adapter bench (issue 9), against protocol servers (`bootstrap/comfy-serve.ts`) in child
 * processes so their CPU and memory stay out of this process's figures:
 *  1. per-job overhead of the adapter (pool, socket, submit, /history, outputs) over a bare client calling
 *     the same server directly (socket + POST /prompt + wait for the end + GET /history), zero-work
 *     workflow, p50/p99; the bare client is the named baseline;
 *  2. jobs/s through the adapter with one and with two servers (a small image per job, each server one job
 *     at a time), and the ratio two/one;
 *  3. a 256 MiB output streamed from /view into local storage, with this process's RSS growth (< 64 MiB).
 * Prints one JSON line. `npx tsx bench/comfyui-engine.bench.ts`
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import WebSocket from 'ws';
import { ComfyEngine } from '../adapters/comfyui/comfy-engine.ts';
import { LocalObjectStorage } from '../adapters/local-storage/local-object-storage.ts';
import type { WorkflowGraph } from '../core/domain/workflow-graph.types.ts';
import { freePort, spawnTsx, stopChild, waitForHttp } from './support/harness.ts';

const LATENCY_JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? 100);
const THROUGHPUT_JOBS = Number(process.env.BENCH_THROUGHPUT_JOBS ?? 60);
const BIG_BYTES = 256 * 1024 * 1024;
const ZERO_WORK: WorkflowGraph = { '1': { class_type: 'PreviewAny', inputs: { source: 'ping' } } };
const smallImage = (i: number): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: i % 0xffffff } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'bench' } },
});

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
};

interface ComfyProcess {
  url: string;
  outputDir: string;
  stop(): Promise<void>;
}

async function startComfy(): Promise<ComfyProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-bench-comfy-'));
  const port = await freePort();
  const child = spawnTsx('bootstrap/comfy-serve.ts', { COMFY_DATA_DIR: dataDir, COMFY_PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/system_stats`, child);
  return {
    url,
    outputDir: path.join(dataDir, 'output'),
    async stop() {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The baseline: what any client must do for one prompt, with nothing else (no pool, no adoption, no outputs). */
async function directRun(url: string, workflow: WorkflowGraph): Promise<void> {
  const id = randomUUID();
  const ws = new WebSocket(`${url.replace('http', 'ws')}/ws?clientId=${id}`);
  await once(ws, 'open');
  const ended = new Promise<void>((resolve) =>
    ws.on('message', (data, binary) => {
      if (binary) return;
      const m = JSON.parse(String(data)) as { type: string; data: { node?: unknown; prompt_id?: string } };
      if (m.type === 'executing' && m.data.node === null && m.data.prompt_id === id) resolve();
    }),
  );
  const res = await fetch(`${url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: workflow, client_id: id, prompt_id: id }) });
  if (res.status !== 200) throw new Error(`direct submit: ${res.status}`);
  await res.arrayBuffer();
  await ended;
  const history = (await (await fetch(`${url}/history/${id}`)).json()) as Record<string, unknown>;
  if (!history[id]) throw new Error('direct: no history');
  ws.close();
}

async function adapterRun(engine: ComfyEngine, workflow: WorkflowGraph): Promise<void> {
  const result = await engine.run({ runId: randomUUID(), workflow, inputs: [], onEvent: () => undefined });
  if (!result.ok) throw new Error(`adapter: ${result.error.message}`);
}

async function timed(jobs: number, run: () => Promise<void>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < jobs + 5; i++) {
    const started = performance.now();
    await run();
    if (i >= 5) ms.push(performance.now() - started);
  }
  return ms;
}

async function throughput(urls: string[]): Promise<number> {
  const engine = new ComfyEngine({ urls, timeoutMs: 30_000, jobsPerServer: 1, unavailableWaitMs: 10_000 });
  try {
    await adapterRun(engine, smallImage(0));
    let next = 0;
    const started = performance.now();
    // As many jobs in flight as the pool has slots: the worker's WORKER_CONCURRENCY.
    await Promise.all(
      urls.map(async () => {
        while (next < THROUGHPUT_JOBS) {
          const i = next++;
          await adapterRun(engine, smallImage(i + 1));
        }
      }),
    );
    return Math.round((THROUGHPUT_JOBS / ((performance.now() - started) / 1000)) * 10) / 10;
  } finally {
    await engine.close();
  }
}

/** A 256 MiB file behind a real prompt's history entry, streamed through the adapter into local storage. */
async function bigOutput(server: ComfyProcess): Promise<{ storedBytes: number; rssGrowthMiB: number; seconds: number }> {
  const engine = new ComfyEngine({ urls: [server.url], timeoutMs: 30_000, jobsPerServer: 1, unavailableWaitMs: 10_000 });
  const storageDir = mkdtempSync(path.join(tmpdir(), 'mgs-bench-storage-'));
  try {
    const runId = randomUUID();
    const first = await engine.run({ runId, workflow: smallImage(7), inputs: [], onEvent: () => undefined });
    if (!first.ok) throw new Error(first.error.message);
    // The server's file becomes 256 MiB of incompressible bytes (as a large video would be).
    const target = path.join(server.outputDir, first.files[0]!.fileName);
    const out = createWriteStream(target);
    for (let written = 0; written < BIG_BYTES; written += 1024 * 1024) {
      if (!out.write(randomBytes(1024 * 1024))) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const storage = new LocalObjectStorage({ dir: storageDir, filesUrl: 'http://127.0.0.1/files', signingKey: 'k'.repeat(32), clock: { now: () => new Date() } });
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = performance.now();
    // A redelivered attempt adopts the finished prompt and reads its outputs: the same path as a fresh run's.
    const adopted = await engine.run({ runId: randomUUID(), supersedes: runId, workflow: smallImage(7), inputs: [], onEvent: () => undefined });
    if (!adopted.ok) throw new Error(adopted.error.message);
    const file = adopted.files[0]!;
    const { sizeBytes } = await storage.put('bench/big.png', await file.open(), { contentType: file.mimeType });
    const seconds = Math.round(((performance.now() - started) / 1000) * 100) / 100;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (sizeBytes !== BIG_BYTES || statSync(storage.pathOf('bench/big.png')).size !== BIG_BYTES) throw new Error(`stored ${sizeBytes} bytes`);
    return { storedBytes: sizeBytes, rssGrowthMiB: Math.round(((peak - before) / 1024 / 1024) * 10) / 10, seconds };
  } finally {
    await engine.close();
    rmSync(storageDir, { recursive: true, force: true });
  }
}

const servers = [await startComfy(), await startComfy()];
try {
  const [one] = servers;
  const engine = new ComfyEngine({ urls: [one!.url], timeoutMs: 30_000, jobsPerServer: 1, unavailableWaitMs: 10_000 });
  const direct = await timed(LATENCY_JOBS, () => directRun(one!.url, ZERO_WORK));
  const adapter = await timed(LATENCY_JOBS, () => adapterRun(engine, ZERO_WORK));
  await engine.close();
  const oneServer = await throughput([one!.url]);
  const twoServers = await throughput(servers.map((s) => s.url));
  const big = await bigOutput(one!);
  const p50 = percentile(adapter, 50);
  const directP50 = percentile(direct, 50);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'comfyui-engine',
      workflow: 'zero-work (PreviewAny of a literal)',
      jobs: adapter.length,
      p50Ms: p50,
      p99Ms: percentile(adapter, 99),
      directP50Ms: directP50,
      directP99Ms: percentile(direct, 99),
      overheadP50Ms: Math.round((p50 - directP50) * 100) / 100,
      overheadP99Ms: Math.round((percentile(adapter, 99) - percentile(direct, 99)) * 100) / 100,
      baseline: 'bare client on the same server (socket + POST /prompt + end event + GET /history)',
      ratioToDirect: Math.round((p50 / directP50) * 100) / 100,
      throughputWorkflow: '64x64 EmptyImage + SaveImage',
      throughputJobs: THROUGHPUT_JOBS,
      jobsPerSecondOneServer: oneServer,
      jobsPerSecondTwoServers: twoServers,
      ratioTwoToOneServer: Math.round((twoServers / oneServer) * 100) / 100,
      bigOutputMiB: big.storedBytes / 1024 / 1024,
      bigOutputSeconds: big.seconds,
      bigOutputRssGrowthMiB: big.rssGrowthMiB,
      bigOutputRssUnder64MiB: big.rssGrowthMiB < 64,
      cpus: cpus().length,
      loadAvg1m: Math.round(loadavg()[0]! * 10) / 10,
    })}\n`,
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
