import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { buildApplication } from '../../bootstrap/app.ts';
import { loadConfig, type Config } from '../../bootstrap/config.ts';
import { idleSlotsWarning } from '../../bootstrap/config/engine.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';

const load = (env: Record<string, string>): Readonly<Config> => {
  const result = loadConfig({ JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-000', ...env }, { persistLocalSecret: false });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
};

const TWO = { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: 'http://gpu-a:8188,http://gpu-b:8188' };

test('WORKER_CONCURRENCY defaults to every ComfyUI slot (servers × COMFYUI_JOBS_PER_SERVER) plus COMFYUI_DISPATCH_LOOKAHEAD (one per server by default); set, it is kept; builtin keeps 1', (t) => {
  t.is(load(TWO).generation.workerConcurrency, 4);
  t.is(load({ ...TWO, COMFYUI_JOBS_PER_SERVER: '3' }).generation.workerConcurrency, 8);
  t.is(load({ ...TWO, COMFYUI_DISPATCH_LOOKAHEAD: '0' }).generation.workerConcurrency, 2);
  t.is(load({ ...TWO, COMFYUI_DISPATCH_LOOKAHEAD: '5' }).generation.workerConcurrency, 7);
  t.is(load({ ...TWO, COMFYUI_JOBS_PER_SERVER: '40', COMFYUI_DISPATCH_LOOKAHEAD: '10' }).generation.workerConcurrency, 64);
  t.is(load({ ...TWO, WORKER_CONCURRENCY: '1' }).generation.workerConcurrency, 1);
  t.is(load({}).generation.workerConcurrency, 1);
  t.is(load({ ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: 'http://gpu-a:8188' }).generation.workerConcurrency, 2);
});

test('COMFYUI_DISPATCH is fair unless set to shortest-queue; COMFYUI_AFFINITY_WAIT_MS defaults to 15 s; a bad value is a start-up problem', (t) => {
  const fair = load(TWO).engine;
  t.like(fair, { driver: 'comfyui', dispatch: 'fair', affinityWaitMs: 15_000, lookahead: 2 });
  t.like(load({ ...TWO, COMFYUI_DISPATCH: 'shortest-queue', COMFYUI_AFFINITY_WAIT_MS: '500' }).engine, { dispatch: 'shortest-queue', affinityWaitMs: 500 });
  const bad = loadConfig({ JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-000', ...TWO, COMFYUI_DISPATCH: 'random' }, { persistLocalSecret: false });
  t.false(bad.ok);
  t.true(!bad.ok && bad.problems.some((p) => p.includes('COMFYUI_DISPATCH')), JSON.stringify(bad));
});

test('a WORKER_CONCURRENCY below the slots is warned about; enough of it, or the builtin engine, is not', (t) => {
  const config = load({ ...TWO, WORKER_CONCURRENCY: '1' });
  t.is(
    idleSlotsWarning(config.engine, config.generation.workerConcurrency),
    'WORKER_CONCURRENCY=1 runs at most 1 job(s) at a time, but 2 ComfyUI server(s) × COMFYUI_JOBS_PER_SERVER=1 offer 2 slots: 1 will stay idle ' +
      'unless other worker processes use them. Leave WORKER_CONCURRENCY unset (it then defaults to 4) or raise it.',
  );
  const enough = load(TWO);
  t.is(idleSlotsWarning(enough.engine, enough.generation.workerConcurrency), null);
  const builtin = load({ WORKER_CONCURRENCY: '1' });
  t.is(idleSlotsWarning(builtin.engine, builtin.generation.workerConcurrency), null);
});

test('a worker started with WORKER_CONCURRENCY=1 and two ComfyUI servers says so in its log', async (t) => {
  const servers = [await startComfyProtocolServer(), await startComfyProtocolServer()];
  t.teardown(async () => {
    for (const s of servers) await s.close();
  });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-concurrency-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {}, child: () => logger };
  const config = load({ ROLES: 'worker', DATA_DIR: dataDir, ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: servers.map((s) => s.url).join(','), WORKER_CONCURRENCY: '1' });
  const app = buildApplication(config, { logger });
  t.teardown(() => app.stop());
  await app.start();
  t.true(warnings.some((w) => w.startsWith('WORKER_CONCURRENCY=1 runs at most 1 job(s) at a time, but 2 ComfyUI server(s)')), warnings.join('\n'));
});
