/**
 * OpenTelemetry traces across the process boundary (ADR 031): a `ROLES=api` and a `ROLES=worker` process, a
 * RabbitMQ queue (or the database queue) between them, and an OTLP/HTTP receiver here that collects what their
 * exporters POST. One job must be one trace: the request's server span, the relay's publish, the worker's
 * consume, the engine run and the storage write, each the child of the one before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { ServiceProcess, WorkerProcess } from '../support/service-process.ts';
import { freePort } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const ADMIN = 'admin@tracing.test';
const workflow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 0xff0000 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'traced' } },
};

interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP trace receiver: collects the spans of every JSON body POSTed to /v1/traces. */
class Receiver {
  readonly spans: CollectedSpan[] = [];
  posts = 0;
  readonly contentTypes = new Set<string>();
  private server: Server | null = null;

  async listen(port = 0): Promise<number> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.posts += 1;
        this.contentTypes.add(String(req.headers['content-type']));
        if (req.method === 'POST' && req.url === '/v1/traces') this.collect(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, () => resolve());
    });
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private collect(body: OtlpBody): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue])),
          });
        }
      }
    }
  }
}

interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: { key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }[] }[] }[];
  }[];
}

type Ctx = { teardown(fn: () => Promise<void>): void };

/** An api process and a worker process over one SQLite file, one storage directory and the given queue. */
async function deploy(t: Ctx, env: Record<string, string>): Promise<{ api: ServiceProcess; worker: WorkerProcess }> {
  const root = mkdtempSync(path.join(tmpdir(), 'mgs-tracing-'));
  const port = await freePort();
  const shared = {
    DATABASE_URL: `sqlite:${path.join(root, 'shared.db')}`,
    STORAGE_DIR: path.join(root, 'storage'),
    JWT_SECRET: 'tracing-test-secret-long-enough-for-hs256-0000',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SEED_TEMPLATES: 'false',
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: '1',
    ADMIN_EMAILS: ADMIN,
    RAW_WORKFLOW_COST: '0',
    // Spans leave in small batches at once, not after the default 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...env,
  };
  const api = new ServiceProcess({ ...shared, ROLES: 'api', DATA_DIR: path.join(root, 'api') }, port);
  const worker = new WorkerProcess({ ...shared, ROLES: 'worker', DATA_DIR: path.join(root, 'worker') });
  t.teardown(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    rmSync(root, { recursive: true, force: true });
  });
  await api.start();
  worker.start();
  return { api, worker };
}

/** Submits the workflow and waits until the worker process has run it. */
async function runJob(api: ServiceProcess, worker: WorkerProcess): Promise<string> {
  const client = new TestClient(api.baseUrl);
  await client.signUp({ email: ADMIN });
  const submitted = await client.post('/generate', { workflow });
  if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const jobId = submitted.body.id as string;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const status = (await client.get(`/generate/${jobId}`)).body.status as string;
    if (status === 'succeeded') return jobId;
    if (status === 'failed' || worker.exitCode !== null || Date.now() > deadline) {
      throw new Error(`job ${jobId} ${status}; worker: ${worker.output.join('').slice(-2000)}`);
    }
    await sleep(100);
  }
}

async function waitForSpans(receiver: Receiver, condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; spans: ${receiver.spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
    await sleep(50);
  }
}

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

const queues = [
  { name: 'rabbitmq', env: () => ({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL, AMQP_PREFIX: `trace-${Date.now().toString(36)}` }), relayed: true },
  { name: 'db', env: () => ({ QUEUE_DRIVER: 'db' }), relayed: false },
];

for (const queue of queues) {
  test.serial(`[${queue.name} queue] one job is one trace: request → ${queue.relayed ? 'publish → ' : ''}consume → engine run and storage write, across two processes`, async (t) => {
    const receiver = new Receiver();
    const receiverPort = await receiver.listen();
    t.teardown(() => receiver.close());
    const { api, worker } = await deploy(t, { ...queue.env(), OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}` });
    const jobId = await runJob(api, worker);

    const submit = () => receiver.spans.find((s) => s.name === 'POST /api/v1/generate');
    const storageWrites = () => receiver.spans.filter((s) => s.name === 'storage put' && submit() && s.traceId === submit()!.traceId);
    const workerSpans = () => receiver.spans.filter((s) => s.service === 'media-gen-worker');
    // The consume span ends last, after the engine run and the write it contains.
    await waitForSpans(receiver, () => storageWrites().length === 1 && workerSpans().some((s) => s.name === 'process generation'), 'the worker spans');
    const server = submit()!;
    const trace = receiver.spans.filter((s) => s.traceId === server.traceId);
    t.deepEqual(workerSpans().filter((s) => s.traceId !== server.traceId).map((s) => s.name), [], 'every span of the worker (it ran this one job) is in the trace');
    t.log(trace.map((s) => `${s.service} ${s.name} ${s.spanId} <- ${s.parentSpanId || '(root)'}`).join('\n'));
    const one = (name: string) => {
      const found = trace.filter((s) => s.name === name);
      t.is(found.length, 1, `one ${name} span in the trace`);
      return found[0]!;
    };

    t.like(server, { service: 'media-gen-api', kind: SERVER, parentSpanId: '' });
    t.like(server.attributes, { 'http.route': '/api/v1/generate', 'http.request.method': 'POST', 'http.response.status_code': 202 });
    const consume = one('process generation');
    t.like(consume, { service: 'media-gen-worker', kind: CONSUMER });
    t.is(consume.attributes['messaging.outcome'], 'ack');
    if (queue.relayed) {
      const publish = one('publish generation');
      t.like(publish, { service: 'media-gen-api', kind: PRODUCER, parentSpanId: server.spanId });
      t.is(consume.parentSpanId, publish.spanId, 'the consumer span is the child of the publish span');
    } else {
      t.is(consume.parentSpanId, server.spanId, 'the consumer span is the child of the request span (the message was written in its transaction)');
    }
    const engine = one('engine run builtin');
    t.like(engine, { service: 'media-gen-worker', parentSpanId: consume.spanId });
    t.like(engine.attributes, { 'job.id': jobId, 'engine.outcome': 'succeeded' });
    const [write] = storageWrites();
    t.like(write, { service: 'media-gen-worker', parentSpanId: consume.spanId });
    t.true(String(write!.attributes['storage.key']).includes(jobId), String(write!.attributes['storage.key']));
    t.deepEqual([...receiver.contentTypes], ['application/json']);
  });
}

test.serial('[comfyui engine] the engine run holds a client span per ComfyUI HTTP call, in the job\'s trace', async (t) => {
  const comfy = await startComfyProtocolServer();
  t.teardown(() => comfy.close());
  const receiver = new Receiver();
  const receiverPort = await receiver.listen();
  t.teardown(() => receiver.close());
  const { api, worker } = await deploy(t, { QUEUE_DRIVER: 'db', ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: comfy.url, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}` });
  const jobId = await runJob(api, worker);

  const workerSpans = () => receiver.spans.filter((s) => s.service === 'media-gen-worker');
  await waitForSpans(receiver, () => workerSpans().some((s) => s.name === 'process generation'), 'the consume span');
  const server = receiver.spans.find((s) => s.name === 'POST /api/v1/generate')!;
  const trace = workerSpans().filter((s) => s.traceId === server.traceId);
  t.log(trace.map((s) => `${s.name} ${s.spanId} <- ${s.parentSpanId}`).join('\n'));
  const consume = trace.find((s) => s.name === 'process generation')!;
  t.is(consume.parentSpanId, server.spanId);
  const engine = trace.find((s) => s.name === 'engine run comfyui');
  t.like(engine, { parentSpanId: consume.spanId });
  // Before it starts, the job waits for a slot (ADR 044): the pool's first look at the server (/system_stats, /object_info) happens there.
  const slot = trace.find((s) => s.name === 'engine slot comfyui');
  t.like(slot, { parentSpanId: consume.spanId });
  t.like(slot!.attributes, { 'job.id': jobId, 'engine.slot': 'given' });
  const calls = trace.filter((s) => s.kind === CLIENT && s.name !== 'storage put');
  const names = new Set(calls.map((s) => s.name));
  t.true(names.has('POST /prompt'), [...names].join(', '));
  t.true(names.has('GET /view'), [...names].join(', '));
  // The run's calls are the engine span's, including the /view that checks each listed output is still there (ADR 034);
  // the outputs are downloaded (/view again) when they are stored, after the run.
  t.deepEqual(calls.filter((s) => s.name !== 'GET /view' && s.parentSpanId !== engine!.spanId && s.parentSpanId !== slot!.spanId).map((s) => s.name), [], 'the run\'s ComfyUI calls are children of the engine run or of the wait for its slot');
  t.deepEqual(calls.filter((s) => s.name === 'GET /view').map((s) => s.parentSpanId).sort(), [engine!.spanId, consume.spanId].sort());
  const prompt = calls.find((s) => s.name === 'POST /prompt')!;
  t.like(prompt.attributes, { 'peer.service': 'comfyui', 'server.address': '127.0.0.1', 'http.response.status_code': 200 });
});

test.serial('no OTLP endpoint configured: no span is sent, not even to the SDK default localhost:4318', async (t) => {
  const receiver = new Receiver();
  // Where an SDK started by mistake would send by default.
  await receiver.listen(4318);
  t.teardown(() => receiver.close());
  const { api, worker } = await deploy(t, { QUEUE_DRIVER: 'db' });
  await runJob(api, worker);
  // Stopped: an SDK would flush what it buffered now.
  await Promise.all([api.stop(), worker.stop()]);
  await sleep(300);
  t.is(receiver.posts, 0);
});
