/**
 * The admin console's API (ADR 032) through the real application, on SQLite and MariaDB: every user's jobs and the
 * administrator's cancel (the owner's rules and refund, audit-logged), the queue, its dead letters and their redrive
 * and discard (audit-logged), and that a redriven message of a job that already ended neither runs it again nor
 * charges or refunds twice.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { freePort } from '../support/test-app.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

const ADMIN = 'admin@console.test';
const ENV = { ADMIN_EMAILS: ADMIN, SIGNUP_BONUS_COINS: '100', ALLOW_RAW_WORKFLOWS: 'user,admin', RAW_WORKFLOW_COST: '5' };

const smallWorkflow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 0x00ff00 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'small' } },
};

/** Every route of the console, with a method and a path a non-admin must not pass. */
const ROUTES: [string, string][] = [
  ['GET', '/admin/jobs'],
  ['POST', `/admin/jobs/${randomUUID()}/cancel`],
  ['GET', '/admin/queue'],
  ['GET', '/admin/dead-letters'],
  ['POST', '/admin/dead-letters/some-id/redrive'],
  ['DELETE', '/admin/dead-letters/some-id'],
  ['GET', '/admin/templates/stats'],
  ['GET', '/admin/fleet'],
];

function assertError(t: ExecutionContext, res: TestResponse, status: number): void {
  t.is(res.status, status, JSON.stringify(res.body));
  t.is(res.body.statusCode, status);
  t.is(typeof res.body.message, 'string');
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const sql = (app: TestApp) => resolve(app.app.container, TOKENS.Database) as unknown as SequelizeDatabase;
/** The queue row of a job's generation message (the database queue), found by the job id in its body. */
const queueRow = async (app: TestApp, jobId: string) =>
  (await sql(app).sequelize.query('SELECT message_id AS id, status, attempts FROM queue_messages WHERE body LIKE :pattern', { replacements: { pattern: `%"jobId":"${jobId}"%` }, plain: true })) as {
    id: string;
    status: string;
    attempts: number;
  } | null;

/** Turns a job's queue message into a dead letter, as if it had gone dead after its job ended (a worker that died at the wrong time). */
const makeDead = (app: TestApp, messageId: string) =>
  sql(app).sequelize.query("UPDATE queue_messages SET status = 'dead', claim_token = NULL, last_error = 'worker lost' WHERE message_id = :messageId", { replacements: { messageId } });

/** A job as the owner sees it, without its outputs' signed URLs (signed anew, with a later expiry, on every read). */
const stable = (job: { outputs: { viewUrl: string }[] }) => ({ ...job, outputs: job.outputs.map(({ viewUrl: _signed, ...output }) => output) });

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  // No worker: jobs stay queued, and dead letters are made by a consumer of the test's own.
  let apiOnly: Promise<TestApp> | null = null;
  const app = () => (apiOnly ??= startTestApp(db, { ...ENV, ROLES: 'api' }));
  let full: Promise<TestApp> | null = null;
  const fullApp = () => (full ??= startTestApp(db, ENV));
  const admins = new Map<Promise<TestApp>, Promise<TestClient>>();
  const adminOf = (which: Promise<TestApp>) => {
    if (!admins.has(which)) admins.set(which, which.then(async (a) => {
      const client = a.client();
      await client.signUp({ email: ADMIN });
      return client;
    }));
    return admins.get(which)!;
  };
  const userOn = async (which: Promise<TestApp>) => {
    const client = (await which).client();
    return { client, me: await client.signUp() };
  };
  test.after.always(async () => {
    if (apiOnly) await (await apiOnly).close();
    if (full) await (await full).close();
  });

  test(title('every console route answers 401 anonymous and 403 to a non-admin'), async (t) => {
    const anonymous = (await app()).client();
    const { client } = await userOn(app());
    for (const [method, path] of ROUTES) {
      assertError(t, await anonymous.request(method, path), 401);
      assertError(t, await client.request(method, path), 403);
    }
  });

  test(title("GET /admin/jobs lists every user's queued jobs with their email; the admin cancels one with the owner's refund, audit-logged; again is 409"), async (t) => {
    const admin = await adminOf(app());
    const { client, me } = await userOn(app());
    const submitted = await client.post('/generate', { workflow: smallWorkflow });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const jobId = submitted.body.id as string;
    t.is((await client.get('/auth/profile')).body.coinBalance, 95);

    const listed = await admin.get('/admin/jobs?status=queued&limit=100');
    t.is(listed.status, 200, JSON.stringify(listed.body));
    const row = (listed.body.items as { id: string }[]).find((item) => item.id === jobId);
    t.like(row, { id: jobId, status: 'queued', userId: me.id, userEmail: me.email, paidCoins: 5 });
    t.true((listed.body.items as { status: string }[]).every((item) => item.status === 'queued'));
    t.false(((await admin.get('/admin/jobs?status=succeeded,failed&limit=100')).body.items as { id: string }[]).some((item) => item.id === jobId));

    const cancelled = await admin.post(`/admin/jobs/${jobId}/cancel`);
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    t.like(cancelled.body, { id: jobId, status: 'cancelled', refundedCoins: 5 });
    t.is((await client.get('/auth/profile')).body.coinBalance, 100, 'refunded');
    t.like((await client.get(`/generate/${jobId}`)).body, { status: 'cancelled' });
    const refunds = ((await client.get('/coin/transactions?limit=100')).body.items as { reason: string; relatedEntityId: string }[]).filter((r) => r.reason === 'generation_refund');
    t.deepEqual(refunds.map((r) => r.relatedEntityId), [jobId]);

    const again = await admin.post(`/admin/jobs/${jobId}/cancel`);
    assertError(t, again, 409);
    assertError(t, await client.post(`/generate/${jobId}/cancel`), 409);
    t.is((await client.get('/auth/profile')).body.coinBalance, 100, 'refunded once');
    assertError(t, await admin.post(`/admin/jobs/${randomUUID()}/cancel`), 404);
    assertError(t, await admin.post('/admin/jobs/not-a-uuid/cancel'), 404);

    const audit = (await admin.get('/admin/audit?limit=100')).body.items as { action: string; targetUserId: string; details: Record<string, unknown> }[];
    t.deepEqual(audit.filter((entry) => entry.action === 'job.cancel' && entry.details.jobId === jobId).map((e) => [e.targetUserId, e.details.refunded]), [[me.id, 5]]);
  });

  test(title('GET /admin/jobs: bad status, page or limit get 400 with details'), async (t) => {
    const admin = await adminOf(app());
    for (const query of ['status=queued,done', 'status=', 'limit=0', 'limit=101', 'page=0']) {
      const res = await admin.get(`/admin/jobs?${query}`);
      if (query === 'status=') {
        t.is(res.status, 200, 'an empty status means the default');
        continue;
      }
      assertError(t, res, 400);
      t.true(Array.isArray(res.body.details), query);
    }
  });

  test(title("GET /admin/templates/stats: a template's jobs of the window, failure rate and p50/p95 run time, computed by the database"), async (t) => {
    const a = await app();
    const admin = await adminOf(app());
    const { client } = await userOn(app());
    const tag = randomUUID().slice(0, 8);
    const created = await admin.post('/workflow-templates', { name: `Stats ${tag}`, category: 'text-to-image', workflow: { ...smallWorkflow, '3': { class_type: 'PrimitiveString', inputs: { value: 'x' } } }, cost: 1, outputType: 'image' });
    t.is(created.status, 201, JSON.stringify(created.body));
    const templateId = created.body.id as string;
    t.is((await admin.put(`/workflow-templates/${templateId}/parameter-map`, { prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true } })).status, 200);
    t.is((await admin.post(`/templates/${templateId}/publish`, {})).status, 200);
    const jobs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await client.post('/generate', { templateId, parameters: { prompt: `p${i}` } });
      t.is(res.status, 202, JSON.stringify(res.body));
      jobs.push(res.body.id);
    }
    // Endings as a worker would have written them, with run times of 1 s, 3 s and 2 s for the successes.
    const end = (jobId: string, status: string, runMs: number) => {
      const started = new Date(Date.now() - 60_000);
      return sql(a).sequelize.query('UPDATE generation_jobs SET status = :status, started_at = :started, finished_at = :finished WHERE id = :jobId', {
        replacements: { status, started, finished: new Date(started.getTime() + runMs), jobId },
      });
    };
    await end(jobs[0]!, 'succeeded', 1000);
    await end(jobs[1]!, 'succeeded', 3000);
    await end(jobs[2]!, 'succeeded', 2000);
    await end(jobs[3]!, 'failed', 500);
    t.is((await admin.post(`/admin/jobs/${jobs[4]}/cancel`)).status, 200);

    const stats = await admin.get('/admin/templates/stats?hours=1');
    t.is(stats.status, 200, JSON.stringify(stats.body));
    t.is(stats.body.hours, 1);
    t.deepEqual(
      (stats.body.templates as { templateId: string }[]).find((row) => row.templateId === templateId),
      { templateId, name: `Stats ${tag}`, jobs: 5, succeeded: 3, failed: 1, cancelled: 1, failureRate: 0.25, p50RunMs: 2000, p95RunMs: 3000 },
    );
    t.true(Math.abs(Date.parse(stats.body.since) - (Date.now() - 3600_000)) < 60_000);
    for (const hours of ['0', '2161', 'x', '1.5']) assertError(t, await admin.get(`/admin/templates/stats?hours=${hours}`), 400);
    const byDefault = await admin.get('/admin/templates/stats');
    t.is(byDefault.body.hours, 24, 'the last 24 hours by default');
    t.is((await admin.get('/admin/templates/stats?hours=2160')).body.hours, 2160, 'up to 90 days');
  });

  test(title('GET /admin/fleet with the builtin engine: one builtin entry, and the jobs queued and running'), async (t) => {
    const admin = await adminOf(app());
    const { client } = await userOn(app());
    await client.post('/generate', { workflow: smallWorkflow });
    const fleet = await admin.get('/admin/fleet');
    t.is(fleet.status, 200, JSON.stringify(fleet.body));
    t.deepEqual(fleet.body.servers, [{ server: 1, name: 'builtin', healthy: true, error: null, running: null, waiting: null, version: null, devices: [], models: {} }]);
    t.true(fleet.body.jobs.queued >= 1, 'no worker here: the job waits');
    t.is(fleet.body.jobs.running, 0);
  });

  test.serial(title('GET /admin/queue shows waiting messages with their job ids; dead letters are listed, redriven and discarded once each, audit-logged'), async (t) => {
    const a = await app();
    const admin = await adminOf(app());
    const { client, me } = await userOn(app());
    const jobs: string[] = [];
    for (let i = 0; i < 2; i++) jobs.push((await client.post('/generate', { workflow: smallWorkflow })).body.id as string);
    const ids = await Promise.all(jobs.map(async (jobId) => (await queueRow(a, jobId))!.id));

    const queue = await admin.get('/admin/queue?limit=100');
    t.is(queue.status, 200, JSON.stringify(queue.body));
    const mine = (queue.body.messages as { jobId: string }[]).filter((m) => jobs.includes(m.jobId));
    t.deepEqual(mine.map((m) => m.jobId), jobs, 'oldest first');
    t.like(mine[0], { id: ids[0], taskType: 'generation', environment: 'local', userId: me.id, reason: null });
    t.true(queue.body.waiting.generation >= 2);
    t.true(queue.body.complete);
    const small = await admin.get('/admin/queue?limit=1');
    t.deepEqual([small.body.messages.length, small.body.complete], [1, false]);
    assertError(t, await admin.get('/admin/queue?limit=0'), 400);
    // Pins INSPECT_MAX: on RabbitMQ and SQS every peeked message counts as a delivery, so a larger window is refused.
    assertError(t, await admin.get('/admin/queue?limit=101'), 400);
    assertError(t, await admin.get('/admin/dead-letters?limit=101'), 400);
    assertError(t, await admin.get('/admin/dead-letters?limit=abc'), 400);

    // A consumer of the test's own gives both up (the worker role is off here).
    const port = resolve(a.app.container, TOKENS.Queue);
    const given = new Set<string>();
    const consumer = await port.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 2, maxAttempts: 3, visibilitySeconds: 30 }, async (message) => {
      if (!ids.includes(message.id)) return { action: 'retry', delaySeconds: 30 };
      given.add(message.id);
      return { action: 'dead', reason: `engine refused ${(message.body as { jobId: string }).jobId}` };
    });
    await until('both dead', async () => given.size === 2 && ((await admin.get('/admin/dead-letters?limit=100')).body.items as { id: string }[]).filter((m) => ids.includes(m.id)).length === 2);
    await consumer.stop();

    const dead = ((await admin.get('/admin/dead-letters?limit=100')).body.items as { id: string }[]).filter((m) => ids.includes(m.id));
    t.like(dead.find((m) => m.id === ids[0]), { taskType: 'generation', jobId: jobs[0], userId: me.id, reason: `engine refused ${jobs[0]}` });
    t.true((dead[0] as unknown as { summary: string }).summary.startsWith('{"jobId":'));

    const redriven = await admin.post(`/admin/dead-letters/${ids[0]}/redrive`);
    t.is(redriven.status, 200, JSON.stringify(redriven.body));
    t.deepEqual(redriven.body, { id: ids[0] });
    assertError(t, await admin.post(`/admin/dead-letters/${ids[0]}/redrive`), 404);
    t.like(await queueRow(a, jobs[0]!), { status: 'ready', attempts: 0 });
    t.true(((await admin.get('/admin/queue?limit=100')).body.messages as { id: string }[]).some((m) => m.id === ids[0]), 'back on the queue');

    const discarded = await admin.delete(`/admin/dead-letters/${ids[1]}`);
    t.is(discarded.status, 204);
    assertError(t, await admin.delete(`/admin/dead-letters/${ids[1]}`), 404);
    assertError(t, await admin.post(`/admin/dead-letters/${ids[1]}/redrive`), 404);
    assertError(t, await admin.delete(`/admin/dead-letters/${'x'.repeat(129)}`), 404);
    t.false(((await admin.get('/admin/dead-letters?limit=100')).body.items as { id: string }[]).some((m) => ids.includes(m.id)));
    t.false(((await admin.get('/admin/queue?limit=100')).body.messages as { id: string }[]).some((m) => m.id === ids[1]));

    const audit = (await admin.get('/admin/audit?limit=100')).body.items as { action: string; targetUserId: string; details: Record<string, unknown> }[];
    const queueEntries = audit.filter((entry) => entry.action.startsWith('queue.') && ids.includes(entry.details.messageId as string));
    t.deepEqual(
      queueEntries.map((e) => [e.action, e.details.messageId, e.details.jobId, e.targetUserId, e.details.reason]).sort(),
      [
        ['queue.discard', ids[1], jobs[1], me.id, `engine refused ${jobs[1]}`],
        ['queue.redrive', ids[0], jobs[0], me.id, `engine refused ${jobs[0]}`],
      ],
    );
  });

  test.serial(title('a redriven message of a job that already ended (succeeded, or cancelled by an admin while running) runs nothing and moves no coins'), async (t) => {
    const a = await fullApp();
    const admin = await adminOf(fullApp());
    const { client } = await userOn(fullApp());
    const done = (await client.post('/generate', { workflow: smallWorkflow })).body.id as string;
    await until('the job succeeded', async () => (await client.get(`/generate/${done}`)).body.status === 'succeeded');

    // About 3 s of blur: long enough to be seen running and cancelled by the admin.
    const slowWorkflow = {
      '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 8, color: 0x808080 } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'slow' } },
    };
    const slow = (await client.post('/generate', { workflow: slowWorkflow })).body.id as string;
    await until('the slow job running, in the admin list', async () =>
      ((await admin.get('/admin/jobs?status=running&limit=100')).body.items as { id: string }[]).some((item) => item.id === slow));
    const cancel = await admin.post(`/admin/jobs/${slow}/cancel`);
    t.is(cancel.status, 200, JSON.stringify(cancel.body));
    t.like(cancel.body, { status: 'cancelled', refundedCoins: 5 });
    await until('the cancelled run let go of its message', async () => (await queueRow(a, slow))?.status === 'done');

    const before = {
      balance: (await client.get('/auth/profile')).body.coinBalance as number,
      ledger: (await client.get('/coin/transactions?limit=100')).body.total as number,
      outputs: (await client.get('/my-outputs?limit=100')).body.total as number,
      done: stable((await client.get(`/generate/${done}`)).body),
      slow: stable((await client.get(`/generate/${slow}`)).body),
    };
    t.is(before.balance, 95, 'paid 5 twice, refunded 5 once');

    for (const jobId of [done, slow]) {
      const { id } = (await queueRow(a, jobId))!;
      await makeDead(a, id);
      const redriven = await admin.post(`/admin/dead-letters/${id}/redrive`);
      t.is(redriven.status, 200, JSON.stringify(redriven.body));
    }
    for (const jobId of [done, slow]) await until(`the worker settled the message of ${jobId}`, async () => (await queueRow(a, jobId))?.status === 'done');

    t.is((await client.get('/auth/profile')).body.coinBalance, before.balance);
    t.is((await client.get('/coin/transactions?limit=100')).body.total, before.ledger, 'no charge, no refund');
    t.is((await client.get('/my-outputs?limit=100')).body.total, before.outputs, 'no new output');
    t.deepEqual(stable((await client.get(`/generate/${done}`)).body), before.done);
    t.deepEqual(stable((await client.get(`/generate/${slow}`)).body), before.slow);
  });
}

for (const db of DATABASES) suite(db);

test('GET /admin/fleet with ComfyUI: each server of COMFYUI_URLS by its place, its queue, VRAM and models; one that does not answer is unhealthy, its address hidden', async (t) => {
  const comfy = await startComfyProtocolServer();
  t.teardown(() => comfy.close());
  const deadPort = await freePort();
  const app = await startTestApp('sqlite', { ...ENV, ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: `${comfy.url},http://127.0.0.1:${deadPort}`, ROLES: 'api' });
  t.teardown(() => app.close());
  const admin = app.client();
  await admin.signUp({ email: ADMIN });
  const fleet = await admin.get('/admin/fleet');
  t.is(fleet.status, 200, JSON.stringify(fleet.body));
  const [up, down] = fleet.body.servers;
  t.like(up, { server: 1, name: 'server 1', healthy: true, error: null, running: 0, waiting: 0, models: {} });
  t.is(typeof up.version, 'string');
  t.deepEqual(up.devices.map((d: { name: string }) => d.name), ['cpu']);
  t.true(up.devices[0].vramTotalMiB > 0);
  t.like(down, { server: 2, name: 'server 2', healthy: false, running: null, waiting: null, version: null, devices: [], models: {} });
  t.is(typeof down.error, 'string');
  t.false(JSON.stringify(fleet.body).includes(String(deadPort)), 'no server address in the answer');
  t.false(JSON.stringify(fleet.body).includes(String(comfy.port)), 'no server address in the answer');
});
