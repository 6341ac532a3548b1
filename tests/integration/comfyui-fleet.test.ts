import { randomUUID } from 'node:crypto';
import test from 'ava';
import { ComfyEngine, type ComfyEngineOptions } from '../../adapters/comfyui/comfy-engine.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineEvent, EngineRunRequest } from '../../core/ports/workflow-engine.port.ts';
import { longBlur } from '../contract/workflow-engine.contract.ts';
import { startComfyProtocolServer, type ComfyStandInOptions, type StartedComfyServer } from '../support/comfy-protocol-server.ts';

type Teardown = { teardown(fn: () => Promise<void> | void): void };

const standIn = async (t: Teardown, options: ComfyStandInOptions = {}): Promise<StartedComfyServer> => {
  const started = await startComfyProtocolServer(options);
  t.teardown(() => started.close());
  return started;
};

// The production defaults for probing and failover (COMFYUI_PROBE_MS, COMFYUI_FAILOVER_MS) are what is measured here.
const engineFor = (t: Teardown, urls: string[], options: Partial<ComfyEngineOptions> = {}): ComfyEngine => {
  const engine = new ComfyEngine({ timeoutMs: 10_000, jobsPerServer: 1, unavailableWaitMs: 8000, pollMs: 50, ...options, urls });
  t.teardown(() => engine.close());
  return engine;
};

/** A small image job that also loads a checkpoint (the stand-in's loader yields a token no node needs). */
const withCheckpoint = (ckpt: string): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'fleet' } },
  '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } },
});

const small = (prefix: string): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: prefix } },
});

const request = (workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}) => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const req: EngineRunRequest = {
    runId: randomUUID(),
    workflow,
    inputs: [],
    onEvent: (e: EngineEvent) => {
      if (e.type === 'executing' && e.nodeId === '2') started();
    },
    ...extra,
  };
  return { req, running };
};

const historyIds = async (target: StartedComfyServer): Promise<string[]> => Object.keys((await (await fetch(`${target.url}/history`)).json()) as object);

test.serial('the stand-in answers /object_info with the models, extra nodes and hidden nodes it was given', async (t) => {
  const s = await standIn(t, { models: { checkpoints: ['a.safetensors', 'b.safetensors'] }, hideNodes: ['ImageBlur'] });
  const info = (await (await fetch(`${s.url}/object_info`)).json()) as Record<string, { input: { required: Record<string, unknown[]> }; output: string[] }>;
  t.deepEqual(info['CheckpointLoaderSimple']?.input.required['ckpt_name']?.[0], ['a.safetensors', 'b.safetensors']);
  t.deepEqual(info['CheckpointLoaderSimple']?.output, ['MODEL', 'CLIP', 'VAE']);
  t.false('ImageBlur' in info);
  const refused = await fetch(`${s.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: longBlur() }) });
  t.is(refused.status, 400, 'a prompt using a hidden node is refused as ComfyUI refuses an unknown node');
  const plain = await standIn(t);
  t.false('CheckpointLoaderSimple' in ((await (await fetch(`${plain.url}/object_info`)).json()) as object), 'no loader without a model list');
});

test.serial('two servers with different models: jobs run only where their model is; a model no server has fails at once, naming it but no address', async (t) => {
  const onlyB = await standIn(t, { models: { checkpoints: ['b.safetensors'] } });
  const onlyA = await standIn(t, { models: { checkpoints: ['a.safetensors'] } });
  const engine = engineFor(t, [onlyB.url, onlyA.url]);
  const runs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { req } = request(withCheckpoint('a.safetensors'));
    const result = await engine.run(req);
    t.true(result.ok, JSON.stringify(!result.ok && result.error));
    runs.push(req.runId);
  }
  t.deepEqual((await historyIds(onlyA)).sort(), [...runs].sort(), 'every job ran on the server that has model a');
  t.deepEqual(await historyIds(onlyB), []);
  const { req } = request(withCheckpoint('b.safetensors'));
  t.true((await engine.run(req)).ok);
  t.deepEqual(await historyIds(onlyB), [req.runId]);

  const missing = await engine.run(request(withCheckpoint('c.safetensors')).req);
  if (missing.ok) return t.fail('ran a model no server has');
  t.is(missing.error.code, 'ENGINE.VALIDATION');
  t.false(missing.transient, 'failed (and refunded) at once, not retried');
  t.is(missing.error.message, 'No ComfyUI server can run this workflow: server 1 lacks ckpt_name "c.safetensors" (node 5, CheckpointLoaderSimple); server 2 lacks ckpt_name "c.safetensors" (node 5, CheckpointLoaderSimple)');
  t.false(missing.error.message.includes('127.0.0.1'));
  t.is((await historyIds(onlyA)).length + (await historyIds(onlyB)).length, 4, 'nothing was submitted for it');
});

test.serial('a server restarted with another model list: its catalogue is read again and listeners hear of the change', async (t) => {
  const first = await startComfyProtocolServer({ models: { checkpoints: ['a.safetensors'] } });
  const engine = engineFor(t, [first.url], { catalogueRefreshMs: 200 });
  let changes = 0;
  engine.onCatalogueChange(() => (changes += 1));
  const before = await engine.catalogues();
  t.deepEqual((before?.[0]?.objectInfo?.['CheckpointLoaderSimple']?.input?.required?.['ckpt_name'] as unknown[])?.[0], ['a.safetensors']);
  await first.stop();
  t.teardown(() => first.close());
  await standIn(t, { port: first.port, models: { checkpoints: ['b.safetensors'] } });
  const deadline = Date.now() + 10_000;
  while (changes === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.is(changes, 1);
  const after = await engine.catalogues();
  t.deepEqual((after?.[0]?.objectInfo?.['CheckpointLoaderSimple']?.input?.required?.['ckpt_name'] as unknown[])?.[0], ['b.safetensors']);
  const moved = await engine.run(request(withCheckpoint('a.safetensors')).req);
  t.is(!moved.ok && moved.error.message, 'No ComfyUI server can run this workflow: server 1 lacks ckpt_name "a.safetensors" (node 5, CheckpointLoaderSimple)', 'routing follows the new catalogue');
  t.true((await engine.run(request(withCheckpoint('b.safetensors')).req)).ok);
});

test.serial('without the refresh timer, a server that failed and came back is read again before it gets jobs', async (t) => {
  const first = await startComfyProtocolServer({ models: { checkpoints: ['a.safetensors'] } });
  t.teardown(() => first.close());
  const engine = engineFor(t, [first.url], { catalogueRefreshMs: 0, baseBackoffMs: 50, maxBackoffMs: 100 });
  t.true((await engine.run(request(withCheckpoint('a.safetensors')).req)).ok);
  await first.stop();
  await t.throwsAsync(engine.check(), { message: /no ComfyUI server is reachable/ });
  await standIn(t, { port: first.port, models: { checkpoints: ['b.safetensors'] } });
  const moved = await engine.run(request(withCheckpoint('a.safetensors')).req);
  t.is(!moved.ok && moved.error.message, 'No ComfyUI server can run this workflow: server 1 lacks ckpt_name "a.safetensors" (node 5, CheckpointLoaderSimple)', 'the old catalogue (model a) is not trusted after the server returned');
  t.true((await engine.run(request(withCheckpoint('b.safetensors')).req)).ok);
});

test.serial('failover: a job whose server dies is given up within COMFYUI_FAILOVER_MS and its retry runs on the other server; a returning server is used again within COMFYUI_PROBE_MS', async (t) => {
  const a = await startComfyProtocolServer();
  t.teardown(() => a.close());
  const b = await standIn(t);
  const engine = engineFor(t, [a.url, b.url]);
  const { req, running } = request(longBlur());
  const result = engine.run(req);
  await running;
  const queueOfA = (await (await fetch(`${a.url}/queue`)).json()) as { queue_running: unknown[][] };
  const victim = queueOfA.queue_running.length > 0 ? a : b;
  const killedAt = Date.now();
  await victim.stop();
  const outcome = await result;
  const gaveUpMs = Date.now() - killedAt;
  t.is(!outcome.ok && outcome.error.code, 'ENGINE.UNAVAILABLE');
  t.true(!outcome.ok && outcome.transient);
  const retry = request(small('retry'), { supersedes: req.runId });
  const retried = await engine.run(retry.req);
  const elsewhereMs = Date.now() - killedAt;
  t.true(retried.ok, JSON.stringify(!retried.ok && retried.error));
  const survivor = victim === a ? b : a;
  t.true((await historyIds(survivor)).includes(retry.req.runId));
  t.log(`failover: the attempt gave up ${gaveUpMs} ms after its server died; its retry finished elsewhere after ${elsewhereMs} ms (default COMFYUI_FAILOVER_MS=3000)`);
  t.true(gaveUpMs < 8000, `gave up after ${gaveUpMs} ms`);

  // Alone and down for a while (its backoff has grown), then back: used again within about COMFYUI_PROBE_MS (2 s).
  const lonely = engineFor(t, [victim.url], { unavailableWaitMs: 60_000 });
  const waiting = lonely.run(request(small('back')).req);
  await new Promise((r) => setTimeout(r, 9000));
  const port = Number(new URL(victim.url).port);
  await standIn(t, { port });
  const backAt = Date.now();
  const resumed = await waiting;
  const resumeMs = Date.now() - backAt;
  t.true(resumed.ok, JSON.stringify(!resumed.ok && resumed.error));
  t.log(`resume: a job waiting for the only server ran ${resumeMs} ms after it came back (default COMFYUI_PROBE_MS=2000)`);
  t.true(resumeMs < 4500, `resumed after ${resumeMs} ms`);
});
