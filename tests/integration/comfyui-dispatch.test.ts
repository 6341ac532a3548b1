/**
 * ADR 044: which waiting job a ComfyUI server's free slot goes to, through the comfyui engine against protocol
 * stand-ins that pay a simulated model load per model switch and a run time per node. One server, one slot: the order
 * in which jobs finish is the order in which the pool handed them the slot.
 */
import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import type { DispatchPolicyName } from '../../core/domain/dispatch-policy.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import { startComfyProtocolServer, type ComfyStandInOptions } from '../support/comfy-protocol-server.ts';

const image = (color: number, checkpoint?: string): WorkflowGraph => ({
  ...(checkpoint ? { '9': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } } } : {}),
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'dispatch' } },
});

async function oneServer(t: ExecutionContext, standIn: ComfyStandInOptions, dispatch: DispatchPolicyName, affinityWaitMs = 60_000): Promise<ComfyEngine> {
  const server = await startComfyProtocolServer(standIn);
  const engine = new ComfyEngine({ urls: [server.url], timeoutMs: 20_000, jobsPerServer: 1, unavailableWaitMs: 5_000, catalogueRefreshMs: 0, dispatch, affinityWaitMs });
  t.teardown(async () => {
    await engine.close();
    await server.close();
  });
  return engine;
}

interface Job {
  label: string;
  userId: string;
  workflow: WorkflowGraph;
}

/** Runs the jobs (each group `gapMs` after the one before), and gives their labels in the order they finished. */
async function finishOrder(t: ExecutionContext, engine: ComfyEngine, groups: Job[][], gapMs = 150): Promise<string[]> {
  const finished: string[] = [];
  const runs: Promise<void>[] = [];
  for (const [index, group] of groups.entries()) {
    if (index > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    for (const job of group) {
      runs.push(
        engine.run({ runId: randomUUID(), userId: job.userId, workflow: job.workflow, inputs: [], onEvent: () => undefined }).then((result) => {
          t.true(result.ok, `${job.label}: ${JSON.stringify(!result.ok && result.error)}`);
          finished.push(job.label);
        }),
      );
    }
  }
  await Promise.all(runs);
  return finished;
}

test('a slot reserved for a job is the one its run uses; while it is held, another job waits for it', async (t) => {
  const engine = await oneServer(t, { costs: { nodeMs: 50 } }, 'fair');
  const ask = (userId: string) => ({ jobId: randomUUID(), userId, workflow: image(7), signal: new AbortController().signal });
  const slot = await engine.reserve(ask('alice'));
  t.truthy(slot);
  let second = false;
  const next = engine.reserve(ask('bob')).then((held) => {
    second = true;
    return held;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.false(second, 'the only slot is held');
  const run = engine.run({ runId: randomUUID(), userId: 'alice', slot: slot!, workflow: image(7), inputs: [], onEvent: () => undefined });
  const outcome = await Promise.race([run, new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000))]);
  t.like(outcome, { ok: true }, 'the run did not wait for a slot of its own');
  if (outcome === 'still running') slot!.release();
  const held = await next;
  t.truthy(held, 'the slot went to the waiting job after the run');
  held!.release();
  await run;
});

test('a job that gives up while the dispatch is handing it a slot gives the slot back', async (t) => {
  const servers = [await startComfyProtocolServer(), await startComfyProtocolServer()];
  const engine = new ComfyEngine({ urls: servers.map((s) => s.url), timeoutMs: 20_000, jobsPerServer: 1, unavailableWaitMs: 5_000, catalogueRefreshMs: 0 });
  t.teardown(async () => {
    await engine.close();
    for (const server of servers) await server.close();
  });
  await engine.check();
  const controller = new AbortController();
  const pending = engine.pool.acquire(controller.signal, image(1), 'alice');
  // Two free servers: the dispatch first asks both for their queue; the job gives up meanwhile.
  setImmediate(() => controller.abort());
  t.is(await pending, null);
  t.deepEqual(engine.pool.report().map((s) => s.inFlight), [0, 0]);
});

const burst = (): Job[][] => [
  [1, 2, 3, 4, 5].map((n) => ({ label: `a${n}`, userId: 'alice', workflow: image(n) })),
  [{ label: 'b1', userId: 'bob', workflow: image(100) }],
];

test('fair: a burst of one user does not starve another: the other user’s job runs next, not after the burst', async (t) => {
  const engine = await oneServer(t, { costs: { nodeMs: 120 } }, 'fair');
  t.deepEqual(await finishOrder(t, engine, burst()), ['a1', 'b1', 'a2', 'a3', 'a4', 'a5']);
});

test('shortest-queue: jobs run in arrival order, the burst first', async (t) => {
  const engine = await oneServer(t, { costs: { nodeMs: 120 } }, 'shortest-queue');
  t.deepEqual(await finishOrder(t, engine, burst()), ['a1', 'a2', 'a3', 'a4', 'a5', 'b1']);
});

const switching = (): Job[][] => [
  [
    { label: 'x1', userId: 'alice', workflow: image(1, 'x.safetensors') },
    { label: 'y1', userId: 'alice', workflow: image(2, 'y.safetensors') },
    { label: 'x2', userId: 'alice', workflow: image(3, 'x.safetensors') },
    { label: 'y2', userId: 'alice', workflow: image(4, 'y.safetensors') },
  ],
];
const MODELS = { checkpoints: ['x.safetensors', 'y.safetensors'] };

test('fair: a server takes the waiting job whose model it has loaded first (two model loads instead of four)', async (t) => {
  const engine = await oneServer(t, { models: MODELS, costs: { modelLoadMs: 200, nodeMs: 30 } }, 'fair');
  t.deepEqual(await finishOrder(t, engine, switching()), ['x1', 'x2', 'y1', 'y2']);
});

test('shortest-queue: the model is switched for every job', async (t) => {
  const engine = await oneServer(t, { models: MODELS, costs: { modelLoadMs: 200, nodeMs: 30 } }, 'shortest-queue');
  t.deepEqual(await finishOrder(t, engine, switching()), ['x1', 'y1', 'x2', 'y2']);
});

const passedOver = (): Job[][] => [
  [
    { label: 'x1', userId: 'alice', workflow: image(1, 'x.safetensors') },
    { label: 'y1', userId: 'alice', workflow: image(2, 'y.safetensors') },
    ...[2, 3, 4, 5, 6].map((n) => ({ label: `x${n}`, userId: 'alice', workflow: image(n + 10, 'x.safetensors') })),
  ],
];

test('fair: a job passed over for loaded models runs once it has been passed over for COMFYUI_AFFINITY_WAIT_MS', async (t) => {
  const engine = await oneServer(t, { models: MODELS, costs: { nodeMs: 200 } }, 'fair', 600);
  const order = await finishOrder(t, engine, passedOver());
  // Each job takes 400 ms or more: y1 is passed over when x2 starts, and taken at the second or third slot after that.
  t.true(order.indexOf('y1') >= 2 && order.indexOf('y1') <= 3, order.join(', '));
});

test('fair: with a long bound the job waits behind every job whose model is loaded', async (t) => {
  const engine = await oneServer(t, { models: MODELS, costs: { nodeMs: 60 } }, 'fair', 60_000);
  t.deepEqual(await finishOrder(t, engine, passedOver()), ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'y1']);
});
