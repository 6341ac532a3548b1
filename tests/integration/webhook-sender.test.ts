import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { HttpWebhookSender, type ResolvedAddress } from '../../adapters/webhook/http-webhook-sender.ts';
import type { WebhookPolicy } from '../../core/domain/webhook-address.ts';
import type { WebhookResponse } from '../../core/ports/webhook-sender.port.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real receiver on 127.0.0.1 that records what reached it and answers with `respond`. */
async function receiver(respond: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(204).end()) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

// Receivers run on 127.0.0.1: the tests allow exactly that address (and plain http to it), nothing wider.
const LOOPBACK_ALLOWED: WebhookPolicy = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'], allowHttpHosts: ['127.0.0.1', 'receiver.test'] };
const STRICT: WebhookPolicy = { allowPrivate: false, allowCidrs: [], allowHttpHosts: ['127.0.0.1', 'receiver.test'] };

/** A fixed resolver: `receiver.test` resolves to these addresses, whatever the system DNS says. */
const resolvesTo = (...addresses: string[]) => async (hostname: string): Promise<ResolvedAddress[]> => {
  if (hostname !== 'receiver.test') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** The send, or 'stalled' when it has not settled within `ms` (a loaded machine gets generous bounds). */
const within = (ms: number, sending: Promise<WebhookResponse>) =>
  Promise.race([sending, new Promise<'stalled'>((resolve) => setTimeout(() => resolve('stalled'), ms).unref())]);

const payload = (jobId = randomUUID()) => JSON.stringify({ type: 'job.completed', timestamp: new Date().toISOString(), data: { id: jobId, status: 'succeeded' } });

test('a delivery carries the Standard Webhooks headers and a signature Webhook.verify accepts', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const secret = newSecret();
  const body = payload();
  const id = `msg_${randomUUID()}`;
  const result = await new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000 }).send({ url: server.url, id, timestamp: new Date(), body, secrets: [secret] });
  t.deepEqual(result, { delivered: true, statusCode: 204 });
  t.is(server.received.length, 1);
  const [got] = server.received;
  t.is(got?.headers['webhook-id'], id);
  t.is(got?.headers['content-type'], 'application/json');
  t.is(got?.body, body);
  t.deepEqual(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>), JSON.parse(body));
  // The signature covers the body: a changed body, or another user's secret, does not verify.
  t.throws(() => new Webhook(secret).verify(got!.body.replace('succeeded', 'failed'), got!.headers as Record<string, string>));
  t.throws(() => new Webhook(newSecret()).verify(got!.body, got!.headers as Record<string, string>));
});

test('during a rotation the request carries two signatures, and a receiver holding either secret verifies it', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const [previous, current] = [newSecret(), newSecret()];
  const body = payload();
  await new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000 }).send({ url: server.url, id: `msg_${randomUUID()}`, timestamp: new Date(), body, secrets: [current, previous] });
  const got = server.received[0]!;
  t.is(String(got.headers['webhook-signature']).split(' ').length, 2);
  for (const secret of [previous, current]) t.deepEqual(new Webhook(secret).verify(got.body, got.headers as Record<string, string>), JSON.parse(body));
});

test('an answer other than 2xx is a failure with its status and the start of its body', async (t) => {
  const server = await receiver((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));
  t.teardown(server.close);
  const result = await new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000 }).send({ url: server.url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] });
  t.deepEqual(result, { delivered: false, statusCode: 500, error: 'HTTP 500: boom' });
});

test('a redirect is a failure and is not followed', async (t) => {
  const target = await receiver();
  t.teardown(target.close);
  const redirecting = await receiver((_req, res) => res.writeHead(307, { location: target.url }).end());
  t.teardown(redirecting.close);
  const result = await new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000 }).send({ url: redirecting.url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] });
  t.deepEqual(result, { delivered: false, statusCode: 307, error: `HTTP 307: redirect to ${target.url} not followed` });
  t.is(redirecting.received.length, 1);
  t.is(target.received.length, 0);
});

test('a receiver that never answers is given up after the timeout', async (t) => {
  const server = await receiver(() => undefined);
  t.teardown(server.close);
  const started = Date.now();
  const result = await within(8_000, new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 400 }).send({ url: server.url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] }));
  t.deepEqual(result, { delivered: false, statusCode: null, error: 'no answer within 400 ms' });
  t.true(Date.now() - started >= 350);
});

test('an answer that never ends is read only up to the cap', async (t) => {
  let streaming: NodeJS.Timeout | undefined;
  const server = await receiver((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    streaming = setInterval(() => res.write('x'.repeat(4096)), 5);
  });
  t.teardown(() => { clearInterval(streaming); return server.close(); });
  const result = await within(8_000, new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 30_000 }).send({ url: server.url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] }));
  t.deepEqual(result, { delivered: true, statusCode: 200 });
});

test('the connection goes to the address the host resolved to, checked once', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const url = `http://receiver.test:${server.port}/hook`;
  const result = await new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000, resolve: resolvesTo('127.0.0.1') }).send({ url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] });
  t.deepEqual(result, { delivered: true, statusCode: 204 });
  t.is(server.received[0]?.headers.host, `receiver.test:${server.port}`);
});

test('loopback is refused without the operator allowance, by literal address and by resolved address; nothing reaches the receiver', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const send = (policy: WebhookPolicy, url: string, resolve = resolvesTo('127.0.0.1')) =>
    new HttpWebhookSender({ policy, timeoutMs: 10_000, resolve }).send({ url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] });
  t.deepEqual(await send(STRICT, server.url), { delivered: false, statusCode: null, error: 'refused: the webhook URL must not point at a private, loopback or reserved address' });
  t.deepEqual(await send(STRICT, `http://receiver.test:${server.port}/hook`), {
    delivered: false,
    statusCode: null,
    error: 'refused: receiver.test resolves to 127.0.0.1, a private, loopback or reserved address',
  });
  // One refused address among the answers refuses the host (the connection could otherwise land on it).
  t.deepEqual(await send(LOOPBACK_ALLOWED, `http://receiver.test:${server.port}/hook`, resolvesTo('127.0.0.1', '10.0.0.7')), {
    delivered: false,
    statusCode: null,
    error: 'refused: receiver.test resolves to 10.0.0.7, a private, loopback or reserved address',
  });
  t.deepEqual(await send(STRICT, `http://receiver.test:${server.port}/hook`, resolvesTo('::ffff:127.0.0.1')), {
    delivered: false,
    statusCode: null,
    error: 'refused: receiver.test resolves to ::ffff:127.0.0.1, a private, loopback or reserved address',
  });
  t.is(server.received.length, 0);
  // With the allowance the same receiver is reached.
  t.deepEqual(await send({ ...STRICT, allowPrivate: true }, server.url), { delivered: true, statusCode: 204 });
});

test('a plain http URL to a host the operator did not allow is refused at delivery', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const result = await new HttpWebhookSender({ policy: { ...LOOPBACK_ALLOWED, allowHttpHosts: [] }, timeoutMs: 10_000 }).send({ url: server.url, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] });
  t.deepEqual(result, { delivered: false, statusCode: null, error: 'refused: the webhook URL must be an https URL' });
  t.is(server.received.length, 0);
});

test('each delivery opens its own connection and closes it: a receiver cannot keep a socket of the worker', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const sender = new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000 });
  for (const id of ['msg_1', 'msg_2']) t.deepEqual(await sender.send({ url: server.url, id, timestamp: new Date(), body: payload(), secrets: [newSecret()] }), { delivered: true, statusCode: 204 });
  t.deepEqual(server.received.map((request) => request.headers.connection), ['close', 'close']);
});

test('a host that resolves to no address is a failed attempt, not a crash', async (t) => {
  const server = await receiver();
  t.teardown(server.close);
  const result = await within(8_000, new HttpWebhookSender({ policy: LOOPBACK_ALLOWED, timeoutMs: 10_000, resolve: resolvesTo() }).send({ url: `http://receiver.test:${server.port}/hook`, id: 'msg_1', timestamp: new Date(), body: payload(), secrets: [newSecret()] }));
  t.deepEqual(result, { delivered: false, statusCode: null, error: 'refused: receiver.test resolves to no address' });
  t.is(server.received.length, 0);
});
