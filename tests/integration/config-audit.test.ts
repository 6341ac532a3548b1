import test from 'ava';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

/**
 * Guard audit of the outputs routes (who may see, link and delete an output; signed links never cached), the public
 * features route, and a diagnostics round trip that fails (502, not a crash), over the real application.
 */

const db = DATABASES[0]!;
const ADMIN = 'admin@config-audit.test';

let app: TestApp;
let alice: TestClient;
let bob: TestClient;
let outputId: string;

test.before(async () => {
  app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, API_KEY_RATE_LIMIT_PER_MINUTE: '2' });
  alice = app.client();
  await alice.signUp();
  bob = app.client();
  await bob.signUp();
  const catalogue = await alice.get('/templates');
  const image = catalogue.body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await alice.post('/generate', { templateId: image.id, parameters: { prompt: 'x', width: 64, height: 64, color: 0x00ff00 } });
  if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = await alice.get(`/generate/${submitted.body.id}`);
    if (job.body.status === 'succeeded') break;
    if (job.body.status === 'failed' || Date.now() > deadline) throw new Error(`job: ${JSON.stringify(job.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const history = await alice.get('/my-outputs');
  outputId = history.body.items[0].id;
});

test.after.always(async () => {
  await app?.close();
});

test.serial('outputs: a stranger gets 401 on every outputs route', async (t) => {
  const stranger = app.client();
  for (const [method, path] of [
    ['GET', '/my-outputs'],
    ['GET', `/my-outputs/${outputId}/view-url`],
    ['GET', `/my-outputs/${outputId}/download-url`],
    ['DELETE', `/my-outputs/${outputId}`],
  ] as const) {
    const res = await stranger.request(method, path);
    t.is(res.status, 401, `${method} ${path}`);
    t.is(res.body.statusCode, 401);
  }
});

test.serial("outputs: another user's output is a 404 for its links and its deletion, and stays", async (t) => {
  t.is((await bob.get('/my-outputs')).body.total, 0);
  for (const kind of ['view', 'download']) {
    const res = await bob.get(`/my-outputs/${outputId}/${kind}-url`);
    t.is(res.status, 404, kind);
    t.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'statusCode'], kind);
  }
  t.is((await bob.delete(`/my-outputs/${outputId}`)).status, 404);
  t.is((await alice.get('/my-outputs')).body.total, 1, "Bob's delete left Alice's output");
  t.is((await alice.get(`/my-outputs/00000000-0000-4000-8000-000000000000/view-url`)).status, 404, 'an unknown id is a 404 too');
});

test.serial('outputs: the signed links are never cached, each under its own field', async (t) => {
  const view = await alice.get(`/my-outputs/${outputId}/view-url`);
  t.is(view.status, 200);
  t.deepEqual(Object.keys(view.body), ['viewUrl']);
  t.is(view.headers.get('cache-control'), 'no-store');
  t.is((await fetch(view.body.viewUrl)).status, 200);
  const download = await alice.get(`/my-outputs/${outputId}/download-url`);
  t.is(download.status, 200);
  t.deepEqual(Object.keys(download.body), ['downloadUrl']);
  t.is(download.headers.get('cache-control'), 'no-store');
  t.regex((await fetch(download.body.downloadUrl)).headers.get('content-disposition') ?? '', /^attachment/);
});

test.serial('outputs: a page out of range is a 400', async (t) => {
  const res = await alice.get('/my-outputs?page=0');
  t.is(res.status, 400);
});

test.serial('outputs: the owner deletes an output (204), then it is gone (404)', async (t) => {
  t.is((await alice.delete(`/my-outputs/${outputId}`)).status, 204);
  t.is((await alice.get(`/my-outputs/${outputId}/view-url`)).status, 404);
  t.is((await alice.delete(`/my-outputs/${outputId}`)).status, 404);
  t.is((await alice.get('/my-outputs')).body.total, 0);
});

test.serial('features: read without a session', async (t) => {
  const res = await app.client().get('/features');
  t.is(res.status, 200);
  t.deepEqual(res.body, { oidcProviders: [], socialPlatforms: [], chat: false, passwordResetByMail: false, emailChange: false });
});

test.serial('coins: a deduction body is checked field by field at the HTTP edge', async (t) => {
  const refused = async (body: Record<string, unknown>) => {
    const res = await alice.post('/coin/deduct', body);
    t.is(res.status, 400, JSON.stringify(body));
    return res.body.details;
  };
  t.deepEqual(await refused({ reason: 'image_generation' }), [{ field: 'amount', message: 'is required' }]);
  t.deepEqual(await refused({ amount: 1 }), [{ field: 'reason', message: 'is required' }]);
  t.deepEqual(await refused({ amount: 1, reason: 'admin_adjustment' }), [{ field: 'reason', message: 'must be one of image_generation, video_generation' }]);
  t.deepEqual(await refused({ amount: 1, reason: 'signup_bonus' }), [{ field: 'reason', message: 'must be one of image_generation, video_generation' }]);
  t.deepEqual(await refused({ amount: 1, reason: 'image_generation', relatedEntityId: 'r'.repeat(129) }), [{ field: 'relatedEntityId', message: 'must be a string of 1 to 128 characters' }]);
  const before = (await alice.get('/auth/profile')).body.coinBalance;
  t.is((await alice.post('/coin/deduct', { amount: 1, reason: 'image_generation', relatedEntityId: 'r'.repeat(128) })).status, 200);
  t.is((await alice.get('/auth/profile')).body.coinBalance, before - 1);
});

test.serial('diagnostics: only an administrator reaches them; max and the task type are checked', async (t) => {
  const admin = app.client();
  await admin.signUp({ email: ADMIN });
  for (const [method, path] of [['GET', '/test/sqs-peek-messages'], ['POST', '/test/sqs-queue-stack-test'], ['POST', '/test/storage'], ['POST', '/test/cache']] as const) {
    t.is((await alice.request(method, path, method === 'POST' ? {} : undefined)).status, 403, path);
  }
  t.is((await admin.get('/test/sqs-peek-messages?max=100')).status, 200);
  const tooMany = await admin.get('/test/sqs-peek-messages?max=101');
  t.is(tooMany.status, 400);
  t.deepEqual(tooMany.body.details, [{ field: 'max', message: 'must be an integer from 1 to 100' }]);
  const generation = await admin.post('/test/sqs-queue-stack-test', { attributes: { TaskType: 'generation' }, body: { jobId: 'x' } });
  t.is(generation.status, 400);
  t.is(generation.body.details[0].field, 'attributes.TaskType');
});

test.serial('api keys: API_KEY_RATE_LIMIT_PER_MINUTE (2 here) is what a key gets, then 429', async (t) => {
  const minted = await bob.post('/api/v1/api-keys', { name: 'busy', scopes: ['generate'] });
  t.is(minted.status, 201, JSON.stringify(minted.body));
  const keyed = app.client();
  keyed.bearer = minted.body.key;
  t.deepEqual([(await keyed.get('/generate')).status, (await keyed.get('/generate')).status, (await keyed.get('/generate')).status], [200, 200, 429]);
});

test('diagnostics: a storage round trip that fails is a 502 naming the step, without the cause', async (t) => {
  t.timeout(180_000); // the S3 client retries its calls before it gives up
  const broken = await startTestApp(db, {
    ADMIN_EMAILS: ADMIN,
    STORAGE_DRIVER: 's3',
    S3_BUCKET: 'nowhere',
    S3_ENDPOINT: 'http://127.0.0.1:9',
    AWS_ACCESS_KEY_ID: 'key',
    AWS_SECRET_ACCESS_KEY: 'secret',
  });
  t.teardown(() => broken.close());
  const admin = broken.client();
  await admin.signUp({ email: ADMIN });
  const res = await admin.post('/test/storage');
  t.is(res.status, 502);
  t.deepEqual(res.body, { statusCode: 502, error: 'Bad Gateway', message: 'The storage put/get/delete round trip failed', ...(res.body.requestId ? { requestId: res.body.requestId } : {}) });
  t.false(JSON.stringify(res.body).includes('127.0.0.1'));
});
