import { randomUUID } from 'node:crypto';
import { totalmem } from 'node:os';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import test, { type ExecutionContext } from 'ava';
import { DATABASES } from '../support/databases.ts';
import { freePort, startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
const ADMIN = 'metrics-admin@example.com';
const db = DATABASES[0] ?? 'sqlite';

/** One sample of Prometheus' text format: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format prom-client writes (comments skipped, label values unescaped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name!] = value!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with exactly these labels; 0 when there is none (a counter not yet incremented). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = samples.filter((sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${wanted}`);
  return found[0]?.value ?? 0;
}

async function scrape(url: string, token: string | null = TOKEN): Promise<{ status: number; contentType: string; text: string; samples: Sample[] }> {
  const response = await fetch(url, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, samples: response.status === 200 ? parse(text) : [] };
}

/** Scrapes until `done` holds (a worker observes a run's timings just after the job's end commits), then once more for the assertions. */
async function scrapeWhen(url: string, done: (samples: Sample[]) => boolean): Promise<Sample[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { samples } = await scrape(url);
    if (done(samples) || Date.now() > deadline) return samples;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An active text-to-image template of `cost`; `failing` makes its run fail in the engine (ImageBatch of mismatched images). */
async function createTemplate(admin: TestClient, cost: number, failing: boolean): Promise<string> {
  const tag = randomUUID().slice(0, 8);
  const image = failing
    ? {
        '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
        '2': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } },
        '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
        '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
        '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: `fail-${tag}` } },
      }
    : {
        '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0x00ff00 } },
        '5': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: `ok-${tag}` } },
      };
  const workflow = { ...image, '6': { class_type: 'PrimitiveString', inputs: { value: 'hello' } }, '7': { class_type: 'PreviewAny', inputs: { source: ['6', 0] } } };
  const created = await admin.post('/workflow-templates', { name: `Metrics ${tag}`, category: 'text-to-image', workflow, cost, outputType: 'image' });
  if (created.status !== 201) throw new Error(`template create: ${created.status} ${JSON.stringify(created.body)}`);
  const mapped = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, { prompt: { preset: 'prompt', node_id: '6', input_name: 'value', required: true } });
  if (mapped.status !== 200) throw new Error(`template map: ${mapped.status} ${JSON.stringify(mapped.body)}`);
  const published = await admin.post(`/templates/${created.body.id}/publish`, {});
  if (published.status !== 200) throw new Error(`template publish: ${published.status} ${JSON.stringify(published.body)}`);
  return created.body.id;
}

/** Polls the job until it ends; returns its status and how many GET /generate/:id requests that took. */
async function waitForEnd(client: TestClient, jobId: string): Promise<{ status: string; polls: number }> {
  const deadline = Date.now() + 60_000;
  for (let polls = 1; ; polls++) {
    const job = await client.get(`/generate/${jobId}`);
    if (job.status !== 200) throw new Error(`job: ${job.status} ${JSON.stringify(job.body)}`);
    if (['succeeded', 'failed', 'cancelled'].includes(job.body.status)) return { status: job.body.status, polls };
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function start(t: ExecutionContext, env: Record<string, string>): Promise<TestApp> {
  const app = await startTestApp(db, env);
  t.teardown(() => app.close());
  return app;
}

test.serial('GET /metrics with METRICS_TOKEN: 401 without or with a wrong token; a job end to end moves each counter by its exact amount', async (t) => {
  const app = await start(t, { METRICS_TOKEN: TOKEN, ADMIN_EMAILS: ADMIN });
  const url = `${app.baseUrl}/metrics`;

  for (const token of [null, 'wrong-token-0123456789abcdef', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
    const refused = await fetch(url, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
    t.is(refused.status, 401, `token ${token}`);
    t.is(refused.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    t.deepEqual(await refused.json(), { statusCode: 401, error: 'Unauthorized', message: 'Metrics need Authorization: Bearer <METRICS_TOKEN>' });
  }
  t.is((await fetch(url, { headers: { authorization: TOKEN } })).status, 401, 'the token without the Bearer scheme');

  const admin = app.client();
  await admin.signUp({ email: ADMIN });
  const okTemplate = await createTemplate(admin, 7, false);
  const failTemplate = await createTemplate(admin, 3, true);
  const user = app.client();
  await user.signUp();

  const before = await scrape(url);
  t.is(before.status, 200);
  t.is(before.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  const was = before.samples;

  const submitted = await user.post('/generate', { templateId: okTemplate, parameters: { prompt: 'green' } });
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  const ok = await waitForEnd(user, submitted.body.id);
  t.is(ok.status, 'succeeded');
  t.is((await user.get('/no-such-route')).status, 404);
  // Refused by validation: the error unwinds out of the API router, and the route is still named by its pattern.
  t.is((await user.post('/generate', { parameters: 'not an object' })).status, 400);

  const ended = (samples: Sample[]) =>
    valueOf(samples, 'mediagen_job_upload_seconds_count') === valueOf(was, 'mediagen_job_upload_seconds_count') + 1 &&
    valueOf(samples, 'mediagen_queue_waiting_messages', { task_type: 'generation' }) === 0;
  const after = await scrapeWhen(url, ended);
  const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(was, name, labels);

  t.is(delta('mediagen_http_requests_total', { method: 'POST', route: '/api/v1/generate', status: '202' }), 1);
  t.is(delta('mediagen_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/generate', status: '202' }), 1);
  t.is(delta('mediagen_http_requests_total', { method: 'GET', route: '/api/v1/generate/:id', status: '200' }), ok.polls);
  t.is(delta('mediagen_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
  t.is(delta('mediagen_http_requests_total', { method: 'POST', route: '/api/v1/generate', status: '400' }), 1);
  t.false(after.some((sample) => sample.labels['route']?.includes(submitted.body.id)), 'no raw URL as a route label');
  t.is(delta('mediagen_jobs_submitted_total', { template: okTemplate }), 1);
  t.is(delta('mediagen_jobs_started_total', { template: okTemplate }), 1);
  t.is(delta('mediagen_jobs_ended_total', { template: okTemplate, outcome: 'succeeded' }), 1);
  t.is(delta('mediagen_coins_charged_total', { reason: 'image_generation' }), 7);
  t.is(delta('mediagen_coins_refunded_total', { reason: 'job_failed' }), 0);
  for (const histogram of ['mediagen_job_queue_wait_seconds', 'mediagen_job_run_seconds', 'mediagen_job_upload_seconds']) {
    t.is(delta(`${histogram}_count`), 1, histogram);
  }
  t.is(valueOf(after, 'mediagen_queue_waiting_messages', { task_type: 'generation' }), 0);
  t.is(valueOf(after, 'mediagen_queue_waiting_messages', { task_type: 'publish' }), 0);
  t.is(valueOf(after, 'mediagen_queue_oldest_waiting_seconds', { task_type: 'generation' }), 0);
  t.is(valueOf(after, 'mediagen_queue_dead_letters', { task_type: 'generation' }), 0);
  t.is(valueOf(after, 'mediagen_engine_server_up', { server: 'builtin' }), 1);
  t.is(valueOf(after, 'mediagen_engine_server_running_jobs', { server: 'builtin' }), 0);
  t.true(after.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds'), 'event-loop lag');
  t.true(after.some((sample) => sample.name === 'process_cpu_user_seconds_total'), 'default process metrics');

  // A job that fails in the engine: charged, then refunded in full.
  const failing = await user.post('/generate', { templateId: failTemplate, parameters: { prompt: 'broken' } });
  t.is(failing.status, 202, JSON.stringify(failing.body));
  t.is((await waitForEnd(user, failing.body.id)).status, 'failed');
  const last = await scrapeWhen(url, (samples) => valueOf(samples, 'mediagen_job_run_seconds_count') === valueOf(was, 'mediagen_job_run_seconds_count') + 2);
  const total = (name: string, labels: Record<string, string> = {}) => valueOf(last, name, labels) - valueOf(was, name, labels);
  t.is(total('mediagen_jobs_ended_total', { template: failTemplate, outcome: 'failed' }), 1);
  t.is(total('mediagen_jobs_ended_total', { template: failTemplate, outcome: 'succeeded' }), 0);
  t.is(total('mediagen_coins_charged_total', { reason: 'image_generation' }), 7 + 3);
  t.is(total('mediagen_coins_refunded_total', { reason: 'job_failed' }), 3);
  t.is(total('mediagen_job_run_seconds_count'), 2);
  t.is(total('mediagen_job_upload_seconds_count'), 1, 'a failed run stores nothing');
  t.is(total('mediagen_http_requests_total', { method: 'POST', route: '/api/v1/generate', status: '202' }), 2);

  const document = await user.get('/openapi.json');
  t.deepEqual(document.body.paths['/metrics'].servers, [{ url: '/' }]);
  t.deepEqual(document.body.paths['/metrics'].get.security, [{ metricsToken: [] }]);
});

test.serial('without METRICS_TOKEN or METRICS_PORT there is no /metrics (404) and the document does not list it', async (t) => {
  const app = await start(t, {});
  const response = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  t.is(response.status, 404);
  t.is(((await response.json()) as { statusCode: number }).statusCode, 404);
  t.is((await app.client().get('/openapi.json')).body.paths['/metrics'], undefined);
});

test.serial('METRICS_PORT: a worker-only process is scraped on its own listener (token required there when set), nothing else is served', async (t) => {
  const port = await freePort();
  const worker = await start(t, { ROLES: 'worker', METRICS_PORT: String(port), METRICS_TOKEN: TOKEN });
  t.is(worker.app.server, null, 'a worker has no API server');
  const url = `http://127.0.0.1:${port}/metrics`;
  t.is((await scrape(url, null)).status, 401);
  t.is((await scrape(url, 'wrong-token-0123456789abcdef')).status, 401);
  const scraped = await scrape(url);
  t.is(scraped.status, 200);
  t.is(valueOf(scraped.samples, 'mediagen_engine_server_up', { server: 'builtin' }), 1);
  t.is(valueOf(scraped.samples, 'mediagen_queue_waiting_messages', { task_type: 'generation' }), 0);
  t.false(scraped.samples.some((sample) => sample.name === 'mediagen_http_requests_total'), 'no HTTP requests in a worker');
  t.true(scraped.text.includes('# TYPE mediagen_jobs_ended_total counter'));
  const other = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  t.is(other.status, 404);

  // A message the worker gives up on (its job does not exist) goes to the dead letters, counted once.
  await resolve(worker.app.container, TOKENS.Queue).publish({ taskType: 'generation', environment: 'local', body: { jobId: randomUUID() } });
  const dead = await scrapeWhen(url, (samples) => valueOf(samples, 'mediagen_queue_dead_lettered_total', { task_type: 'generation' }) >= 1);
  t.is(valueOf(dead, 'mediagen_queue_dead_lettered_total', { task_type: 'generation' }), 1);
  t.is(valueOf(dead, 'mediagen_queue_dead_letters', { task_type: 'generation' }), 1);
  t.is(valueOf(dead, 'mediagen_queue_waiting_messages', { task_type: 'generation' }), 0);
});

test.serial('METRICS_PORT without a token: an api process serves the listener openly and still has no /metrics on its API port', async (t) => {
  const port = await freePort();
  const app = await start(t, { ROLES: 'api', METRICS_PORT: String(port) });
  t.is((await fetch(`${app.baseUrl}/metrics`)).status, 404);
  await app.client().get('/health');
  const scraped = await scrape(`http://127.0.0.1:${port}/metrics`, null);
  t.is(scraped.status, 200);
  t.is(valueOf(scraped.samples, 'mediagen_http_requests_total', { method: 'GET', route: '/api/v1/health', status: '200' }), 1);
  t.false(scraped.samples.some((sample) => sample.name === 'mediagen_engine_server_up'), 'the engine is the worker role\'s');
});

test.serial('ENGINE_DRIVER=comfyui: one series per server by its position, up or down, with the VRAM its /system_stats reports', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const gone = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  await start(t, { ROLES: 'worker', ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: `${server.url},${gone}`, COMFYUI_TIMEOUT_MS: '1000', METRICS_PORT: String(port) });
  const { status, samples } = await scrape(`http://127.0.0.1:${port}/metrics`, null);
  t.is(status, 200);
  t.is(valueOf(samples, 'mediagen_engine_server_up', { server: '1' }), 1);
  t.is(valueOf(samples, 'mediagen_engine_server_up', { server: '2' }), 0);
  t.is(valueOf(samples, 'mediagen_engine_server_running_jobs', { server: '1' }), 0);
  // The protocol stand-in reports the machine's memory as one CPU device.
  t.is(valueOf(samples, 'mediagen_engine_server_vram_total_bytes', { server: '1' }), totalmem());
  const free = valueOf(samples, 'mediagen_engine_server_vram_free_bytes', { server: '1' });
  t.true(free > 0 && free <= totalmem(), `free ${free}`);
  t.false(samples.some((sample) => sample.name === 'mediagen_engine_server_vram_total_bytes' && sample.labels['server'] === '2'), 'no VRAM for a server that does not answer');
  t.false(samples.some((sample) => Object.values(sample.labels).some((value) => value.includes('127.0.0.1'))), 'no server address in a label');
});
