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
  const engine = new ComfyEngine({ urls: [server.url], timeoutMs: 5000, jobsPerServer: 1, unavailableWaitMs: 2000, pollMs: 100 });
  return {
    engine,
    async dispose() {
      await engine.close();
      await server.close();
    },
  };
});
