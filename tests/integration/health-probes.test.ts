import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import type { RabbitMessageQueue } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { createMariaDatabase } from '../support/databases.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { freePort, startTestApp } from '../support/test-app.ts';

// Liveness and readiness with real outages: MariaDB, RabbitMQ and a ComfyUI server behind TCP proxies that go down and up.

const portOf = (proxy: TcpProxy) => Number(new URL(proxy.url).port);

async function probe(base: string, which: 'live' | 'ready'): Promise<{ status: number; body: { status: string; checks?: Record<string, string> } }> {
  const res = await fetch(`${base}/api/v1/health/${which}`, { signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, string> } };
}

/** Polls readiness until it answers `status` (a loaded machine takes a while to notice an outage or a recovery). */
async function readyBecomes(t: ExecutionContext, base: string, status: number, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  let last = await probe(base, 'ready');
  while (last.status !== status && Date.now() < deadline) {
    await sleep(300);
    last = await probe(base, 'ready');
  }
  t.is(last.status, status, JSON.stringify(last.body));
  return last;
}

test.serial('API and worker on MariaDB and RabbitMQ: ready goes 503 while the queue, then the database, is unreachable, and back; live stays 200', async (t) => {
  const maria = await createMariaDatabase();
  const dbProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(maria.url).port || 3306) });
  const amqpProxy = await startTcpProxy({ host: '127.0.0.1', port: 5672 });
  const url = new URL(maria.url);
  url.port = String(portOf(dbProxy));
  const app = await startTestApp('sqlite', {
    DATABASE_URL: url.toString(),
    QUEUE_DRIVER: 'rabbitmq',
    AMQP_URL: `amqp://guest:guest@127.0.0.1:${portOf(amqpProxy)}`,
    AMQP_PREFIX: `health-${randomUUID().slice(0, 8)}`,
    EVENT_BUS_DRIVER: 'memory',
  });
  t.teardown(async () => {
    dbProxy.setDown(false);
    amqpProxy.setDown(false);
    // The broker is shared: this test's queues go with it.
    await (resolve(app.app.container, TOKENS.Queue) as RabbitMessageQueue).destroyTopology().catch(() => undefined);
    await app.close();
    await Promise.all([dbProxy.close(), amqpProxy.close()]);
    await maria.drop();
  });

  t.deepEqual(await probe(app.baseUrl, 'live'), { status: 200, body: { status: 'ok' } });
  t.deepEqual(await probe(app.baseUrl, 'ready'), { status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok', engine: 'ok' } } });

  amqpProxy.setDown(true);
  const noQueue = await readyBecomes(t, app.baseUrl, 503);
  t.is(noQueue.body.status, 'unready');
  t.not(noQueue.body.checks?.queue, 'ok');
  t.is(noQueue.body.checks?.database, 'ok');
  t.deepEqual(await probe(app.baseUrl, 'live'), { status: 200, body: { status: 'ok' } });
  amqpProxy.setDown(false);
  await readyBecomes(t, app.baseUrl, 200);

  dbProxy.setDown(true);
  const noDatabase = await readyBecomes(t, app.baseUrl, 503);
  t.not(noDatabase.body.checks?.database, 'ok');
  t.is(noDatabase.body.checks?.queue, 'ok');
  t.deepEqual(await probe(app.baseUrl, 'live'), { status: 200, body: { status: 'ok' } });
  dbProxy.setDown(false);
  const back = await readyBecomes(t, app.baseUrl, 200);
  t.deepEqual(back.body, { status: 'ready', checks: { database: 'ok', queue: 'ok', engine: 'ok' } });
});

test.serial('a worker-only process serves live and ready on HEALTH_PORT: ready is 503 while no ComfyUI server answers; an API-only process does not wait for the engine', async (t) => {
  const comfy = await startComfyProtocolServer();
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: comfy.port });
  const healthPort = await freePort();
  const worker = await startTestApp('sqlite', { ROLES: 'worker', HEALTH_PORT: String(healthPort), ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: proxy.url });
  t.teardown(async () => {
    proxy.setDown(false);
    await worker.close();
    await proxy.close();
    await comfy.close();
  });
  t.is(worker.app.server, null, 'no HTTP API in a worker-only process');
  const base = `http://127.0.0.1:${healthPort}`;
  t.deepEqual(await probe(base, 'live'), { status: 200, body: { status: 'ok' } });
  t.deepEqual(await probe(base, 'ready'), { status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok', engine: 'ok' } } });
  for (const path of ['/api/v1/health', '/api/v1/templates', '/metrics', '/']) {
    const res = await fetch(`${base}${path}`);
    t.is(res.status, 404, path);
    t.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: `No route for GET ${path}` });
  }

  proxy.setDown(true);
  const noEngine = await readyBecomes(t, base, 503);
  t.regex(noEngine.body.checks?.engine ?? '', /no ComfyUI server is reachable/);
  t.is(noEngine.body.checks?.database, 'ok');
  t.deepEqual(await probe(base, 'live'), { status: 200, body: { status: 'ok' } });
  proxy.setDown(false);
  await readyBecomes(t, base, 200);

  // The API role serves without the GPU servers: its readiness has no engine check.
  const api = await startTestApp('sqlite', { ROLES: 'api', ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: 'http://127.0.0.1:9' });
  t.teardown(() => api.close());
  t.deepEqual(await probe(api.baseUrl, 'ready'), { status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok' } } });
});
