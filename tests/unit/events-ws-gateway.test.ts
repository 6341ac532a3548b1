/**
 * The WebSocket gateway (API.md §6) on a real HTTP server and real sockets, with its bus, its event store and its
 * authentication replaced by stand-ins the test drives step by step: what a sync replays while live events arrive
 * (beyond a page, beyond the hold buffer, out of order), what a bus reconnect fills in, a second sync during the
 * first, an in-band re-authentication followed by a revocation, and a client that does not read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mock } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { WsGateway, WS_CLOSE, type SocketClaims } from '../../adapters/ws/ws-gateway.ts';
import type { UserEvent } from '../../core/domain/user-events.ts';
import { SESSION_CHANNEL, USER_EVENTS_CHANNEL, type StoredUserEvent } from '../../core/ports/user-events.port.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { connectWs, refusedStatus, type WsMessage } from '../support/ws-test-client.ts';
import { SyncEventBus } from '../support/sync-event-bus.ts';

const USER = 'user-a';
const AT = new Date('2030-01-01T00:00:00.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** The longest delay setTimeout takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const isEvent = (m: WsMessage): boolean => typeof m.seq === 'number';
const seqsOf = (messages: WsMessage[]): number[] => messages.filter(isEvent).map((m) => m.seq!);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const progress = (value: number, note = ''): UserEvent => ({ type: 'job.status', jobId: 'j', text: `${value}${note}` });

/** A token's claims; its access token expires `expiresInMs` after it is checked (an hour unless told). */
type TokenClaims = Omit<SocketClaims, 'expiresAt'> & { expiresInMs?: number };

async function setup(t: ExecutionContext, tokens: Record<string, TokenClaims> = { 'token-a': { userId: USER, sessionId: 'login-1' } }) {
  const bus = new SyncEventBus();
  const stored: StoredUserEvent[] = [];
  /** While set, each replay read takes its page at once and hands it over only when the gate opens. */
  let gate: Promise<void> | null = null;
  let replayReads = 0;
  /** While set, each authentication waits for it. */
  let authGate: Promise<void> | null = null;
  let authentications = 0;
  /** Replay reads still to fail (a store that is down). */
  let failingReads = 0;
  const store = {
    /** Stored only: its fan-out is lost. */
    append(event: UserEvent): StoredUserEvent {
      const one = { userId: USER, seq: stored.length + 1, event, createdAt: AT };
      stored.push(one);
      return one;
    },
    /** What a worker does: stored, then fanned out. */
    async record(event: UserEvent): Promise<StoredUserEvent> {
      const one = store.append(event);
      await store.fanOut(one);
      return one;
    },
    fanOut: (one: StoredUserEvent) => bus.publish(USER_EVENTS_CHANNEL, { userId: one.userId, seq: one.seq, event: one.event, createdAt: one.createdAt.toISOString() }),
  };
  const gateway = new WsGateway({
    authenticate: async (token) => {
      authentications += 1;
      if (authGate) await authGate;
      const claims = tokens[token];
      if (!claims) return null;
      return { userId: claims.userId, sessionId: claims.sessionId, expiresAt: new Date(Date.now() + (claims.expiresInMs ?? HOUR)) };
    },
    replay: async (userId, since, max) => {
      replayReads += 1;
      if (failingReads > 0) {
        failingReads -= 1;
        throw new Error('the event store is down');
      }
      const page = stored.filter((one) => one.userId === userId && one.seq > since).slice(0, max);
      if (gate) await gate;
      return page;
    },
    snapshot: async () => [],
    bus,
    allowedOrigins: [],
    pingIntervalMs: 60_000,
    logger: quietLogger,
  });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await gateway.start(server);
  t.teardown(async () => {
    await gateway.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/ws`;
  /** Holds every replay read until the returned function is called; resolves once the first read has begun. */
  const holdReplays = () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const readsBefore = replayReads;
    const started = (async () => {
      while (replayReads === readsBefore) await delay(1);
    })();
    return {
      started,
      release: () => {
        gate = null;
        open();
      },
    };
  };
  /** Holds every authentication until the returned function is called; resolves once one has begun. */
  const holdAuthentication = () => {
    let open!: () => void;
    authGate = new Promise<void>((resolve) => (open = resolve));
    const before = authentications;
    const started = (async () => {
      while (authentications === before) await delay(1);
    })();
    return {
      started,
      release: () => {
        authGate = null;
        open();
      },
    };
  };
  return {
    bus,
    store,
    url,
    gateway,
    holdReplays,
    holdAuthentication,
    replayReads: () => replayReads,
    failNextReplay: () => void (failingReads += 1),
    connect: (token = 'token-a') => connectWs(url, { bearer: token }),
  };
}

test('a sync replays every stored event after since, over more than one page (500 each)', async (t) => {
  const { store, connect } = await setup(t);
  for (let i = 1; i <= 1203; i++) store.append(progress(i));
  const socket = await connect();
  socket.send({ type: 'sync', since: 0 });
  await socket.waitFor((m) => m.type === 'job.snapshot');
  // Pins: pages are read until one comes back short; nothing past the first page is lost.
  t.deepEqual(seqsOf(socket.messages), range(1, 1203));
  await socket.close();
});

test('live events that overflow the hold buffer during a replay are read again from the store: none lost, none twice', async (t) => {
  const { store, connect, holdReplays, gateway } = await setup(t);
  for (let i = 1; i <= 5; i++) store.append(progress(i));
  const socket = await connect();
  const hold = holdReplays();
  socket.send({ type: 'sync', since: 0 });
  await hold.started;
  // The replay's first page (1..5) is read; 1101 live events arrive before it is sent: more than the 1000 held.
  for (let i = 6; i <= 1106; i++) await store.record(progress(i));
  // Pins: the buffer is bounded (a memory bound, private: nothing outside shows how much is held).
  const [client] = (gateway as unknown as { byUser: Map<string, Set<{ held: unknown[] | null }>> }).byUser.get(USER)!;
  t.true(client!.held!.length <= 1000, `${client!.held!.length} events held`);
  hold.release();
  await socket.waitFor((m) => m.type === 'job.snapshot');
  // Pins: the events dropped from the full hold buffer (6..1005) come from the store, in order, each once.
  t.deepEqual(seqsOf(socket.messages), range(1, 1106));
  await socket.close();
});

test('live events held during a replay go out in seq order even when they arrived out of order', async (t) => {
  const { store, connect, holdReplays } = await setup(t);
  for (let i = 1; i <= 5; i++) store.append(progress(i));
  const socket = await connect();
  const hold = holdReplays();
  socket.send({ type: 'sync', since: 2 });
  await hold.started;
  // Two publishes of one user overtake each other across processes: 7 arrives before 6.
  const six = store.append(progress(6));
  const seven = store.append(progress(7));
  await store.fanOut(seven);
  await store.fanOut(six);
  hold.release();
  await socket.waitFor((m) => m.type === 'job.snapshot');
  // Pins: held events are sorted before they are sent, so the late 6 is not dropped as already sent.
  t.deepEqual(seqsOf(socket.messages), [3, 4, 5, 6, 7]);
  await socket.close();
});

test('after a bus reconnect a socket reads on from the store where it stopped', async (t) => {
  const { bus, store, connect } = await setup(t);
  const socket = await connect();
  await store.record(progress(1));
  await socket.waitFor(isEvent);
  // Published while the bus was down: stored, never delivered, and nothing later reveals the gap.
  store.append(progress(2));
  store.append(progress(3));
  bus.reconnected();
  // Pins: the reconnect alone makes the gateway send what was missed.
  t.deepEqual(seqsOf(await socket.waitForCount(isEvent, 3)), [1, 2, 3]);
  await delay(100);
  t.deepEqual(seqsOf(socket.messages), [1, 2, 3]);
  await socket.close();
});

test('a second sync while one replays is refused; the first replays each event once', async (t) => {
  const { store, connect, holdReplays } = await setup(t);
  for (let i = 1; i <= 3; i++) store.append(progress(i));
  const socket = await connect();
  const hold = holdReplays();
  socket.send({ type: 'sync', since: 0 });
  await hold.started;
  socket.send({ type: 'sync', since: 0 });
  const error = await socket.waitFor((m) => m.type === 'error');
  hold.release();
  await socket.waitFor((m) => m.type === 'job.snapshot');
  await delay(100);
  // Pins: one replay, one snapshot, and an error for the overlapping sync.
  t.is(error.message, 'A sync is already in progress');
  t.deepEqual(seqsOf(socket.messages), [1, 2, 3]);
  t.is(socket.messages.filter((m) => m.type === 'job.snapshot').length, 1);
  await socket.close();
});

test('after an in-band auth with a token of another login, revoking that login closes the socket (4003)', async (t) => {
  const { bus, connect } = await setup(t, { 'token-a': { userId: USER, sessionId: 'login-1' }, 'token-b': { userId: USER, sessionId: 'login-2' } });
  const socket = await connect('token-a');
  socket.send({ type: 'auth', token: 'token-b' });
  await socket.waitFor((m) => m.type === 'auth.ok');
  await bus.publish(SESSION_CHANNEL, { type: 'session.revoked', userId: USER, sessionId: 'login-2' });
  // Pins: the socket now runs on login-2, so that login's revocation ends it.
  t.is(await Promise.race([socket.closed, delay(10_000).then(() => 'still open')]), WS_CLOSE.SESSION_REVOKED);
});

// Serial (AVA runs serial tests first): its 30 MB of sends would slow the other tests' sockets.
test.serial('a client that does not read is dropped once more than 4 MB wait for it, instead of buffering without bound', async (t) => {
  const { store, connect } = await setup(t);
  const big = 'x'.repeat(100_000);
  for (let i = 1; i <= 300; i++) store.append(progress(i, big));
  const socket = await connect();
  socket.ws.pause();
  socket.send({ type: 'sync', since: 0 });
  await delay(500);
  socket.ws.resume();
  // Pins: the gateway terminated the socket (no close frame) rather than queueing 30 MB for it.
  t.is(await Promise.race([socket.closed, delay(10_000).then(() => 'still open')]), 1006);
  t.true(seqsOf(socket.messages).length < 300, `${seqsOf(socket.messages).length} events arrived`);
});

// Pins that an upgrade still being authenticated when the gateway stops is refused with 503 instead of opening a socket on a stopping server.
test('an upgrade still authenticating when the gateway stops is refused with 503', async (t) => {
  const { url, gateway, holdAuthentication } = await setup(t);
  const hold = holdAuthentication();
  const attempt = refusedStatus(url, { bearer: 'token-a' }).catch((error: unknown) => String(error));
  await hold.started;
  const stopped = gateway.stop();
  hold.release();
  await stopped;
  t.deepEqual(await attempt, { status: 503, body: JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message: 'Server shutting down' }) });
});

// Pins that a token valid for longer than setTimeout's limit (24.8 days, an API key say) keeps its socket open, its expiry timer clamped: no
// TimeoutOverflowWarning in the operator's log (an overflowing delay becomes 1 ms: the socket would close at once, or its timer spin and warn each ms).
test('a socket whose token expires in 30 days stays open, and its expiry timer does not overflow', async (t) => {
  const overflows: string[] = [];
  const onWarning = (warning: Error): void => void (warning.name === 'TimeoutOverflowWarning' && overflows.push(warning.message));
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  const { connect } = await setup(t, { 'token-long': { userId: USER, sessionId: 'key-1', expiresInMs: 30 * DAY } });
  const socket = await connect('token-long');
  socket.send({ type: 'sync' });
  await socket.waitFor((m) => m.type === 'job.snapshot');
  t.is(await Promise.race([socket.closed, delay(500).then(() => 'still open')]), 'still open');
  t.deepEqual(overflows.slice(0, 1), []);
  await socket.close();
});

// Pins that an expiry beyond setTimeout's limit closes the socket (4001) when the token expires: not after 24.8 days, not never.
test.serial('a socket whose token expires in 30 days closes with 4001 after 30 days, not when the first 24.8-day timer fires', async (t) => {
  const { connect } = await setup(t, { 'token-a': { userId: USER, sessionId: 'login-1' }, 'token-long': { userId: USER, sessionId: 'key-1', expiresInMs: 30 * DAY } });
  const socket = await connect('token-a');
  // Fake timers from here: the 30-day expiry is armed by the in-band auth below, on the mocked clock.
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
  t.teardown(() => mock.timers.reset());
  socket.send({ type: 'auth', token: 'token-long' });
  await socket.waitFor((m) => m.type === 'auth.ok');
  mock.timers.tick(MAX_TIMER_MS);
  socket.send({ type: 'sync' });
  const answer = await Promise.race([socket.closed.then((code) => `closed ${code}`), socket.waitFor((m) => m.type === 'job.snapshot').then(() => 'open')]);
  t.is(answer, 'open', 'still open after 24.8 of its 30 days');
  mock.timers.tick(30 * DAY - MAX_TIMER_MS);
  mock.timers.reset();
  t.is(await Promise.race([socket.closed, delay(10_000).then(() => 'still open')]), WS_CLOSE.TOKEN_EXPIRED);
});

// Pins that what the bus hands over is checked before it goes out: a payload without a user, an integer seq or an event is not sent.
test('a malformed user event from the bus is not sent to any socket; the next well-formed one is', async (t) => {
  const { bus, store, connect } = await setup(t);
  const socket = await connect();
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: 1 });
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: 1, event: 'job.status' });
  await bus.publish(USER_EVENTS_CHANNEL, { userId: USER, seq: '1', event: progress(1) });
  await store.record(progress(1));
  await socket.waitFor(isEvent);
  await delay(100);
  t.deepEqual(socket.messages, [{ ...progress(1), seq: 1 }]);
  await socket.close();
});

// Pins that a replay stops reading the store once its socket is gone (no page after page read for nobody).
test('a socket closed during a sync stops the replay: no further page is read from the store', async (t) => {
  const { store, connect, holdReplays, replayReads, gateway } = await setup(t);
  for (let i = 1; i <= 1203; i++) store.append(progress(i));
  const socket = await connect();
  const hold = holdReplays();
  socket.send({ type: 'sync', since: 0 });
  await hold.started;
  await socket.close();
  await waitUntil(() => gateway.size === 0, 'the gateway to see the socket closed');
  hold.release();
  await delay(200);
  t.is(replayReads(), 1, 'only the page read before the socket closed');
});

// Pins that a sync whose store read fails answers with an error and leaves the socket able to sync again (not stuck "in progress").
test('a sync whose store read fails gets an error reply; the next sync replays normally', async (t) => {
  const { store, connect, failNextReplay } = await setup(t);
  for (let i = 1; i <= 3; i++) store.append(progress(i));
  const socket = await connect();
  failNextReplay();
  socket.send({ type: 'sync', since: 0 });
  const error = await socket.waitFor((m) => m.type === 'error');
  t.is(error.message, 'Sync failed; try again');
  socket.send({ type: 'sync', since: 0 });
  await socket.waitFor((m) => m.type === 'job.snapshot');
  t.deepEqual(seqsOf(socket.messages), [1, 2, 3]);
  t.is(socket.messages.filter((m) => m.type === 'error').length, 1);
  await socket.close();
});

// Pins that a closed socket leaves the registry (the count of open sockets, and no fan-out to it).
test('a closed socket leaves the registry; the other socket of the user stays in it', async (t) => {
  const { store, connect, gateway } = await setup(t);
  const first = await connect();
  const second = await connect();
  await waitUntil(() => gateway.size === 2, 'two sockets registered');
  await first.close();
  await waitUntil(() => gateway.size === 1, 'the closed socket to leave the registry');
  await store.record(progress(1));
  t.deepEqual(seqsOf(await second.waitForCount(isEvent, 1)), [1]);
  t.is(gateway.size, 1);
  await second.close();
});

// Pins that a sync resets where the socket stands: events it was sent live before are sent again when the client asks from an earlier seq.
test('a sync from an earlier seq sends again the events the socket already got live', async (t) => {
  const { store, connect } = await setup(t);
  const socket = await connect();
  for (let i = 1; i <= 3; i++) await store.record(progress(i));
  await socket.waitForCount(isEvent, 3);
  socket.send({ type: 'sync', since: 1 });
  await socket.waitFor((m) => m.type === 'job.snapshot');
  t.deepEqual(seqsOf(socket.messages), [1, 2, 3, 2, 3]);
  await socket.close();
});

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}
