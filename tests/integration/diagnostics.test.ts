import test from 'ava';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

const ADMIN = 'admin@example.com';
const apps = new Map<string, TestApp>();

for (const db of DATABASES) {
  test.before(async () => {
    apps.set(db, await startTestApp(db, { ADMIN_EMAILS: ADMIN }));
  });
  test.after.always(async () => {
    await apps.get(db)?.close();
  });
  let adminClient: Promise<TestClient> | null = null;
  const admin = () =>
    (adminClient ??= (async () => {
      const client = apps.get(db)!.client();
      await client.signUp({ email: ADMIN });
      return client;
    })());

  test(`${db}: a stacked test message shows in peek, twice, and stays on the queue (peek never consumes)`, async (t) => {
    const client = await admin();
    const published = await client.post('/test/sqs-queue-stack-test', { body: { hello: db } });
    t.is(published.status, 202, JSON.stringify(published.body));
    t.is(typeof published.body.messageId, 'string');
    const find = async () => {
      const res = await client.get('/test/sqs-peek-messages?max=100');
      t.is(res.status, 200);
      return (res.body.messages as { id: string; body: unknown; attributes: Record<string, string> }[]).find((m) => m.id === published.body.messageId);
    };
    const first = await find();
    t.deepEqual(first, { id: published.body.messageId, body: { hello: db }, attributes: { TaskType: 'diagnostic', Environment: 'local' } });
    // The worker of this app consumes the queue meanwhile; it must not take (or dead-letter) the test message.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.deepEqual(await find(), first);
  });

  test(`${db}: attributes are honoured, but never a task type a worker handles; max is checked`, async (t) => {
    const client = await admin();
    const custom = await client.post('/test/sqs-queue-stack-test', { attributes: { TaskType: 'ping', Environment: 'development' } });
    t.is(custom.status, 202);
    const peeked = await client.get('/test/sqs-peek-messages?max=100');
    t.like(peeked.body.messages.find((m: { id: string }) => m.id === custom.body.messageId), { body: { test: true }, attributes: { TaskType: 'ping', Environment: 'development' } });

    const generation = await client.post('/test/sqs-queue-stack-test', { attributes: { TaskType: 'generation' }, body: { jobId: 'x' } });
    t.is(generation.status, 400);
    t.is(generation.body.details[0].field, 'attributes.TaskType');
    const unknown = await client.post('/test/sqs-queue-stack-test', { attributes: { Colour: 'red' } });
    t.is(unknown.status, 400);
    for (const max of ['0', '101', 'ten']) {
      const res = await client.get(`/test/sqs-peek-messages?max=${max}`);
      t.is(res.status, 400, max);
      t.deepEqual(res.body.details, [{ field: 'max', message: 'must be an integer from 1 to 100' }]);
    }
  });

  test(`${db}: storage and cache round trips answer ok with a latency`, async (t) => {
    const client = await admin();
    for (const path of ['/test/storage', '/test/cache']) {
      const res = await client.post(path);
      t.is(res.status, 200, path);
      t.true(res.body.ok);
      t.true(Number.isInteger(res.body.latencyMs) && res.body.latencyMs >= 0);
    }
  });

  test(`${db}: a signed-in user who is not an administrator gets 403 on every diagnostics route, a stranger 401`, async (t) => {
    const client = apps.get(db)!.client();
    await client.signUp();
    const stranger = apps.get(db)!.client();
    for (const [method, path] of [['GET', '/test/sqs-peek-messages'], ['POST', '/test/sqs-queue-stack-test'], ['POST', '/test/storage'], ['POST', '/test/cache']] as const) {
      t.is((await client.request(method, path, method === 'POST' ? {} : undefined)).status, 403, path);
      t.is((await stranger.request(method, path, method === 'POST' ? {} : undefined)).status, 401, path);
    }
  });
}

for (const [label, env] of [
  ['ENABLE_TEST_ENDPOINTS=false', { ENABLE_TEST_ENDPOINTS: 'false' }],
  ['APP_ENV=production', { APP_ENV: 'production' }],
] as const) {
  test(`${label}: the diagnostics routes do not exist (404, even for an administrator)`, async (t) => {
    const app = await startTestApp(DATABASES[0]!, { ADMIN_EMAILS: ADMIN, ...env });
    try {
      const client = app.client();
      await client.signUp({ email: ADMIN });
      t.is((await client.get('/test/sqs-peek-messages')).status, 404);
      const res = await client.post('/test/cache');
      t.is(res.status, 404);
      t.is(res.body.statusCode, 404);
      t.is((await client.get('/openapi.json')).body.paths['/test/cache'], undefined);
    } finally {
      await app.close();
    }
  });
}

test('APP_ENV=production with ENABLE_TEST_ENDPOINTS=true: the diagnostics routes are on', async (t) => {
  const app = await startTestApp(DATABASES[0]!, { ADMIN_EMAILS: ADMIN, APP_ENV: 'production', ENABLE_TEST_ENDPOINTS: 'true' });
  try {
    const client = app.client();
    await client.signUp({ email: ADMIN });
    t.is((await client.post('/test/cache')).status, 200);
  } finally {
    await app.close();
  }
});
