/**
 * Guards of the HTTP routes and use cases that the area suites leave without an entry of their own (audit
 * `backend-audit`): the refusals of the social routes (unknown platform, unknown output, the callback's state
 * cookie and failure page), of the API key routes, of the test-run routes (404, 429 with Retry-After), of the
 * template lookups and deletion, and of the job queries (an id in capitals, a bad page). Through HTTP, on every database.
 *
 * The app runs the api role only (no worker): a test run stays queued, so MAX_ACTIVE_JOBS_PER_USER=1 is reached
 * by one of them.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { SOCIAL_ENV } from '../support/social-platforms.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

const ADMIN = 'backend-audit-admin@example.com';

const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 48, height: 32, batch_size: 1, color: 0x00ff00 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'audit' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});
const parameterMap = () => ({ prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true } });

interface World {
  app: TestApp;
  admin: TestClient;
  user: TestClient;
}

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<World> | null = null;
  test.after.always(async () => {
    if (started) await (await started).app.close();
  });
  const world = () =>
    (started ??= (async () => {
      const app = await startTestApp(db, { ...SOCIAL_ENV, ROLES: 'api', ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false', MAX_ACTIVE_JOBS_PER_USER: '1' });
      const admin = app.client();
      await admin.signUp({ email: ADMIN });
      const user = app.client();
      await user.signUp();
      return { app, admin, user };
    })());

  const draft = async (admin: TestClient) => {
    const created = await admin.post('/workflow-templates', { name: `Audit ${randomUUID()}`, category: 'text-to-image', workflow: workflow(), cost: 7, outputType: 'image' });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    const mapped = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, parameterMap());
    if (mapped.status !== 200 && mapped.status !== 201) throw new Error(`map: ${mapped.status} ${JSON.stringify(mapped.body)}`);
    return mapped.body as { id: string };
  };

  // --- social routes ---

  test.serial(title('GET /connect/{unknown platform} answers 404 naming the platforms, and sets no state cookie'), async (t) => {
    const { app } = await world();
    const client = app.client();
    await client.signUp();
    const response = await client.get('/connect/myspace');
    t.is(response.status, 404);
    t.is(response.body.message, 'No social platform named "myspace" (supported: YOUTUBE, TIKTOK)');
    t.false(client.cookies.has('connect_state'));
  });

  test.serial(title('the callback with a state other than the cookie sends the browser to the failure page, uncached, and clears the state cookie'), async (t) => {
    const { app } = await world();
    const client = app.client();
    client.cookies.set('connect_state', 'state-of-this-browser');
    const response = await client.get('/connect/youtube/callback?state=another-state&code=c');
    t.is(response.status, 302);
    t.is(response.headers.get('location'), `${app.app.config.publicUrl}/connect/failure.html?platform=YOUTUBE&error=invalid_state`);
    t.is(response.headers.get('cache-control'), 'no-store');
    const cleared = response.headers.getSetCookie().find((cookie) => cookie.startsWith('connect_state='));
    t.truthy(cleared, 'the state cookie is cleared');
    t.regex(cleared!, /Expires=Thu, 01 Jan 1970/i);
    t.regex(cleared!, /Path=\/api(;|$)/, 'cleared on the path it was set on, or the browser keeps it');
    t.false(client.cookies.has('connect_state'));
  });

  test.serial(title('the callback with a state (cookie and query alike) that was never issued fails as invalid_state'), async (t) => {
    const { app } = await world();
    const client = app.client();
    client.cookies.set('connect_state', 'never-issued-state');
    const response = await client.get('/connect/youtube/callback?state=never-issued-state&code=c');
    t.is(response.status, 302);
    t.is(response.headers.get('location'), `${app.app.config.publicUrl}/connect/failure.html?platform=YOUTUBE&error=invalid_state`);
  });

  test.serial(title('POST /disconnect/{unknown platform} answers 404'), async (t) => {
    const { user } = await world();
    const response = await user.post('/disconnect/myspace');
    t.is(response.status, 404);
    t.is(response.body.message, 'No social platform named "myspace" (supported: YOUTUBE, TIKTOK)');
  });

  test.serial(title('publishing, or listing the publications of, an unknown output answers 404'), async (t) => {
    const { user } = await world();
    const id = randomUUID();
    const publish = await user.post(`/my-outputs/${id}/publish`, { platforms: ['YOUTUBE'] });
    t.is(publish.status, 404);
    t.is(publish.body.message, 'No such output');
    const publications = await user.get(`/my-outputs/${id}/publications`);
    t.is(publications.status, 404);
    t.is(publications.body.message, 'No such output');
  });

  // --- API key routes ---

  test.serial(title('a user asking for an admin-scoped key gets 403 and no key'), async (t) => {
    const { app } = await world();
    const client = app.client();
    await client.signUp();
    const response = await client.post('/api/v1/api-keys', { name: 'mine', scopes: ['admin'] });
    t.is(response.status, 403);
    t.is(response.body.key, undefined);
    t.deepEqual((await client.get('/api/v1/api-keys')).body, []);
  });

  test.serial(title('revoking an unknown API key, or one twice, answers 404'), async (t) => {
    const { app } = await world();
    const client = app.client();
    await client.signUp();
    const unknown = await client.delete(`/api/v1/api-keys/${randomUUID()}`);
    t.is(unknown.status, 404);
    t.is(unknown.body.message, 'No such API key');
    const created = await client.post('/api/v1/api-keys', { name: 'once', scopes: ['generate'] });
    t.is(created.status, 201);
    t.is((await client.delete(`/api/v1/api-keys/${created.body.id}`)).status, 204);
    const again = await client.delete(`/api/v1/api-keys/${created.body.id}`);
    t.is(again.status, 404);
    t.is(again.body.message, 'No such API key');
  });

  // --- templates ---

  test.serial(title('GET and DELETE of an unknown template answer 404; a deleted template is gone and cannot be deleted again'), async (t) => {
    const { admin } = await world();
    const unknown = randomUUID();
    const got = await admin.get(`/workflow-templates/${unknown}`);
    t.is(got.status, 404);
    t.is(got.body.message, 'Workflow template not found');
    const deletedUnknown = await admin.delete(`/workflow-templates/${unknown}`);
    t.is(deletedUnknown.status, 404);
    t.is(deletedUnknown.body.message, 'Workflow template not found');
    const template = await draft(admin);
    t.is((await admin.get(`/workflow-templates/${template.id}`)).status, 200);
    t.is((await admin.delete(`/workflow-templates/${template.id}`)).status, 204);
    t.is((await admin.get(`/workflow-templates/${template.id}`)).status, 404);
    const twice = await admin.delete(`/workflow-templates/${template.id}`);
    t.is(twice.status, 404);
    t.is(twice.body.message, 'Workflow template not found');
  });

  test.serial(title('with SEED_TEMPLATES=false no ready template is installed: the catalogue is empty'), async (t) => {
    const { user } = await world();
    const catalogue = await user.get('/templates');
    t.is(catalogue.status, 200);
    t.deepEqual(catalogue.body, []);
  });

  // --- test runs and job queries ---

  test.serial(title('test runs of an unknown template answer 404 (start and list)'), async (t) => {
    const { admin } = await world();
    const id = randomUUID();
    const start = await admin.post(`/admin/templates/${id}/test-runs`, { parameters: { prompt: 'x' } });
    t.is(start.status, 404);
    t.is(start.body.message, 'No such template');
    const list = await admin.get(`/admin/templates/${id}/test-runs`);
    t.is(list.status, 404);
    t.is(list.body.message, 'No such template');
  });

  test.serial(title('a queued test run is found by its id in capitals; a second one past MAX_ACTIVE_JOBS_PER_USER answers 429 with Retry-After'), async (t) => {
    const { admin } = await world();
    const template = await draft(admin);
    const first = await admin.post(`/admin/templates/${template.id}/test-runs`, { parameters: { prompt: 'one' } });
    t.is(first.status, 202, JSON.stringify(first.body));
    const found = await admin.get(`/generate/${String(first.body.id).toUpperCase()}`);
    t.is(found.status, 200);
    t.is(found.body.id, first.body.id);
    t.is((await admin.get('/generate/not-a-job-id')).status, 404);
    const second = await admin.post(`/admin/templates/${template.id}/test-runs`, { parameters: { prompt: 'two' } });
    t.is(second.status, 429);
    t.is(second.headers.get('retry-after'), '10');
    t.regex(second.body.message, /You have 1 jobs queued or running/);
  });

  test.serial(title('GET /generate with a page that is not a number answers 400'), async (t) => {
    const { user } = await world();
    const response = await user.get('/generate?page=abc');
    t.is(response.status, 400);
  });
}

for (const db of DATABASES) suite(db);

// The social feature without any platform credentials (nor TOKEN_ENCRYPTION_KEY): the app starts, connect answers 503.
test('without social credentials the app starts; connecting answers 503 and nothing is connected', async (t) => {
  const app = await startTestApp(DATABASES[0]!, { SEED_TEMPLATES: 'false' });
  t.teardown(() => app.close());
  const client = app.client();
  await client.signUp();
  const connect = await client.get('/connect/youtube');
  t.is(connect.status, 503);
  t.is(connect.body.message, 'YouTube is not configured on this server');
  t.deepEqual((await client.get('/connections')).body, []);
});

// With SECURE_COOKIES the state cookie must be Secure and SameSite=None, still HttpOnly, /api and ten minutes.
test('with SECURE_COOKIES the connect state cookie is Secure, SameSite=None, HttpOnly, scoped to /api, for ten minutes', async (t) => {
  const app = await startTestApp(DATABASES[0]!, { ...SOCIAL_ENV, SEED_TEMPLATES: 'false', SECURE_COOKIES: 'true' });
  t.teardown(() => app.close());
  const client = app.client();
  await client.signUp();
  const started = await client.get('/connect/youtube');
  t.is(started.status, 302);
  const cookie = started.headers.getSetCookie().find((header) => header.startsWith('connect_state='));
  t.truthy(cookie);
  const [, ...attributes] = cookie!.split(';').map((part) => part.trim());
  t.deepEqual(attributes.filter((attribute) => !attribute.startsWith('Expires=')).sort(), ['HttpOnly', 'Max-Age=600', 'Path=/api', 'SameSite=None', 'Secure']);
});

// A process without the worker role has no engine: its metrics carry no engine server gauges (ADR 029).
test('an api-only process scraped with METRICS_TOKEN shows its HTTP metrics and no engine server gauges', async (t) => {
  const token = 'backend-audit-metrics-token-0123456789';
  const app = await startTestApp(DATABASES[0]!, { ROLES: 'api', SEED_TEMPLATES: 'false', METRICS_TOKEN: token });
  t.teardown(() => app.close());
  const scraped = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  t.is(scraped.status, 200);
  const text = await scraped.text();
  t.regex(text, /mediagen_http_requests_total/);
  t.false(text.includes('mediagen_engine_server'), 'no engine gauges in an api-only process');
});
