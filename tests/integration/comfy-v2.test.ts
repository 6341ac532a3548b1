/**
 * The Comfy API v2 surface (ADR 040) driven by the official @comfyorg/sdk with one of our API keys, on SQLite and
 * MariaDB: a v2 job is our job (priced as a raw workflow, paid and refunded by the same rules, in the history), its
 * outputs are v2 assets whose bytes are the stored output, its event stream resumes with Last-Event-ID, and every
 * response parses with the SDK's own zod schemas.
 */
import { randomUUID } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { Workflow, type ComfyEvent } from '@comfyorg/sdk';
import { ComfyLow, schemas } from '@comfyorg/sdk/low';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { waitFor } from '../contract/fixtures.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { schedulingApp, submitRaw } from '../support/scheduling-app.ts';
import { comfyV2Callers } from '../support/comfy-v2-callers.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

const ADMINS = Array.from({ length: 8 }, (_, i) => `v2-admin-${i + 1}@example.com`);
const COST = 7;
const BONUS = 100;

/** Matches no template: a raw workflow, which only an administrator may run (ALLOW_RAW_WORKFLOWS=admin, the default). */
const tiny = (color: number) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'v2' } },
});
/** About 0.4 s of blur per frame: still running when it is cancelled. */
const slow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 12, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'slow' } },
};

async function balanceOf(client: TestClient): Promise<number> {
  const profile = await client.get('/auth/profile');
  if (profile.status !== 200) throw new Error(`profile: ${profile.status}`);
  return profile.body.coinBalance as number;
}

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  const { caller } = comfyV2Callers(db, ADMINS, { RAW_WORKFLOW_COST: String(COST), SIGNUP_BONUS_COINS: String(BONUS) });

  const storedBytes = async (a: TestApp, jobId: string) => {
    const items = await resolve(a.app.container, TOKENS.Repositories).history.listForJob(jobId);
    const storage = resolve(a.app.container, TOKENS.ObjectStorage);
    return Promise.all(items.map(async (item) => ({ id: item.id, bytes: await buffer((await storage.get(item.storageKey))!.body) })));
  };

  const errorOf = async (t: ExecutionContext, promise: Promise<unknown>) => {
    const error = (await t.throwsAsync(promise)) as { httpStatus?: number; code?: string; name?: string; message: string };
    return { status: error.httpStatus, code: error.code, name: error.name, message: error.message };
  };

  test(title('the SDK submits a workflow with a key, streams its events to success and downloads outputs whose bytes are the stored output; charged once, in the history'), async (t) => {
    const { a, session, comfy, low } = await caller();
    const before = await balanceOf(session);
    const job = await comfy.submit(new Workflow(tiny(0xff0000)));
    t.is(job.status, 'queued');
    const events: ComfyEvent[] = [];
    for await (const event of job.events()) events.push(event);
    const statuses = events.filter((e) => e.kind === 'statusChange').map((e) => (e as { status: string }).status);
    t.is(statuses.at(-1), 'succeeded', JSON.stringify(events));
    t.true(statuses.includes('running'), `a running status on the way: ${statuses.join(',')}`);
    const ready = events.filter((e) => e.kind === 'outputReady');
    t.is(ready.length, 1, 'one outputReady frame');

    await job.refresh();
    t.is(job.status, 'succeeded');
    t.is(job.outputs.length, 1);
    const [output] = job.outputs;
    t.is(output!.type, 'image');
    t.is(output!.contentType, 'image/png');
    const stored = await storedBytes(a, job.id);
    t.deepEqual(stored.map((s) => s.id), [output!.id]);
    t.deepEqual(Buffer.from(await output!.toBytes()), stored[0]!.bytes, 'the downloaded bytes are the stored output');
    t.is(Number(output!.sizeBytes), stored[0]!.bytes.length);

    // Every answer parses with the SDK's own schemas.
    const raw = await low.getJob(job.id);
    t.notThrows(() => schemas.zJob.parse(raw));
    const asset = await low.getAsset(output!.id);
    t.notThrows(() => schemas.zAsset.parse(asset));
    const workflow = await job.getWorkflow();
    t.notThrows(() => schemas.zJobWorkflowResponse.parse(workflow));
    t.deepEqual(workflow, { workflow: tiny(0xff0000), format: 'api' });
    t.like(raw, { id: job.id, status: 'succeeded', error: null, urls: { self: `/api/v2/jobs/${job.id}`, events: `/api/v2/jobs/${job.id}/events`, cancel: `/api/v2/jobs/${job.id}/cancel` } });
    t.truthy(raw.started_at && raw.completed_at);

    t.is(await balanceOf(session), before - COST, 'charged RAW_WORKFLOW_COST once');
    const history = await session.get(`/generate/${job.id}`);
    t.is(history.status, 200);
    t.like(history.body, { status: 'succeeded', paidCoins: COST });
    t.is((await session.get('/my-outputs')).body.items[0].id, output!.id, 'the output is in the history');
  });

  test(title('the same Idempotency-Key and body give the same job, charged once; the key with another body is 422 idempotency_key_reuse'), async (t) => {
    const { session, low } = await caller();
    const before = await balanceOf(session);
    const key = randomUUID();
    const first = await low.postJobs(tiny(0x00ff00), { idempotencyKey: key });
    const again = await low.postJobs(tiny(0x00ff00), { idempotencyKey: key });
    t.notThrows(() => schemas.zJob.parse(first));
    t.is(again.id, first.id);
    t.is(await balanceOf(session), before - COST, 'charged once');
    t.is((await session.get('/generate')).body.total, 1, 'one job');
    t.like(await errorOf(t, low.postJobs(tiny(0x0000ff), { idempotencyKey: key })), { status: 422, code: 'idempotency_key_reuse' });
    t.is((await session.get('/generate')).body.total, 1, 'still one job');
  });

  test(title('cancelling a running job through the SDK refunds it; cancelling it again returns it as it is'), async (t) => {
    const { session, comfy } = await caller();
    const before = await balanceOf(session);
    const job = await comfy.submit(new Workflow(slow));
    await waitFor(async () => (await job.refresh()).status === 'running', 'the job to run', 30_000);
    t.is(await balanceOf(session), before - COST);
    await job.cancel();
    t.is(job.status, 'canceled');
    await waitFor(async () => (await balanceOf(session)) === before, 'the refund', 10_000);
    t.like((await session.get(`/generate/${job.id}`)).body, { status: 'cancelled', refundedCoins: COST });
    await job.cancel();
    t.is(job.status, 'canceled');
    t.is(await balanceOf(session), before, 'refunded once');
  });

  test(title('402 insufficient_credits when the coins run out; 422 invalid_workflow for a bad workflow or a non-admin raw one; nothing charged'), async (t) => {
    const admin = await caller();
    const balance = await balanceOf(admin.session);
    const drained = await admin.session.post(`/admin/coin/deduct/${admin.user.id}`, { amount: balance - COST + 1, reason: 'admin_adjustment' });
    t.is(drained.status, 200, JSON.stringify(drained.body));
    const poor = await errorOf(t, admin.comfy.submit(new Workflow(tiny(1))));
    t.like(poor, { status: 402, code: 'insufficient_credits', name: 'InsufficientCredits' });
    t.is(await balanceOf(admin.session), COST - 1);

    const user = await caller(['generate'], true);
    const refused = await errorOf(t, user.comfy.submit(new Workflow(tiny(2))));
    t.like(refused, { status: 422, code: 'invalid_workflow', name: 'InvalidWorkflow' });
    const unknownNode = await errorOf(t, admin.comfy.submit(new Workflow({ '1': { class_type: 'NoSuchNode', inputs: {} } })));
    t.like(unknownNode, { status: 422, code: 'invalid_workflow' });
    t.is(await balanceOf(user.session), BONUS);
    t.is((await user.session.get('/generate')).body.total, 0);
  });

  test(title("another user's job and output are 404 not_found on every v2 route; a key without the generate scope is 403 forbidden"), async (t) => {
    const owner = await caller();
    const job = await owner.comfy.run(new Workflow(tiny(3)), { timeoutMs: 60_000 });
    const outputId = job.outputs[0]!.id;
    const stranger = await caller(['generate'], true);
    for (const [what, call, message] of [
      ['get', stranger.low.getJob(job.id), 'No such job'],
      ['workflow', stranger.low.getJobWorkflow(job.id), 'No such job'],
      ['events', (async () => { for await (const _ of stranger.low.getJobEvents(job.id)) break; })(), 'No such job'],
      ['cancel', stranger.low.cancelJob(job.id), 'No such job'],
      ['asset', stranger.low.getAsset(outputId), 'No such asset'],
      ['content', stranger.low.getAssetContent(outputId), 'No such asset'],
    ] as const) {
      t.like(await errorOf(t, call), { status: 404, code: 'not_found', message }, what);
    }
    const running = await owner.comfy.submit(new Workflow(slow));
    await waitFor(async () => (await running.refresh()).status === 'running', 'the job to run', 30_000);
    t.like(await errorOf(t, stranger.low.cancelJob(running.id)), { status: 404, code: 'not_found' }, 'cancel of a running job');
    t.is((await running.refresh()).status, 'running', "the stranger's cancel changed nothing");
    t.is((await running.cancel()).status, 'canceled', 'the owner may');
    const reader = await caller(['history'], true);
    t.like(await errorOf(t, reader.low.getJob(job.id)), { status: 403, code: 'forbidden' });
    t.like(await errorOf(t, reader.low.postJobs(tiny(4))), { status: 403, code: 'forbidden' });
    t.like(await errorOf(t, new ComfyLow(owner.a.baseUrl, 'mgs_not-a-key').getJob(job.id)), { status: 401, code: 'unauthorized' });
  });

  test(title('the event stream resumes with Last-Event-ID: frames carry seqs, a resume replays exactly the frames after the one named'), async (t) => {
    const { a, key, comfy } = await caller();
    const job = await comfy.run(new Workflow(tiny(5)), { timeoutMs: 60_000 });
    const read = async (lastEventId?: string) => {
      const res = await fetch(`${a.baseUrl}/api/v2/jobs/${job.id}/events`, { headers: { authorization: `Bearer ${key}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) } });
      const text = await res.text();
      const frames = text.split('\n\n').filter((f) => f.trim() !== '' && !f.startsWith(':')).map((f) => Object.fromEntries(f.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])));
      return { status: res.status, type: res.headers.get('content-type'), frames, text };
    };
    const fresh = await read();
    t.is(fresh.status, 200);
    t.regex(fresh.type ?? '', /^text\/event-stream/);
    t.deepEqual(fresh.frames, [{ event: 'status', data: JSON.stringify({ status: 'succeeded', queue_position: null }) }], 'a finished job: its status, then the end');

    const all = await read('0');
    const names = all.frames.map((f) => f.event);
    t.is(names[0], 'status');
    t.is(names.at(-1), 'status');
    t.true(names.includes('output'), names.join(','));
    t.deepEqual(all.frames.filter((f) => f.event === 'status').map((f) => JSON.parse(f.data!).status), ['queued', 'running', 'succeeded'], 'each status once, the stream ends at the terminal one');
    const ids = all.frames.map((f) => Number(f.id));
    t.true(ids.every((id, i) => Number.isInteger(id) && id > 0 && (i === 0 || id > ids[i - 1]!)), `increasing seqs: ${ids.join(',')}`);

    const cut = 1;
    const resumed = await read(String(ids[cut]));
    t.deepEqual(resumed.frames, all.frames.slice(cut + 1), 'exactly the frames after the one named');
    const bad = await fetch(`${a.baseUrl}/api/v2/jobs/${job.id}/events`, { headers: { authorization: `Bearer ${key}`, 'last-event-id': 'abc' } });
    t.is(bad.status, 400);
    t.like(await bad.json(), { error: { code: 'invalid_request' } });
  });
}

/**
 * A job that ends `expired` (its start deadline passed while it was queued, ADR 037) ends its v2 event stream with
 * that status, like any other terminal status. The app has no worker, so the job waits; the sweep expires it.
 */
for (const db of DATABASES) {
  test(`[${db}] the v2 event stream of a job that expires before it starts ends with status expired`, async (t) => {
    const { app: a, user } = await schedulingApp(t, db);
    const minted = await user.post('/api/v1/api-keys', { name: 'sdk', scopes: ['generate'] });
    t.is(minted.status, 201);
    const submitted = await submitRaw(user, { startDeadlineSeconds: 1 });
    t.is(submitted.status, 202);
    const low = new ComfyLow(a.baseUrl, minted.body.key as string);
    const frames: [string, unknown][] = [];
    const reading = (async () => {
      for await (const frame of low.getJobEvents(submitted.body.id as string, { signal: AbortSignal.timeout(20_000) })) frames.push([frame.event, frame.data.status]);
    })();
    await waitFor(async () => frames.length > 0, 'the first frame', 10_000);
    t.deepEqual(frames, [['status', 'queued']], 'open while queued');
    await delay(1100);
    await resolve(a.app.container, TOKENS.Scheduler).runNow('start-deadline-sweep');
    await reading; // the stream ends by itself (the timeout would reject it)
    t.deepEqual(frames, [['status', 'queued'], ['status', 'expired']]);
    t.like((await low.getJob(submitted.body.id as string)), { status: 'expired', started_at: null });
  });
}

/**
 * A queued v2 job's `queue_position` is the number of queued jobs ahead of it (our `position`, ADR 037): on GET, in the
 * first frame of a fresh event stream, and in a status frame each time the queue-position announcer finds it moved.
 */
for (const db of DATABASES) {
  test(`[${db}] a queued v2 job shows its queue position on GET and in its event stream, which follows it as it moves up`, async (t) => {
    const { app: a, user } = await schedulingApp(t, db);
    const minted = await user.post('/api/v1/api-keys', { name: 'sdk', scopes: ['generate'] });
    t.is(minted.status, 201);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const submitted = await submitRaw(user);
      t.is(submitted.status, 202);
      ids.push(submitted.body.id as string);
    }
    const low = new ComfyLow(a.baseUrl, minted.body.key as string);
    t.deepEqual(await Promise.all(ids.map(async (id) => (await low.getJob(id)).queue_position)), [0, 1, 2]);
    const frames: [string, unknown, unknown][] = [];
    const stop = new AbortController();
    const reading = (async () => {
      for await (const frame of low.getJobEvents(ids[2]!, { signal: stop.signal })) frames.push([frame.event, frame.data.status, frame.data.queue_position]);
    })().catch(() => undefined);
    t.teardown(() => stop.abort());
    await waitFor(async () => frames.length > 0, 'the first frame', 10_000);
    t.deepEqual(frames, [['status', 'queued', 2]], 'a fresh stream opens with the place in the queue');
    t.is((await user.post(`/generate/${ids[0]}/cancel`)).status, 200);
    await resolve(a.app.container, TOKENS.Scheduler).runNow('queue-position-announcer');
    await waitFor(async () => frames.length > 1, 'the move up', 10_000);
    t.deepEqual(frames, [['status', 'queued', 2], ['status', 'queued', 1]]);
    t.is((await low.getJob(ids[2]!)).queue_position, 1);
    t.is((await low.getJob(ids[0]!)).queue_position, null, 'a cancelled job has no place in the queue');
    stop.abort();
    await reading;
  });
}

for (const db of DATABASES) suite(db);
