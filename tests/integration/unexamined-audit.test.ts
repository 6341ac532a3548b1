/**
 * Guards the last audit left unexamined, through the real application (API role, no worker: jobs stay queued):
 * - the queue-depth check of both submits (POST /generate and the Comfy API v2 POST /api/v2/jobs): only queued
 *   jobs count, and a full queue is 429 (v2: `queue_full`) with Retry-After before any coin moves;
 * - the retention sweep of expired outputs, as the scheduler runs it: at most 500 per pass, never one not yet expired.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { HistoryItem } from '../../core/domain/job.ts';
import { DATABASES } from '../support/databases.ts';
import { pastSuccess, RAW_COST, reposOf, schedulingApp, submitRaw } from '../support/scheduling-app.ts';
import { TestClient } from '../support/test-client.ts';
import type { TestApp } from '../support/test-app.ts';

const balanceOf = async (user: TestClient): Promise<number> => (await user.get('/auth/profile')).body.coinBalance;

const v2Workflow = (color: number) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'audit' } },
});

async function v2Client(app: TestApp, session: TestClient): Promise<TestClient> {
  const minted = await session.post('/api/v1/api-keys', { name: 'v2 key', scopes: ['generate'] });
  if (minted.status !== 201) throw new Error(`key: ${minted.status} ${JSON.stringify(minted.body)}`);
  const client = new TestClient(app.baseUrl, '/api/v2');
  client.bearer = minted.body.key as string;
  return client;
}

const jobTotal = async (user: TestClient): Promise<number> => (await user.get('/generate')).body.total;

for (const db of DATABASES) {
  test(`[${db}] v2: a full queue is 429 queue_full with Retry-After, and no coin moves`, async (t) => {
    const { app, user } = await schedulingApp(t, db, { QUEUE_MAX_DEPTH: '1' });
    const v2 = await v2Client(app, user);
    const first = await v2.post('/jobs', { workflow: v2Workflow(1) });
    t.is(first.status, 201, JSON.stringify(first.body));
    const balance = await balanceOf(user);
    t.is(balance, 100 - RAW_COST);

    const refused = await v2.post('/jobs', { workflow: v2Workflow(2) });
    t.is(refused.status, 429, JSON.stringify(refused.body));
    t.like(refused.body, { error: { code: 'queue_full', message: 'The queue is full (1 jobs waiting); submit again later' } });
    t.is(refused.headers.get('retry-after'), '10', 'nothing learned yet: 10 s');
    t.is(await balanceOf(user), balance, 'nothing charged');
    t.is(await jobTotal(user), 1, 'no job created');

    // With an Idempotency-Key: the refusal is not kept as the key's answer; once there is room, the same key creates the job.
    const key = randomUUID();
    const keyed = await v2.post('/jobs', { workflow: v2Workflow(3) }, { 'idempotency-key': key });
    t.is(keyed.status, 429, JSON.stringify(keyed.body));
    t.like(keyed.body, { error: { code: 'queue_full' } });
    t.is((await v2.post(`/jobs/${first.body.id}/cancel`)).status, 200);
    const retried = await v2.post('/jobs', { workflow: v2Workflow(3) }, { 'idempotency-key': key });
    t.is(retried.status, 201, JSON.stringify(retried.body));
    t.is(await balanceOf(user), 100 - RAW_COST, 'the cancelled job refunded, the new one charged');
  });

  test(`[${db}] only queued jobs fill the queue: a running job does not count toward QUEUE_MAX_DEPTH`, async (t) => {
    const { app, user } = await schedulingApp(t, db, { QUEUE_MAX_DEPTH: '1' });
    const first = await submitRaw(user);
    t.is(first.status, 202);
    const jobs = reposOf(app).jobs;
    const at = new Date();
    t.truthy(await jobs.transition(first.body.id, { to: 'running', runId: randomUUID(), changes: { startedAt: at } }, at), 'the first job runs');

    const second = await submitRaw(user);
    t.is(second.status, 202, 'one running, none queued: there is room');
    const third = await submitRaw(user);
    t.is(third.status, 429, 'one queued: full');
    t.is(third.headers.get('retry-after'), '10');
    t.is(await balanceOf(user), 100 - 2 * RAW_COST);
  });

  test(`[${db}] the scheduled retention sweep deletes at most 500 expired outputs per pass, and none that has not expired`, async (t) => {
    const { app, user, userId } = await schedulingApp(t, db);
    const repos = reposOf(app);
    const storage = resolve(app.app.container, TOKENS.ObjectStorage);
    await pastSuccess(app, userId, 1_000, new Date(Date.now() - 3600_000));
    const jobId = (await user.get('/generate')).body.items[0].id as string;
    const base = Date.now() - 10 * 24 * 3600_000;
    const item = (n: number, expiresAt: Date): HistoryItem => ({
      id: randomUUID(),
      jobId,
      userId,
      templateId: null,
      storageKey: `outputs/${userId}/${jobId}/audit-${n}.png`,
      fileName: `audit-${n}.png`,
      mimeType: 'image/png',
      sizeBytes: 1,
      width: 1,
      height: 1,
      durationSeconds: null,
      usedParameters: {},
      createdAt: new Date(base - 3600_000),
      expiresAt,
    });
    // 502 expired (the oldest first) and one that expires in a day.
    const expired = Array.from({ length: 502 }, (_, n) => item(n, new Date(base + n * 1000)));
    const live = item(999, new Date(Date.now() + 24 * 3600_000));
    for (const one of [...expired, live]) t.true(await repos.history.add(one));
    for (const one of [expired[0]!, expired[501]!, live]) await storage.put(one.storageKey, Buffer.from('x'), { contentType: 'image/png' });

    const scheduler = resolve(app.app.container, TOKENS.Scheduler);
    await scheduler.runNow('output-retention-sweep');
    const left = (await repos.history.listForJob(jobId)).map((one) => one.fileName).sort();
    t.is(left.length, 3, 'one pass deletes 500');
    t.true(left.includes('audit-999.png'), 'the live output stays');
    t.is(await storage.head(expired[0]!.storageKey), null, "a deleted output's file is gone");
    t.not(await storage.head(live.storageKey), null);

    await scheduler.runNow('output-retention-sweep');
    t.deepEqual((await repos.history.listForJob(jobId)).map((one) => one.fileName), ['audit-999.png'], 'the next pass deletes the rest, never the live one');
    t.is(await storage.head(expired[501]!.storageKey), null);
    t.not(await storage.head(live.storageKey), null);
    t.is((await user.get('/my-outputs')).body.total, 1);
  });
}
