import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
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
