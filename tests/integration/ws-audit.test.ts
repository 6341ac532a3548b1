/**
 * Guard audit of the WebSocket gateway (adapters/ws/ws-gateway.ts, adapters/ws/upgrade-request.ts): a real HTTP
 * server and real sockets, with a stand-in bus and stand-in authentication. Each test pins one guard whose
 * deletion a client would notice: how a message is refused, which upgrades the gateway claims, which Origins
 * pass, what an in-band auth renews, what a ping keeps alive, and what stopping the gateway does.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { randomBytes, randomUUID } from 'node:crypto';
import { RedisEventBus, type RedisEventBusOptions } from '../../adapters/redis/redis-event-bus.ts';
import { WsGateway, type SocketClaims } from '../../adapters/ws/ws-gateway.ts';
import { USER_EVENTS_CHANNEL, type StoredUserEvent } from '../../core/ports/user-events.port.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { connectWs, refusedStatus, type WsAuth, type WsMessage } from '../support/ws-test-client.ts';
import { SyncEventBus } from '../support/sync-event-bus.ts';

const USER = 'user-a';
const HOUR = 3600_000;
const AT = new Date('2030-01-01T00:00:00.000Z');

type TokenClaims = Omit<SocketClaims, 'expiresAt'> & { expiresInMs?: number; throws?: boolean };

interface Options {
  tokens?: Record<string, TokenClaims>;
  allowedOrigins?: string[];
  pingIntervalMs?: number;
  stored?: StoredUserEvent[];
}

async function setup(t: ExecutionContext, options: Options = {}) {
  const tokens = options.tokens ?? { 'token-a': { userId: USER, sessionId: 'login-1' } };
  const bus = new SyncEventBus();
  const stored = options.stored ?? [];
  let authentications = 0;
  /** The `since` of every read of the event store. */
  const replays: number[] = [];
  const gateway = new WsGateway({
    authenticate: async (token) => {
      authentications += 1;
      const claims = tokens[token];
      if (!claims) return null;
      if (claims.throws) throw new Error('the session store is down');
      return { userId: claims.userId, sessionId: claims.sessionId, expiresAt: new Date(Date.now() + (claims.expiresInMs ?? HOUR)) };
    },
    replay: async (userId, since, max) => (replays.push(since), stored.filter((one) => one.userId === userId && one.seq > since).slice(0, max)),
    snapshot: async () => [],
    bus,
    allowedOrigins: options.allowedOrigins ?? [],
    pingIntervalMs: options.pingIntervalMs ?? 60_000,
    logger: quietLogger,
  });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await gateway.start(server);
  // Upgraded sockets leave the server's keep-alive tracking: one nobody answers (a hanging upgrade) is destroyed here,
  // or server.close would wait for it.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => void upgraded.add(socket));
  t.teardown(async () => {
    await gateway.stop();
    for (const socket of upgraded) socket.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `ws://127.0.0.1:${port}/api/v1/ws`;
  return {
    bus,
    gateway,
    server,
    port,
    url,
    authentications: () => authentications,
    replays,
    connect: (auth: WsAuth = { bearer: 'token-a' }, at = url) => connectWs(at, auth),
  };
}

const isError = (m: WsMessage): boolean => m.type === 'error';
const isSnapshot = (m: WsMessage): boolean => m.type === 'job.snapshot';

/**
 * The HTTP status an upgrade request gets, 'opened' when it is accepted, or 'no answer' when the server says nothing
 * within `ms` (the request is then destroyed, so a hanging server socket cannot keep the test server open).
 */
function statusWithin(url: string, headers: Record<string, string>, ms: number): Promise<number | 'no answer' | 'opened'> {
  return new Promise((resolve) => {
    const req = request(url.replace(/^ws:/, 'http:'), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...headers },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve('no answer');
    }, ms);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('upgrade', (_res, socket) => {
      clearTimeout(timer);
      socket.destroy();
      resolve('opened');
    });
    req.on('error', () => undefined);
    req.end();
  });
}

// Pins: a binary frame is refused with an error, never read as a JSON message (here: it would have been a sync).
test('a binary message is answered with an error, not read as a sync', async (t) => {
  const { connect } = await setup(t);
  const client = await connect();
  client.ws.send(Buffer.from(JSON.stringify({ type: 'sync' })), { binary: true });
  const reply = await client.waitFor((m) => isError(m) || isSnapshot(m));
  t.deepEqual(reply, { type: 'error', message: 'Binary messages are not supported; send JSON text' });
  await client.close();
});

// Pins: text that is not JSON gets an error reply (not silence).
test('a message that is not JSON is answered with an error', async (t) => {
  const { connect } = await setup(t);
  const client = await connect();
  client.send('{not json');
  t.deepEqual(await client.waitFor(isError), { type: 'error', message: 'Message is not valid JSON' });
  await client.close();
});

// Pins: JSON without a string "type" (an array, a number type) is refused with its own error and the socket stays usable.
test('a JSON message without a string "type" is answered with an error; the socket goes on', async (t) => {
  const { connect } = await setup(t);
  const client = await connect();
  client.send([1, 2]);
  client.send({ type: 7 });
  const errors = await client.waitForCount(isError, 2);
  t.deepEqual(
    errors.map((m) => m.message),
    ['Message must be a JSON object with a string "type"', 'Message must be a JSON object with a string "type"'],
  );
  client.send({ type: 'sync' });
  t.deepEqual(await client.waitFor(isSnapshot), { type: 'job.snapshot', jobs: [] });
  await client.close();
});

// Pins: a message type the gateway does not know is refused, never taken for a sync.
test('an unknown message type is answered with an error, not with a snapshot', async (t) => {
  const { connect } = await setup(t);
  const client = await connect();
  client.send({ type: 'subscribe', since: 0 });
  const reply = await client.waitFor((m) => isError(m) || isSnapshot(m));
  t.deepEqual(reply, { type: 'error', message: 'Unknown message type "subscribe"; expected "sync" or "auth"' });
  await client.close();
});

// Pins: `"since": null` is a sync without since (snapshot only), not an invalid since.
test('a sync with since null gets the snapshot and no replay', async (t) => {
  const stored: StoredUserEvent[] = [{ userId: USER, seq: 1, event: { type: 'job.status', jobId: 'j', text: 'x' } as never, createdAt: AT }];
  const { connect, replays } = await setup(t, { stored });
  const client = await connect();
  client.send({ type: 'sync', since: null });
  const reply = await client.waitFor((m) => isError(m) || isSnapshot(m));
  t.deepEqual(reply, { type: 'job.snapshot', jobs: [] });
  t.deepEqual(client.messages, [{ type: 'job.snapshot', jobs: [] }]);
  t.deepEqual(replays, [], 'the event store is not read');
  await client.close();
});

// Pins: an in-band auth with a fresh token moves the socket's expiry: the old token's expiry no longer closes it.
// (Serial, with a first token of 3 s: on a busy machine the auth must land before that token expires.)
test.serial('after an in-band auth with a longer-lived token, the socket outlives its first token', async (t) => {
  const { connect } = await setup(t, {
    tokens: { 'short-lived': { userId: USER, sessionId: 'login-1', expiresInMs: 3000 }, 'fresh': { userId: USER, sessionId: 'login-1', expiresInMs: HOUR } },
  });
  const opened = Date.now();
  const client = await connect({ bearer: 'short-lived' });
  let closeCode: number | null = null;
  void client.closed.then((code) => (closeCode = code));
  client.send({ type: 'auth', token: 'fresh' });
  const ok = await client.waitFor((m) => m.type === 'auth.ok' || isError(m), 5000);
  t.is(ok.type, 'auth.ok');
  await delay(Math.max(0, opened + 3600 - Date.now()));
  t.is(closeCode, null, 'the socket is still open past the first token’s expiry');
  t.is(client.ws.readyState, WebSocket.OPEN);
  client.send({ type: 'sync' });
  t.deepEqual(await client.waitFor(isSnapshot, 5000), { type: 'job.snapshot', jobs: [] });
  await client.close();
});

// Pins: an in-band token over 8 KiB is refused before it reaches authentication; a missing token gets the same error.
test('an in-band auth with an over-long or missing token is refused without authenticating it', async (t) => {
  const long = 'k'.repeat(9000);
  const { connect, authentications } = await setup(t, { tokens: { 'token-a': { userId: USER, sessionId: 'login-1' }, [long]: { userId: USER, sessionId: 'login-2' } } });
  const client = await connect();
  const before = authentications();
  client.send({ type: 'auth', token: long });
  client.send({ type: 'auth' });
  const errors = await client.waitForCount(isError, 2);
  t.deepEqual(
    errors.map((m) => m.message),
    ['"token" must be an access token or an API key', '"token" must be an access token or an API key'],
  );
  t.is(authentications(), before);
  t.false(client.messages.some((m) => m.type === 'auth.ok'));
  await client.close();
});

// Pins: an authentication that fails (throws) during an in-band auth is answered like an invalid token; the socket goes on.
test('an in-band auth whose authentication throws gets an error reply and the socket stays open', async (t) => {
  const { connect } = await setup(t, { tokens: { 'token-a': { userId: USER, sessionId: 'login-1' }, broken: { userId: USER, sessionId: 'login-1', throws: true } } });
  const client = await connect();
  client.send({ type: 'auth', token: 'broken' });
  const reply = await client.waitFor(isError);
  t.is(reply.message, 'The token is invalid, expired, logged out or of another user; the socket keeps its current session');
  client.send({ type: 'sync' });
  t.deepEqual(await client.waitFor(isSnapshot), { type: 'job.snapshot', jobs: [] });
  await client.close();
});

// Pins: an upgrade whose authentication throws is answered 500 (not left hanging).
test('an upgrade whose authentication throws is refused with 500', async (t) => {
  const { url } = await setup(t, { tokens: { broken: { userId: USER, sessionId: 'login-1', throws: true } } });
  t.is(await statusWithin(url, { authorization: 'Bearer broken' }, 5000), 500);
});

// Pins: upgrades to other paths (the ComfyUI protocol's /ws on the same server) are left to their own handler.
test('an upgrade to another path is left to the other upgrade handler of the server', async (t) => {
  const { server, port } = await setup(t);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    if (req.url?.startsWith('/ws')) socket.end('HTTP/1.1 418 I\'m a Teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  t.is(await statusWithin(`ws://127.0.0.1:${port}/ws?clientId=abc`, {}, 5000), 418);
});

// Pins: the path check ignores the query string: /api/v1/ws?x=1 is the gateway's; the legacy /api/ws is too.
test('the gateway path with a query, and the legacy path, open a socket', async (t) => {
  const { connect, port } = await setup(t);
  for (const at of [`ws://127.0.0.1:${port}/api/v1/ws?since=3`, `ws://127.0.0.1:${port}/api/ws`]) {
    const client = await connect({ bearer: 'token-a' }, at);
    client.send({ type: 'sync' });
    t.deepEqual(await client.waitFor(isSnapshot), { type: 'job.snapshot', jobs: [] }, at);
    await client.close();
  }
});

// Pins: a request without Origin (not a browser) passes; an allowed origin passes however it is spelt in CORS_ORIGINS;
// the service's own host passes; any other origin is 403.
test('Origin: none passes, an allowed one passes in any spelling, the own host passes, a foreign one is 403', async (t) => {
  const { connect, url, port } = await setup(t, { allowedOrigins: ['https://App.Example.com/'] });
  const none = await connect({ bearer: 'token-a' });
  await none.close();
  const allowed = await connect({ bearer: 'token-a', origin: 'https://app.example.com' });
  await allowed.close();
  const own = await connect({ bearer: 'token-a', origin: `http://127.0.0.1:${port}` });
  await own.close();
  t.is((await refusedStatus(url, { bearer: 'token-a', origin: 'https://evil.example.com' })).status, 403);
  t.pass();
});

// Pins: the access cookie is read when quoted or percent-encoded, and a malformed escape is taken literally.
test('the access cookie opens a socket when quoted, percent-encoded, or with a malformed escape', async (t) => {
  const { connect } = await setup(t, {
    tokens: { 'token a': { userId: USER, sessionId: 'login-1' }, 'tok%zz': { userId: USER, sessionId: 'login-1' }, plain: { userId: USER, sessionId: 'login-1' } },
  });
  for (const cookie of ['"plain"', 'token%20a', 'tok%zz']) {
    const client = await connect({ cookie });
    client.send({ type: 'sync' });
    t.deepEqual(await client.waitFor(isSnapshot), { type: 'job.snapshot', jobs: [] }, cookie);
    await client.close();
  }
});

// Pins: a client that answers pings is kept across several ping rounds (serial: a busy event loop could delay a pong
// past the next round).
test.serial('a socket that answers pings stays open across ping rounds', async (t) => {
  // Rounds a second apart, two of them passed: a loaded CI machine may delay a pong by some hundreds of ms.
  const { connect } = await setup(t, { pingIntervalMs: 1000 });
  const client = await connect();
  let closeCode: number | null = null;
  void client.closed.then((code) => (closeCode = code));
  await delay(2600);
  t.is(closeCode, null);
  client.send({ type: 'sync' });
  t.deepEqual(await client.waitFor(isSnapshot), { type: 'job.snapshot', jobs: [] });
  await client.close();
});

// Pins: stop() closes every socket with 1001 (going away), not by dropping the connection after the grace period.
test('stopping the gateway closes its sockets with 1001', async (t) => {
  const { connect, gateway } = await setup(t);
  const client = await connect();
  await gateway.stop();
  t.is(await client.closed, 1001);
  t.is(gateway.size, 0);
});

// Pins: stop() leaves the bus: no handler and no reconnect listener of the gateway stays behind; a second stop is a no-op.
test('a stopped gateway holds no bus subscription nor reconnect listener; stopping twice is fine', async (t) => {
  const { bus, gateway } = await setup(t);
  t.is(bus.handlerCount(), 2);
  t.is(bus.reconnectListeners.size, 1);
  await gateway.stop();
  t.is(bus.handlerCount(), 0);
  t.is(bus.reconnectListeners.size, 0);
  await t.notThrowsAsync(gateway.stop());
});

// Pins: a second start is refused (it would subscribe twice and claim each upgrade twice).
test('starting a started gateway is refused', async (t) => {
  const { gateway, server, bus } = await setup(t);
  await t.throwsAsync(gateway.start(server), { message: 'the WebSocket gateway is already started' });
  t.is(bus.handlerCount(), 2);
});

// Pins: an event for a user with no socket is dropped quietly (the bus handler does not throw).
test('a user event for a user with no open socket is dropped without error', async (t) => {
  const { bus, connect } = await setup(t);
  await t.notThrowsAsync(bus.publish(USER_EVENTS_CHANNEL, { userId: 'nobody', seq: 1, event: { type: 'job.status', jobId: 'j' }, createdAt: AT.toISOString() }));
  const client = await connect();
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: 1, event: { type: 'job.status', jobId: 'j' }, createdAt: AT.toISOString() });
  t.deepEqual(await client.waitFor((m) => m.seq === 1), { type: 'job.status', jobId: 'j', seq: 1 });
  await client.close();
});

// Pins: every open socket of a user gets the user's events (two tabs, or a phone and a laptop): a second socket joins
// the first, it does not replace it. When one closes the other goes on; when the last closes, the user is forgotten.
test('two sockets of one user both get each event; the user is forgotten when the last closes', async (t) => {
  const { bus, connect, gateway } = await setup(t, { tokens: { 'token-a': { userId: USER, sessionId: 'login-1' }, 'token-b': { userId: USER, sessionId: 'login-2' } } });
  const laptop = await connect({ bearer: 'token-a' });
  const phone = await connect({ bearer: 'token-b' });
  const event = (seq: number) => ({ userId: USER, seq, event: { type: 'job.status', jobId: `j${seq}` }, createdAt: AT.toISOString() });
  await bus.publish(USER_EVENTS_CHANNEL, event(1));
  t.deepEqual(await laptop.waitFor((m) => m.seq === 1), { type: 'job.status', jobId: 'j1', seq: 1 });
  t.deepEqual(await phone.waitFor((m) => m.seq === 1), { type: 'job.status', jobId: 'j1', seq: 1 });
  await laptop.close();
  await bus.publish(USER_EVENTS_CHANNEL, event(2));
  t.deepEqual(await phone.waitFor((m) => m.seq === 2), { type: 'job.status', jobId: 'j2', seq: 2 });
  const byUser = (gateway as unknown as { byUser: Map<string, Set<unknown>> }).byUser;
  t.is(byUser.get(USER)?.size, 1);
  await phone.close();
  await until(() => !byUser.has(USER), 2000);
  t.false(byUser.has(USER));
});

// Pins: a bus envelope whose seq is not an integer, or whose event has no string type, reaches no socket.
test('a user event with a fractional seq or an event without a type is not sent; the next good one is', async (t) => {
  const { bus, connect } = await setup(t);
  const client = await connect();
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: 1, event: { jobId: 'j' }, createdAt: AT.toISOString() });
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: 1.5, event: { type: 'job.status', jobId: 'half' }, createdAt: AT.toISOString() });
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: 2, event: { type: 'job.status', jobId: 'good' }, createdAt: AT.toISOString() });
  await client.waitFor((m) => m.seq === 2);
  await delay(50);
  t.deepEqual(client.messages, [{ type: 'job.status', jobId: 'good', seq: 2 }]);
  await client.close();
});

// --- adapters/redis/redis-event-bus.ts (the bus that carries user events between processes) ---

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisPair(t: ExecutionContext, options: RedisEventBusOptions = {}) {
  const bus = new RedisEventBus(REDIS_URL, options);
  const raw = new Redis(REDIS_URL);
  t.teardown(async () => {
    await bus.close();
    raw.disconnect();
  });
  return { bus, raw, channel: `audit-${randomUUID()}` };
}

/** Waits until `predicate` holds (polling), failing after `ms`. */
async function until(predicate: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(5);
  }
}

// Pins: without a prefix option the bus keeps to mgs:<channel>: a message on the bare channel name (another
// application on the same Redis) is not delivered.
test('redis bus: the default prefix is mgs:, and the bare channel name is not listened to', async (t) => {
  const { bus, raw, channel } = await redisPair(t);
  const got: unknown[] = [];
  await bus.subscribe(channel, (payload) => got.push(payload));
  await raw.publish(channel, JSON.stringify({ from: 'bare' }));
  await raw.publish(`mgs:${channel}`, JSON.stringify({ from: 'prefixed' }));
  await until(() => got.length >= 1);
  await delay(50);
  t.deepEqual(got, [{ from: 'prefixed' }]);
});

// Pins: a foreign (non-JSON) message is reported under the channel name the application uses, without the prefix.
test('redis bus: a non-JSON message is reported with the unprefixed channel name', async (t) => {
  const reports: [string, string][] = [];
  const { bus, raw, channel } = await redisPair(t, { prefix: 'audit:', onHandlerError: (error, name) => reports.push([(error as Error).message.slice(0, 9), name]) });
  const got: unknown[] = [];
  await bus.subscribe(channel, (payload) => got.push(payload));
  await raw.publish(`audit:${channel}`, 'not json');
  await until(() => reports.length >= 1);
  t.deepEqual(reports, [['not JSON:', channel]]);
  t.deepEqual(got, []);
});

// Pins: closing a bus whose Redis cannot be reached returns at once (it stops reconnecting instead of waiting to QUIT).
test('redis bus: closing a bus that never reached Redis returns promptly', async (t) => {
  const bus = new RedisEventBus('redis://127.0.0.1:1', { onConnectionError: () => undefined });
  await delay(50);
  const started = Date.now();
  await bus.close();
  // A reconnecting client waiting to QUIT would take its connect timeout (10 s); a busy machine may add some hundreds of ms.
  t.true(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
});
