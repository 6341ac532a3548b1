import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { ThreadedBuiltinEngine } from '../../adapters/builtin-engine/threaded-builtin-engine.ts';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { threadedEngineOptions } from '../../bootstrap/modules/generation.module.ts';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { workflowEngineContract } from './workflow-engine.contract.ts';

workflowEngineContract('builtin', async () => {
  const workDir = await mkdtemp(path.join(tmpdir(), 'engine-contract-'));
  const engine = new BuiltinEngine({ workDir });
  return {
    engine,
    async dispose() {
      await engine.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
});

// What production binds for ENGINE_DRIVER=builtin: the runtime in worker threads, with the options the default configuration gives.
workflowEngineContract('builtin (threaded)', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'engine-contract-threaded-'));
  const loaded = loadConfig({ DATA_DIR: dataDir, ENGINE_DRIVER: 'builtin' }, { persistLocalSecret: false });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  if (loaded.config.engine.driver !== 'builtin') throw new Error('expected the builtin engine');
  const engine = new ThreadedBuiltinEngine(threadedEngineOptions(loaded.config.engine, loaded.config));
  return {
    engine,
    async dispose() {
      await engine.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

// The comfyui adapter talking to the protocol server (the builtin runtime behind ComfyUI's HTTP and WebSocket API).
workflowEngineContract('comfyui', async () => {
  const server = await startComfyProtocolServer();
  const engine = new ComfyEngine({ urls: [server.url], timeoutMs: 15_000, jobsPerServer: 1, unavailableWaitMs: 10_000, pollMs: 100 });
  return {
    engine,
    async dispose() {
      await engine.close();
      await server.close();
    },
  };
});

// By hand, against a real ComfyUI (CI has none): COMFYUI_TEST_URL=http://127.0.0.1:8188 ava tests/contract/workflow-engine.test.ts
const realComfy = process.env.COMFYUI_TEST_URL;
if (realComfy) {
  workflowEngineContract('comfyui (real server)', async () => {
    const engine = new ComfyEngine({ urls: [realComfy], timeoutMs: 30_000, jobsPerServer: 1, unavailableWaitMs: 5000, pollMs: 200 });
    return { engine, dispose: () => engine.close() };
  });
}
