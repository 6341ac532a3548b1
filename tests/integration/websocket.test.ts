import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import test from 'ava';
import { WebSocket } from 'ws';
import { resolve, TOKENS, type ActiveJobsSnapshot, type Repositories } from '../../bootstrap/tokens.ts';
import { USER_EVENTS_CHANNEL, type StoredUserEvent, type UserEvent, type UserEventStore } from '../../core/ports/user-events.port.ts';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { connectWs, refusedStatus, type WsMessage, type WsTestClient } from '../support/ws-test-client.ts';

const ALLOWED_ORIGIN = 'http://app.example.test';
const ENV = { CORS_ORIGINS: ALLOWED_ORIGIN, WS_PING_INTERVAL: '1s' };
/** Long enough for a stray event to arrive if it were going to. */
const SETTLE_MS = 300;
/** A replay page is read and handed over this late, so a sync's replay overlaps live traffic for sure. */
const REPLAY_DELAY_MS = 25;

/** An in-memory stand-in for the generation module's snapshot, used only when that module does not bind one. */
const fakeSnapshot: ActiveJobsSnapshot = async (userId) => [
  { id: `job-of-${userId}`, status: 'running', progress: { value: 1, max: 2 }, outputs: [], error: null },
];

const isEvent = (m: WsMessage): boolean => typeof m.seq === 'number';
const seqsOf = (messages: WsMessage[]): number[] => messages.filter(isEvent).map((m) => m.seq!);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const db of DATABASES) {
  let app: TestApp;
  /** What a worker does: record the event in a transaction; it fans out after the commit. */
  let publish: (userId: string, event: Record<string, unknown>) => Promise<StoredUserEvent>;
  let wsUrl: string;
  let legacyWsUrl: string;
  /** Reads of the (slowed) event store so far: a test waits for one to begin before acting during it. */
  let replayReads = 0;

  test.before(async () => {
    app = await startTestApp(db, ENV, {
      beforeStart({ container }) {
        if (!container.isBound(TOKENS.ActiveJobsSnapshot)) container.bind(TOKENS.ActiveJobsSnapshot).toConstantValue(fakeSnapshot);
        const repos = resolve(container, TOKENS.Repositories);
        const real = repos.events;
        const slowed: UserEventStore = {
          append: (userId, event, at) => real.append(userId, event, at),
          appendAll: (userId, events, at) => real.appendAll(userId, events, at),
          // Events published before the read are both held and in the page (must not repeat); those published
          // after it are only held (must not be lost).
          listSince: async (userId, since, max) => {
            replayReads += 1;
            await delay(REPLAY_DELAY_MS);
            const page = await real.listSince(userId, since, max);
            await delay(REPLAY_DELAY_MS);
            return page;
          },
          purgeBefore: (before) => real.purgeBefore(before),
        };
        // The gateway replays through the autocommit repositories' event store: slow that one down.
        const withSlowReplay = new Proxy(repos, { get: (target, name) => (name === 'events' ? slowed : Reflect.get(target, name)) }) as Repositories;
        container.rebind(TOKENS.Repositories).toConstantValue(withSlowReplay);
      },
    });
    const uow = resolve(app.app.container, TOKENS.UnitOfWork);
    const log = resolve(app.app.container, TOKENS.UserEventLog);
    publish = (userId, event) => uow.run((tx) => log.record(tx, userId, event as unknown as UserEvent));
    wsUrl = `ws://127.0.0.1:${app.port}/api/v1/ws`;
    legacyWsUrl = `ws://127.0.0.1:${app.port}/api/ws`;
  });
  test.after.always(async () => {
    await app?.close();
  });

  const signedUp = async () => {
    const client = app.client();
    const user = await client.signUp();
    return { id: user.id, token: client.cookies.get('access_token')!, client };
  };
  const expectedSnapshot = (userId: string) => resolve(app.app.container, TOKENS.ActiveJobsSnapshot)(userId);
  const progress = (jobId: string, value: number, max: number) => ({ type: 'job.progress', jobId, value, max });

  test(`${db}: connects with the access cookie or a Bearer token, on /api/v1/ws and /api/ws`, async (t) => {
    const user = await signedUp();
    const viaCookie = await connectWs(wsUrl, { cookie: user.token });
    const viaBearer = await connectWs(legacyWsUrl, { bearer: user.token });
    for (const socket of [viaCookie, viaBearer]) {
      socket.send({ type: 'sync' });
      const snapshot = await socket.waitFor((m) => m.type === 'job.snapshot');
      t.deepEqual(snapshot, { type: 'job.snapshot', jobs: await expectedSnapshot(user.id) });
    }
    await Promise.all([viaCookie.close(), viaBearer.close()]);
  });

  test(`${db}: refuses a missing, invalid or logged-out token with 401`, async (t) => {
    const user = await signedUp();
    const missing = await refusedStatus(wsUrl);
    t.is(missing.status, 401);
    t.deepEqual(JSON.parse(missing.body), { statusCode: 401, error: 'Unauthorized', message: 'Authentication required' });
    const tampered = `${user.token.slice(0, -3)}${user.token.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    t.is((await refusedStatus(wsUrl, { cookie: tampered })).status, 401);
    t.is((await refusedStatus(wsUrl, { bearer: 'not-a-jwt' })).status, 401);
    t.is((await user.client.post('/auth/logout')).status, 204);
    t.is((await refusedStatus(wsUrl, { cookie: user.token })).status, 401);
  });

  test(`${db}: refuses a foreign Origin with 403 and accepts an allowed one`, async (t) => {
    const user = await signedUp();
    const foreign = await refusedStatus(wsUrl, { cookie: user.token, origin: 'http://evil.example.test' });
    t.is(foreign.status, 403);
    t.is(JSON.parse(foreign.body).message, 'Origin not allowed');
    t.is((await refusedStatus(wsUrl, { cookie: user.token, origin: 'null' })).status, 403);
    const allowed = await connectWs(wsUrl, { cookie: user.token, origin: ALLOWED_ORIGIN });
    t.is(allowed.ws.readyState, WebSocket.OPEN);
    await allowed.close();
  });

  test(`${db}: leaves upgrades on other paths to other handlers`, async (t) => {
    const other = (req: IncomingMessage, socket: Duplex): void => {
      if (req.url === '/api/v1/ws' || req.url === '/api/ws') return;
      socket.end('HTTP/1.1 418 I\'m a Teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    };
    app.app.server!.on('upgrade', other);
    try {
      t.is((await refusedStatus(`ws://127.0.0.1:${app.port}/elsewhere`)).status, 418);
      t.is((await refusedStatus(`ws://127.0.0.1:${app.port}/api/v1/wsx`)).status, 418);
    } finally {
      app.app.server!.off('upgrade', other);
    }
  });

  test(`${db}: an event reaches every socket of its user with seq 1, 2, ... and never another user's`, async (t) => {
    const alice = await signedUp();
    const bob = await signedUp();
    const aliceTab1 = await connectWs(wsUrl, { cookie: alice.token });
    const aliceTab2 = await connectWs(legacyWsUrl, { bearer: alice.token });
    const bobTab = await connectWs(wsUrl, { cookie: bob.token });
    const jobId = randomUUID();
    const stored = [];
    for (let value = 1; value <= 5; value++) stored.push(await publish(alice.id, progress(jobId, value, 5)));
    t.deepEqual(stored.map((e) => e.seq), [1, 2, 3, 4, 5]);
    const expected = range(1, 5).map((seq) => ({ type: 'job.progress', jobId, value: seq, max: 5, seq }));
    t.deepEqual(await aliceTab1.waitForCount(isEvent, 5), expected);
    t.deepEqual(await aliceTab2.waitForCount(isEvent, 5), expected);
    await delay(SETTLE_MS);
    t.deepEqual(bobTab.messages, [], 'bob received none of alice’s events');

    await publish(bob.id, { type: 'job.status', jobId: 'b', text: 'Generating' });
    t.deepEqual(await bobTab.waitFor(isEvent), { type: 'job.status', jobId: 'b', text: 'Generating', seq: 1 });
    await delay(SETTLE_MS);
    t.is(aliceTab1.messages.length, 5);
    t.is(aliceTab2.messages.length, 5);
    t.is(bobTab.messages.length, 1);
    await Promise.all([aliceTab1.close(), aliceTab2.close(), bobTab.close()]);
  });

  test(`${db}: an event lost on the bus is filled in from the store before the next one; a repeated one is not sent twice`, async (t) => {
    const alice = await signedUp();
    const tab = await connectWs(wsUrl, { cookie: alice.token });
    const jobId = randomUUID();
    await publish(alice.id, progress(jobId, 1, 4));
    t.is((await tab.waitFor(isEvent)).seq, 1);
    // Two events stored, but the bus loses their fan-out (a dropped connection): written to the store only.
    const repos = resolve(app.app.container, TOKENS.Repositories);
    const now = new Date();
    await repos.events.append(alice.id, progress(jobId, 2, 4) as unknown as UserEvent, now);
    const lostToo = await repos.events.append(alice.id, progress(jobId, 3, 4) as unknown as UserEvent, now);
    const bus = resolve(app.app.container, TOKENS.EventBus);
    const fourth = await publish(alice.id, progress(jobId, 4, 4));
    t.is(fourth.seq, 4);
    t.deepEqual(seqsOf(await tab.waitForCount(isEvent, 4)), [1, 2, 3, 4], 'the gap was filled, in order, before seq 4');
    // The lost fan-out turns up late after all: already sent, not sent again.
    await bus.publish(USER_EVENTS_CHANNEL, { userId: alice.id, seq: lostToo.seq, event: lostToo.event, createdAt: lostToo.createdAt.toISOString() });
    await delay(SETTLE_MS);
    t.deepEqual(seqsOf(tab.messages), [1, 2, 3, 4]);
    await tab.close();
  });

  test(`${db}: a client's sync sent while the gateway fills a gap waits for it instead of being refused`, async (t) => {
    const alice = await signedUp();
    const tab = await connectWs(wsUrl, { cookie: alice.token });
    const jobId = randomUUID();
    await publish(alice.id, progress(jobId, 1, 3));
    await tab.waitFor(isEvent);
    const repos = resolve(app.app.container, TOKENS.Repositories);
    await repos.events.append(alice.id, progress(jobId, 2, 3) as unknown as UserEvent, new Date());
    const readsBefore = replayReads;
    await publish(alice.id, progress(jobId, 3, 3)); // a gap: the gateway reads seq 2 from the (slowed) store
    // The sync goes out while that read is under way (the bus may hand seq 3 over after a loaded machine's delay).
    const deadline = Date.now() + 10_000;
    while (replayReads === readsBefore && Date.now() < deadline) await delay(2);
    if (!t.not(replayReads, readsBefore, 'the gateway reads the missing seq 2 from the store')) return;
    tab.send({ type: 'sync', since: 0 });
    const snapshot = await tab.waitFor((m) => m.type === 'job.snapshot');
    t.truthy(snapshot);
    t.false(tab.messages.some((m) => m.type === 'error'), JSON.stringify(tab.messages.filter((m) => m.type === 'error')));
    t.deepEqual(seqsOf(tab.messages), [1, 2, 3, 1, 2, 3], 'the gap filled in order, then the replay the client asked for');
    await tab.close();
  });

  test(`${db}: sync since=1 replays the later events in order, then one job.snapshot`, async (t) => {
    const user = await signedUp();
    const jobId = randomUUID();
    for (let value = 1; value <= 4; value++) await publish(user.id, progress(jobId, value, 4));
    const socket = await connectWs(wsUrl, { cookie: user.token });
    socket.send({ type: 'sync', since: 1 });
    await socket.waitFor((m) => m.type === 'job.snapshot');
    await delay(SETTLE_MS);
    t.deepEqual(socket.messages, [
      ...range(2, 4).map((seq) => ({ type: 'job.progress', jobId, value: seq, max: 4, seq })),
      { type: 'job.snapshot', jobs: await expectedSnapshot(user.id) },
    ]);
    await socket.close();
  });

  test(`${db}: sync without since replays nothing and sends the snapshot`, async (t) => {
    const user = await signedUp();
    await publish(user.id, progress('j', 1, 2));
    const socket = await connectWs(wsUrl, { cookie: user.token });
    socket.send({ type: 'sync' });
    await socket.waitFor((m) => m.type === 'job.snapshot');
    await delay(SETTLE_MS);
    t.deepEqual(socket.messages, [{ type: 'job.snapshot', jobs: await expectedSnapshot(user.id) }]);
    await socket.close();
  });

  test(`${db}: a sync during live traffic loses, repeats and reorders nothing`, async (t) => {
    const user = await signedUp();
    const total = 150;
    let published = 0;
    const publishing = (async () => {
      for (let value = 1; value <= total; value++) {
        await publish(user.id, progress('live', value, total));
        published = value;
        if (value % 10 === 0) await delay(5);
      }
    })();
    while (published < 30) await delay(2);
    const socket = await connectWs(wsUrl, { cookie: user.token });
    while (published < 60) await delay(2);
    socket.send({ type: 'sync', since: 0 });
    await publishing;
    const trace = () => socket.messages.map((m) => m.seq ?? m.type).join(',');
    await socket.waitFor((m) => m.seq === total).catch(() => { throw new Error(`last event: ${trace()}`); });
    await socket.waitFor((m) => m.type === 'job.snapshot').catch(() => { throw new Error(`snapshot: ${trace()}`); });
    await delay(SETTLE_MS);

    // Live events may arrive before the sync is handled; from the replay's first event on, the stream is exact.
    const start = socket.messages.findIndex((m) => m.seq === 1);
    t.true(start >= 0, 'the replay started at seq 1');
    const afterSync = socket.messages.slice(start);
    t.deepEqual(seqsOf(afterSync), range(1, total));
    t.true(afterSync.filter(isEvent).every((m) => m.value === m.seq));
    t.is(afterSync.filter((m) => m.type === 'job.snapshot').length, 1);
    await socket.close();
  });

  test(`${db}: malformed messages get an error reply and the socket stays open`, async (t) => {
    const user = await signedUp();
    const socket = await connectWs(wsUrl, { cookie: user.token });
    const bad: unknown[] = ['not json', '[1,2]', { kind: 'sync' }, { type: 'subscribe' }, { type: 'sync', since: -1 }, { type: 'sync', since: '3' }, { type: 'sync', since: 1.5 }];
    for (const message of bad) socket.send(message);
    socket.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    const errors = await socket.waitForCount((m) => m.type === 'error', bad.length + 1);
    t.true(errors.every((m) => typeof m.message === 'string' && (m.message as string).length > 0));
    t.deepEqual(Object.keys(errors[0]!).sort(), ['message', 'type']);
    t.is(socket.ws.readyState, WebSocket.OPEN);
    socket.send({ type: 'sync', since: null });
    t.deepEqual(await socket.waitFor((m) => m.type === 'job.snapshot'), { type: 'job.snapshot', jobs: await expectedSnapshot(user.id) });
    await socket.close();
  });

  test(`${db}: a client that stops answering pings is dropped; one that answers stays`, async (t) => {
    const user = await signedUp();
    const frozen = await connectWs(wsUrl, { cookie: user.token, autoPong: false });
    const healthy = await connectWs(wsUrl, { cookie: user.token });
    const code = await Promise.race([frozen.closed, delay(6000).then(() => 'still open')]);
    t.is(code, 1006, 'terminated without a close frame');
    t.is(healthy.ws.readyState, WebSocket.OPEN);
    await publish(user.id, { type: 'job.started', jobId: 'x' });
    t.is((await healthy.waitFor(isEvent)).type, 'job.started');
    await healthy.close();
  });

  test(`${db}: stopping the app closes every socket (1001) and does not hang`, async (t) => {
    const own = await startTestApp(db, { CORS_ORIGINS: ALLOWED_ORIGIN }, {
      beforeStart({ container }) {
        if (!container.isBound(TOKENS.ActiveJobsSnapshot)) container.bind(TOKENS.ActiveJobsSnapshot).toConstantValue(fakeSnapshot);
      },
    });
    const client = own.client();
    await client.signUp();
    const sockets: WsTestClient[] = [];
    for (let i = 0; i < 3; i++) sockets.push(await connectWs(`ws://127.0.0.1:${own.port}/api/v1/ws`, { cookie: client.cookies.get('access_token')! }));
    const started = Date.now();
    await own.close();
    t.true(Date.now() - started < 5000, `stop took ${Date.now() - started} ms`);
    t.deepEqual(await Promise.all(sockets.map((s) => s.closed)), [1001, 1001, 1001]);
  });
}
