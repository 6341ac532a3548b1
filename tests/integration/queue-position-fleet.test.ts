/**
 * Queue position and ETA on a ComfyUI fleet whose servers hold different models (ADR 037, amended), through the real
 * application (api role only: every job stays queued) and two protocol servers read over HTTP: a job counts only the
 * queued jobs that can run on one of its servers, and shares those servers' slots; its run estimate is its template's
 * median on those servers. Worked out by hand.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import test from 'ava';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { colorMap, imageWorkflow } from '../support/generation-harness.ts';
import { pastSuccess, reposOf, schedulingApp } from '../support/scheduling-app.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

/** An active template whose workflow loads `checkpoint` (only a server that has it can run it). */
async function templateLoading(app: TestApp, checkpoint: string): Promise<string> {
  const id = randomUUID();
  const at = new Date();
  const workflow = { ...imageWorkflow(), '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } } };
  const created = await reposOf(app).templates.create({ id, name: `loads ${checkpoint} ${id}`, description: null, category: 'text-to-image', workflow, parameterMap: colorMap(), cost: 1, outputType: 'image', isActive: true, version: 1, publishedAt: at, createdAt: at, updatedAt: at });
  if (!created) throw new Error('template not created');
  return id;
}

/** The app (api role only) on two protocol servers, server 1 with checkpoint a, server 2 with b, one job each at a time. */
async function fleetApp(t: Parameters<typeof schedulingApp>[0], db: TestDatabase) {
  const withA = await startComfyProtocolServer({ models: { checkpoints: ['a.safetensors'] } });
  const withB = await startComfyProtocolServer({ models: { checkpoints: ['b.safetensors'] } });
  t.teardown(async () => {
    await withA.close();
    await withB.close();
  });
  return schedulingApp(t, db, { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: `${withA.url},${withB.url}`, COMFYUI_JOBS_PER_SERVER: '1' });
}

const estimateOf = async (client: TestClient, jobId: string) => {
  const { status, body } = await client.get(`/generate/${jobId}`);
  if (status !== 200) throw new Error(`GET job: ${status}`);
  return [body.position, body.etaSeconds];
};

for (const db of DATABASES) {
  test.serial(`[${db}] two servers with different checkpoints: a job counts only the jobs that compete for its servers`, async (t) => {
    const { app, user, userId } = await fleetApp(t, db);
    const others = [app.client(), app.client()];
    for (const other of others) await other.signUp();
    const a = await templateLoading(app, 'a.safetensors');
    const b = await templateLoading(app, 'b.safetensors');
    const past = Date.now() - 3600_000;
    await pastSuccess(app, userId, 10_000, new Date(past), a);
    await pastSuccess(app, userId, 4_000, new Date(past + 60_000), b);

    const submit = async (client: TestClient, templateId: string) => {
      const res = await client.post('/generate', { templateId, parameters: { color: 1 } });
      if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
      await delay(5);
      return res.body.id as string;
    };
    // One job per user, in this order: the queue order is the arrival order on either queue driver.
    const a1 = await submit(user, a);
    const b1 = await submit(others[0]!, b);
    const a2 = await submit(others[1]!, a);

    // a1: nothing ahead, 10 s. b1: a1 runs only on server 1, b1 only on server 2: nothing ahead, 4 s.
    // a2: behind a1 on server 1's one slot: 10 / 1 + 10 = 20 s. (Counting every job over both slots would say
    // b1 1 ahead, 10 / 2 + 4 = 9 s; a2 2 ahead, 14 / 2 + 10 = 17 s.)
    t.deepEqual(await estimateOf(user, a1), [0, 10]);
    t.deepEqual(await estimateOf(others[0]!, b1), [0, 4]);
    t.deepEqual(await estimateOf(others[1]!, a2), [1, 20]);
    const listed = (await others[1]!.get('/generate?limit=10')).body.items as { id: string; position: number; etaSeconds: number }[];
    t.deepEqual(listed.map((job) => [job.id, job.position, job.etaSeconds]), [[a2, 1, 20]]);
  });
}

/** An active template that lets its users choose the checkpoint: a (server 1 only) or b (server 2 only). */
async function templateChoosing(app: TestApp): Promise<string> {
  const id = randomUUID();
  const at = new Date();
  const workflow = { ...imageWorkflow(), '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } } };
  const parameterMap = { ...colorMap(), model: { key: 'model', type: 'enum', node_id: '5', input_name: 'ckpt_name', options: ['a.safetensors', 'b.safetensors'], default: 'a.safetensors' } } as ReturnType<typeof colorMap>;
  const created = await reposOf(app).templates.create({ id, name: `chooses a checkpoint ${id}`, description: null, category: 'text-to-image', workflow, parameterMap, cost: 1, outputType: 'image', isActive: true, version: 1, publishedAt: at, createdAt: at, updatedAt: at });
  if (!created) throw new Error('template not created');
  return id;
}

for (const db of DATABASES) {
  test.serial(`[${db}] one template, two checkpoints on two servers: a job counts only the jobs that chose a model on its server`, async (t) => {
    const { app, user, userId } = await fleetApp(t, db);
    const others = [app.client(), app.client()];
    for (const other of others) await other.signUp();
    const template = await templateChoosing(app);
    const past = Date.now() - 3600_000;
    await pastSuccess(app, userId, 10_000, new Date(past), template, 1);
    await pastSuccess(app, userId, 10_000, new Date(past + 60_000), template, 2);
    const submit = async (client: TestClient, model: string) => {
      const res = await client.post('/generate', { templateId: template, parameters: { color: 1, model } });
      if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
      await delay(5);
      return res.body.id as string;
    };
    const a1 = await submit(user, 'a.safetensors');
    const b1 = await submit(others[0]!, 'b.safetensors');
    const a2 = await submit(others[1]!, 'a.safetensors');
    // a1 and b1 each have their server to themselves: 0 ahead, 10 s. a2 waits for a1 on server 1: 1 ahead, 20 s.
    // (By the template alone, which no server can run with both checkpoints: every job ahead over both slots, b1 1
    // ahead, 10 / 2 + 10 = 15 s; a2 2 ahead.)
    t.deepEqual(await estimateOf(user, a1), [0, 10]);
    t.deepEqual(await estimateOf(others[0]!, b1), [0, 10]);
    t.deepEqual(await estimateOf(others[1]!, a2), [1, 20]);
    t.is((await reposOf(app).jobs.findById(b1))!.fitChoices, JSON.stringify({ model: 'b.safetensors' }), 'the choice is kept with the job');
  });
}

for (const db of DATABASES) {
  test.serial(`[${db}] a template's run estimate is its median on the servers it can run on, not over the fleet`, async (t) => {
    const { app, user, userId } = await fleetApp(t, db);
    const a = await templateLoading(app, 'a.safetensors');
    const past = Date.now() - 3600_000;
    // Model a ran on server 2 once (slowly, 60 s, three times) and on server 1 (6 s, twice); only server 1 has it now.
    for (let i = 0; i < 3; i++) await pastSuccess(app, userId, 60_000, new Date(past + i * 1000), a, 2);
    for (let i = 3; i < 5; i++) await pastSuccess(app, userId, 6_000, new Date(past + i * 1000), a, 1);
    const submitted = await user.post('/generate', { templateId: a, parameters: { color: 1 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    // Its median on server 1: 6 s. (Over every server, 6, 6, 60, 60, 60: 60 s.)
    t.deepEqual(await estimateOf(user, submitted.body.id), [0, 6]);
  });
}

for (const db of DATABASES) {
  test.serial(`[${db}] a queued job waits for the running job that holds its server, not for one on another server`, async (t) => {
    const { app, user, userId } = await fleetApp(t, db);
    const other = app.client();
    await other.signUp();
    const a = await templateLoading(app, 'a.safetensors');
    const b = await templateLoading(app, 'b.safetensors');
    const past = Date.now() - 3600_000;
    await pastSuccess(app, userId, 10_000, new Date(past), a, 1);
    await pastSuccess(app, userId, 4_000, new Date(past + 1000), b, 2);
    // A job of template a running on server 1 for 4 s (10 s estimate: 6 s left), as a worker would have left it.
    const { jobs } = reposOf(app);
    const runningId = randomUUID();
    const startedAt = new Date(Date.now() - 4_000);
    t.true(await jobs.create({ id: runningId, userId, templateId: a, templateVersion: null, status: 'queued', progress: { value: 0, max: 1 }, statusText: '', workflow: imageWorkflow(), usedParameters: {}, imageRefs: [], outputType: 'image', paidCoins: 0, testRun: false, startDeadline: null, queueTurn: 1, fitChoices: '', createdAt: startedAt }));
    const runId = randomUUID();
    t.true(await jobs.transition(runningId, { to: 'running', runId, changes: { startedAt } }, startedAt));
    t.true(await jobs.updateRunning(runningId, runId, { engineServer: 1 }, new Date()));

    const a1 = await other.post('/generate', { templateId: a, parameters: { color: 1 } });
    const b1 = await other.post('/generate', { templateId: b, parameters: { color: 1 } });
    t.is(a1.status, 202, JSON.stringify(a1.body));
    // a1: server 1's slot frees in under 6 s, then 10 s: 16 (ceil of 16 minus the time since). b1: server 2 is free: 4.
    // (Without the running job: a1 10.)
    t.deepEqual(await estimateOf(other, a1.body.id), [0, 16]);
    t.deepEqual(await estimateOf(other, b1.body.id), [0, 4]);
  });
}
