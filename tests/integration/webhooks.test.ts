import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { Webhook } from 'standardwebhooks';
import { HttpWebhookSender } from '../../adapters/webhook/http-webhook-sender.ts';
import { JobLifecycle } from '../../core/use-cases/generation/job-lifecycle.service.ts';
import { DeliverWebhooks } from '../../core/use-cases/webhooks/deliver-webhooks.use-case.ts';
import { NO_JOB_METRICS } from '../../core/ports/metrics.port.ts';
import { WebhookOutbox } from '../../core/use-cases/webhooks/webhook-outbox.service.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { failingWorkflow, imageWorkflow, quietLogger } from '../support/generation-harness.ts';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/** A real receiver: records every request and answers what `answer` says for its path (204 by default). */
async function receiver(t: ExecutionContext) {
  const received: Received[] = [];
  const answers = new Map<string, () => Answer>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.get(path)?.() ?? { status: 204 };
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.teardown(() => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))));
  const port = (server.address() as AddressInfo).port;
  return { port, received, answers, at: (path: string) => received.filter((request) => request.path === path) };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

interface LogEntry {
  id: string;
  event: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  payload: { type: string; data: Record<string, unknown> };
}

const log = async (client: TestClient, jobId: string): Promise<LogEntry[]> => {
  const response = await client.get(`/generate/${jobId}/webhooks`);
  if (response.status !== 200) throw new Error(`log ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.items as LogEntry[];
};

/** Verifies the request with the Standard Webhooks library and returns its payload. */
const verified = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': request.headers['webhook-id']!,
    'webhook-timestamp': request.headers['webhook-timestamp']!,
    'webhook-signature': request.headers['webhook-signature']!,
  }) as { type: string; data: Record<string, unknown> };

const assertError = (t: ExecutionContext, response: TestResponse, status: number, fields: string[]) => {
  t.is(response.status, status, JSON.stringify(response.body));
  t.like(response.body, { statusCode: status });
  t.deepEqual((response.body.details as { field: string }[]).map((detail) => detail.field), fields);
};

const METRICS_TOKEN = 'webhook-metrics-token';

/** mediagen_webhook_deliveries_total by outcome, as scraped. */
async function webhookCounters(on: TestApp): Promise<Record<string, number>> {
  const text = await (await fetch(`${on.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const counts: Record<string, number> = { delivered: 0, retry: 0, failed: 0 };
  for (const match of text.matchAll(/^mediagen_webhook_deliveries_total\{outcome="(\w+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

const settle = (ms: number) => new Promise((done) => setTimeout(done, ms));

for (const db of DATABASES) {
  // One app with the worker for the deliveries end to end; short retry delays (3 attempts over 3 s).
  let shared: Promise<TestApp> | null = null;
  const app = (_t: ExecutionContext) => {
    shared ??= startTestApp(db, {
      ALLOW_RAW_WORKFLOWS: 'all',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_RETRY_WINDOW_SECONDS: '3',
      WEBHOOK_TIMEOUT_MS: '1500',
      METRICS_TOKEN: METRICS_TOKEN,
    });
    return shared;
  };
  test.after.always(async () => (await shared)?.close());

  const user = async (on: TestApp) => {
    const client = on.client();
    await client.signUp();
    const secret = (await client.get('/webhook-secret')).body.secret as string;
    return { client, secret };
  };

  test.serial(`[${db}] completed is delivered once, signed, for a success and for a failure; started and output when asked; the log is the owner's only`, async (t) => {
    const on = await app(t);
    const hooks = await receiver(t);
    const { client, secret } = await user(on);
    const url = (path: string) => `http://127.0.0.1:${hooks.port}${path}`;
    const ok = await client.post('/generate', { workflow: imageWorkflow(), webhook: url('/all'), webhookEvents: ['completed', 'started', 'output'] });
    t.is(ok.status, 202, JSON.stringify(ok.body));
    const failed = await client.post('/generate', { workflow: failingWorkflow(), webhook: url('/failed') });
    t.is(failed.status, 202, JSON.stringify(failed.body));

    await waitFor('three deliveries of the success', async () => hooks.at('/all').length >= 3 && hooks.at('/failed').length >= 1);
    await settle(1000);
    const all = hooks.at('/all').map((request) => verified(secret, request));
    t.deepEqual(all.map((payload) => payload.type).sort(), ['job.completed', 'job.output', 'job.started']);
    t.true(all.every((payload) => payload.data.jobId === ok.body.id));
    t.like(all.find((payload) => payload.type === 'job.completed')!.data, { status: 'succeeded' });
    t.is((all.find((payload) => payload.type === 'job.output')!.data.output as { mimeType: string }).mimeType, 'image/png');
    const fail = hooks.at('/failed').map((request) => verified(secret, request));
    t.deepEqual(fail.map((payload) => payload.type), ['job.completed'], 'only completed by default, once');
    t.like(fail[0]!.data, { jobId: failed.body.id, status: 'failed' });
    t.truthy((fail[0]!.data.error as { code: string }).code);
    // A signature made with another secret does not verify.
    t.throws(() => verified('whsec_' + Buffer.alloc(32, 1).toString('base64'), hooks.at('/failed')[0]!));

    const entries = await log(client, ok.body.id);
    t.deepEqual(entries.map((entry) => entry.event).sort(), ['completed', 'output', 'started']);
    t.true(entries.every((entry) => entry.status === 'delivered' && entry.attempts === 1 && entry.lastStatusCode === 204));
    t.deepEqual(entries.map((entry) => entry.id).sort(), hooks.at('/all').map((request) => request.headers['webhook-id']).sort(), 'each delivered once, under its webhook-id');

    const { client: bob } = await user(on);
    t.is((await bob.get(`/generate/${ok.body.id}/webhooks`)).status, 404);
    t.is((await bob.post(`/generate/${ok.body.id}/webhooks/${entries[0]!.id}/redeliver`)).status, 404);
    t.is((await client.get(`/generate/not-a-uuid/webhooks`)).status, 404);
    const [otherJobs] = await log(client, failed.body.id);
    t.is((await client.post(`/generate/${ok.body.id}/webhooks/${otherJobs!.id}/redeliver`)).status, 404, "another job's delivery id");
    t.is((await client.post(`/generate/${ok.body.id}/webhooks/not-a-uuid/redeliver`)).status, 404);
    await settle(1000);
    t.is(hooks.at('/failed').length, 1, "the other job's delivery was not sent again");
    t.like((await log(client, failed.body.id))[0], { status: 'delivered', attempts: 1 });
  });

  test.serial(`[${db}] a 500 is tried again (same webhook-id, attempts 2); a receiver always failing gives up after WEBHOOK_MAX_ATTEMPTS; redelivery sends the same id anew`, async (t) => {
    const on = await app(t);
    const hooks = await receiver(t);
    const { client, secret } = await user(on);
    const before = await webhookCounters(on);
    let flaky = 0;
    hooks.answers.set('/flaky', () => ({ status: flaky++ === 0 ? 500 : 200 }));
    let down = true;
    hooks.answers.set('/down', () => ({ status: down ? 500 : 200 }));
    const first = await client.post('/generate', { workflow: imageWorkflow(), webhook: `http://127.0.0.1:${hooks.port}/flaky` });
    const second = await client.post('/generate', { workflow: imageWorkflow(), webhook: `http://127.0.0.1:${hooks.port}/down` });
    t.is(first.status, 202);
    t.is(second.status, 202);

    const flakyLog = await waitFor('the retried delivery', async () => (await log(client, first.body.id)).find((entry) => entry.status === 'delivered'));
    t.like(flakyLog, { attempts: 2, lastStatusCode: 200, lastError: null });
    t.is(hooks.at('/flaky').length, 2);
    t.deepEqual(new Set(hooks.at('/flaky').map((request) => request.headers['webhook-id'])), new Set([flakyLog.id]));

    const gaveUp = await waitFor('the failed delivery', async () => (await log(client, second.body.id)).find((entry) => entry.status === 'failed'));
    t.like(gaveUp, { attempts: 3, lastStatusCode: 500 });
    await settle(3500);
    t.is(hooks.at('/down').length, 3, 'no attempt after the last');

    down = false;
    const lastFailed = Number(hooks.at('/down')[2]!.headers['webhook-timestamp']);
    await settle(1100);
    const redelivered = await client.post(`/generate/${second.body.id}/webhooks/${gaveUp.id}/redeliver`);
    t.is(redelivered.status, 200, JSON.stringify(redelivered.body));
    t.like(redelivered.body, { id: gaveUp.id, status: 'pending', attempts: 0 });
    const delivered = await waitFor('the redelivery', async () => (await log(client, second.body.id)).find((entry) => entry.status === 'delivered'));
    t.like(delivered, { id: gaveUp.id, attempts: 1, lastStatusCode: 200 });
    const again = hooks.at('/down')[3]!;
    t.is(again.headers['webhook-id'], gaveUp.id);
    t.true(Number(again.headers['webhook-timestamp']) > lastFailed, 'a new timestamp');
    t.like(verified(secret, again), { type: 'job.completed' });
    const after = await webhookCounters(on);
    t.deepEqual({ delivered: after.delivered! - before.delivered!, retry: after.retry! - before.retry!, failed: after.failed! - before.failed! }, { delivered: 2, retry: 3, failed: 1 });
  });

  test.serial(`[${db}] a redirect is a failed attempt and is not followed; a receiver that never answers times out while other jobs complete`, async (t) => {
    const on = await app(t);
    const hooks = await receiver(t);
    const { client } = await user(on);
    hooks.answers.set('/redirect', () => ({ status: 302, headers: { location: `http://127.0.0.1:${hooks.port}/target` } }));
    hooks.answers.set('/slow', () => 'hang');
    const redirected = await client.post('/generate', { workflow: imageWorkflow(), webhook: `http://127.0.0.1:${hooks.port}/redirect` });
    const slow = await client.post('/generate', { workflow: imageWorkflow(), webhook: `http://127.0.0.1:${hooks.port}/slow` });
    t.is(redirected.status, 202);
    t.is(slow.status, 202);
    const attempt = await waitFor('the redirect attempt', async () => (await log(client, redirected.body.id)).find((entry) => entry.attempts >= 1));
    t.is(attempt.lastStatusCode, 302);
    t.not(attempt.status, 'delivered');
    t.is(hooks.at('/target').length, 0, 'the redirect is not followed');

    await waitFor('the slow receiver called', async () => hooks.at('/slow').length >= 1);
    // While the receiver holds the delivery, generation goes on.
    const other = await client.post('/generate', { workflow: imageWorkflow(0x00ff00) });
    await waitFor('another job done', async () => (await client.get(`/generate/${other.body.id}`)).body.status === 'succeeded', 20_000);
    const timedOut = await waitFor('the timed-out attempt', async () => (await log(client, slow.body.id)).find((entry) => entry.attempts >= 1));
    t.is(timedOut.lastStatusCode, null);
    t.is(timedOut.lastError, 'no answer within 1500 ms');
    t.not(timedOut.status, 'delivered');
  });
}

for (const db of DATABASES) {
  test.serial(`[${db}] api only: bad webhooks are 400; a cancel writes its delivery with the move (none when it rolls back); a crash after the claim is sent again with the same webhook-id`, async (t) => {
    const on = await startTestApp(db, { ROLES: 'api', ALLOW_RAW_WORKFLOWS: 'all', WEBHOOK_ALLOW_HTTP_HOSTS: 'hooks.test' });
    t.teardown(() => on.close());
    const hooks = await receiver(t);
    const client = on.client();
    await client.signUp();
    const secret = (await client.get('/webhook-secret')).body.secret as string;
    const workflow = imageWorkflow();

    assertError(t, await client.post('/generate', { workflow, webhook: `http://127.0.0.1:${hooks.port}/x` }), 400, ['webhook']);
    assertError(t, await client.post('/generate', { workflow, webhook: 'https://127.0.0.1/x' }), 400, ['webhook']);
    assertError(t, await client.post('/generate', { workflow, webhook: 'https://localhost/x' }), 400, ['webhook']);
    assertError(t, await client.post('/generate', { workflow, webhook: 'https://[::1]/x' }), 400, ['webhook']);
    assertError(t, await client.post('/generate', { workflow, webhook: 'https://hooks.example.com/x', webhookEvents: ['finished'] }), 400, ['webhookEvents']);
    assertError(t, await client.post('/generate', { workflow, webhook: 'https://hooks.example.com/x', webhookEvents: [] }), 400, ['webhookEvents']);
    assertError(t, await client.post('/generate', { workflow, webhookEvents: ['completed'] }), 400, ['webhookEvents']);
    t.is((await client.get('/generate')).body.total, 0, 'nothing was created');
    t.is((await client.get('/auth/profile')).body.coinBalance, 100, 'nothing was paid');

    const url = `http://hooks.test:${hooks.port}/cancel`;
    const submitted = await client.post('/generate', { workflow, webhook: url });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const jobId = submitted.body.id as string;
    t.deepEqual(await log(client, jobId), [], 'no delivery before the job ends');

    // The move rolls back: so does its delivery.
    const { container } = on.app;
    const uow = resolve(container, TOKENS.UnitOfWork);
    const repos = resolve(container, TOKENS.Repositories);
    const clock = resolve(container, TOKENS.Clock);
    const ids = resolve(container, TOKENS.Ids);
    const lifecycle = new JobLifecycle({ ids, clock, events: resolve(container, TOKENS.UserEventLog), payment: resolve(container, TOKENS.JobPayment), webhooks: new WebhookOutbox({ ids, clock }) });
    const rolledBack = uow.run(async (tx) => {
      t.true((await lifecycle.end(tx, jobId, { to: 'cancelled' })).ended);
      t.is((await tx.webhooks.listForJob(jobId)).length, 1, 'written in the transaction');
      throw new Error('rolled back');
    });
    await t.throwsAsync(rolledBack, { message: 'rolled back' });
    t.deepEqual(await log(client, jobId), []);
    t.is((await client.get(`/generate/${jobId}`)).body.status, 'queued');

    t.is((await client.post(`/generate/${jobId}/cancel`)).status, 200);
    t.is((await client.post(`/generate/${jobId}/cancel`)).status, 409);
    t.false((await uow.run((tx) => lifecycle.end(tx, jobId, { to: 'cancelled' }))).ended, 'a late end moves nothing');
    const [pending, ...more] = await log(client, jobId);
    t.deepEqual(more, [], 'one delivery: the second cancel moved nothing');
    t.like(pending, { event: 'completed', status: 'pending', attempts: 0, payload: { type: 'job.completed', data: { jobId, status: 'cancelled' } } });

    // A worker claims it, sends it, and dies before recording: the claim expires and another worker sends it again.
    const sender = new HttpWebhookSender({ policy: { allowPrivate: true, allowCidrs: [], allowHttpHosts: ['hooks.test'] }, timeoutMs: 2000, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const secrets = async () => [secret];
    const worker = (claimer: string) =>
      new DeliverWebhooks({ deliveries: repos.webhooks, sender, signingSecrets: secrets, clock, logger: quietLogger, random: () => 0.5, budget: { maxAttempts: 3, windowSeconds: 60 }, concurrency: 4, timeoutMs: 2000, claimer, metrics: NO_JOB_METRICS });
    const now = clock.now();
    // Two workers claim at once: one wins.
    const claims = await Promise.all(['crashed', 'rival'].map((claimer) => repos.webhooks.claimDue(now, claimer, new Date(now.getTime() + 1500), 10)));
    t.deepEqual(claims.flat().map((delivery) => delivery.id), [pending!.id], 'one claim wins');
    const crashed = claims[0]!.length === 1 ? 'crashed' : 'rival';
    const claimed = claims.flat()[0];
    t.like(await sender.send({ url, id: claimed!.id, timestamp: clock.now(), body: claimed!.payload, secrets: [secret] }), { delivered: true });
    t.deepEqual(await worker('second').execute(), { sent: 0 }, 'the claim holds while it lasts');
    await settle(1600);
    t.deepEqual(await worker('second').execute(), { sent: 1 }, 'the expired claim is taken again');
    t.false(await repos.webhooks.record(claimed!.id, crashed, { status: 'failed', attempts: 1, firstAttemptAt: now, nextAttemptAt: null, lastStatusCode: null, lastError: 'late', at: now }), 'the dead worker cannot record any more');
    const sent = hooks.at('/cancel');
    t.is(sent.length, 2);
    t.deepEqual(sent.map((request) => request.headers['webhook-id']), [pending!.id, pending!.id]);
    t.like(verified(secret, sent[1]!), { type: 'job.completed', data: { jobId, status: 'cancelled' } });
    t.like((await log(client, jobId))[0], { status: 'delivered', attempts: 1, lastStatusCode: 204 });
  });
}
