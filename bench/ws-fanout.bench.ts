/**
 * WebSocket fan-out: the real application (API role, SQLite, in-process bus) with 1,000 open sockets
 * (10 users × 100 sockets) in this one process. Progress events are first published through the
 * UserEventLog (SQLite append in a transaction, bus after commit: what a worker does), then straight on the bus (the
 * gateway's fan-out alone). Every socket checks it gets each of its user's events exactly once, in seq
 * order; latency is publish call → message parsed by the client. Prints one JSON line.
 *
 * Run: node --expose-gc --import tsx bench/ws-fanout.bench.ts   (without --expose-gc the memory
 * figures are taken without a forced GC and are noisier).
 * Memory per socket is the heap/RSS growth from opening the sockets divided by their number; both
 * ends of each connection live in this process, so it is the cost of a server socket plus a client.
 * The same figure for 1,000 connections to a bare `ws` server (no auth, no registry) comes first, so
 * the difference is what the gateway adds per socket.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { buildApplication } from '../bootstrap/app.ts';
import { loadConfig } from '../bootstrap/config.ts';
import { resolve, TOKENS } from '../bootstrap/tokens.ts';
import type { Logger } from '../core/ports/logger.port.ts';
import { USER_EVENTS_CHANNEL, type EventBus, type UserEventEnvelope } from '../core/ports/user-events.port.ts';
import type { UserEvent } from '../core/ports/user-events.port.ts';

const USERS = 10;
const SOCKETS_PER_USER = 100;
/** Phase 1 (end to end: UserEventLog = SQLite append + bus after commit) and phase 2 (bus only: the gateway's fan-out). One event per user per round. */
const STORED_ROUNDS = 60;
const BUS_ROUNDS = 100;
/** Bus rounds are paced (10 per second: 100 events/s, 10,000 deliveries/s) so latency is measured under a steady load, not a flood's queue. */
const BUS_ROUND_MS = 100;
const ROUNDS = STORED_ROUNDS + BUS_ROUNDS;
const DRAIN_TIMEOUT_MS = 20_000;

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const gc = (globalThis as { gc?: () => void }).gc;
const memory = async () => {
  if (gc) {
    for (let i = 0; i < 3; i++) {
      gc();
      await delay(20);
    }
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
};
const percentile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Heap growth per connection for a bare ws server and plain clients in this process. */
const bareConnectionCost = async (count: number) => {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, clientTracking: false });
  const held: WebSocket[] = [];
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => held.push(ws)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  const start = await memory();
  const clients: WebSocket[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, () => new WebSocket(`ws://127.0.0.1:${port}/`));
    clients.push(...batch);
    await Promise.all(batch.map((ws) => new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)))));
  }
  const end = await memory();
  for (const ws of clients) ws.terminate();
  for (const ws of held) ws.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { heap: (end.heapUsed - start.heapUsed) / count, rss: (end.rss - start.rss) / count };
};
const bare = await bareConnectionCost(USERS * SOCKETS_PER_USER);

const dataDir = mkdtempSync(path.join(tmpdir(), 'ws-fanout-'));
const loaded = loadConfig({
  APP_ENV: 'local',
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  ROLES: 'api',
  JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-0000',
  // Every bench user signs up from 127.0.0.1.
  REGISTER_MAX_PER_ADDRESS: '100000',
});
if (!loaded.ok) throw new Error(loaded.problems.join('; '));
const app = buildApplication(loaded.config, { logger: quiet });
const { port } = await app.start();
const base = `http://127.0.0.1:${port}/api/v1`;
const uow = resolve(app.container, TOKENS.UnitOfWork);
const log = resolve(app.container, TOKENS.UserEventLog);
const bus: EventBus = resolve(app.container, TOKENS.EventBus);

const tokens: { userId: string; token: string }[] = [];
for (let i = 0; i < USERS; i++) {
  const email = `bench-${i}-${Date.now()}@example.com`;
  const body = JSON.stringify({ email, password: 'correct horse battery', displayName: `Bench ${i}` });
  const headers = { 'content-type': 'application/json' };
  const registered = await fetch(`${base}/auth/register`, { method: 'POST', headers, body });
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers, body });
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('access_token='));
  if (!cookie) throw new Error(`login: ${login.status}`);
  tokens.push({ userId: ((await login.json()) as { user: { id: string } }).user.id, token: cookie.slice('access_token='.length).split(';')[0]! });
}

/** Per socket: next expected seq; all latencies in one preallocated array. */
const expectedDeliveries = USERS * SOCKETS_PER_USER * ROUNDS;
const latencies = new Float64Array(expectedDeliveries);
let delivered = 0;
let outOfOrder = 0;
let extra = 0;

const before = await memory();
const sockets: WebSocket[] = [];
const opened = performance.now();
for (const { token } of tokens) {
  const batch: Promise<void>[] = [];
  for (let s = 0; s < SOCKETS_PER_USER; s++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/ws`, { headers: { authorization: `Bearer ${token}` } });
    let next = 1;
    ws.on('message', (raw) => {
      const received = performance.now();
      const message = JSON.parse(raw.toString()) as { seq?: number; t?: number };
      if (typeof message.seq !== 'number') return;
      if (message.seq !== next) outOfOrder++;
      next = message.seq + 1;
      if (delivered < expectedDeliveries) latencies[delivered++] = received - message.t!;
      else extra++;
    });
    sockets.push(ws);
    batch.push(new Promise((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject))));
  }
  await Promise.all(batch);
}
const openMs = performance.now() - opened;
const after = await memory();

/** Publishes `rounds` rounds (one event per user each, a round every `paceMs` at most) and waits for every delivery. */
const phase = async (rounds: number, send: (userId: string, round: number) => Promise<unknown>, paceMs = 0) => {
  const from = delivered;
  const target = delivered + rounds * USERS * SOCKETS_PER_USER;
  const started = performance.now();
  for (let round = 1; round <= rounds; round++) {
    await Promise.all(tokens.map(({ userId }) => send(userId, round)));
    const wait = started + round * paceMs - performance.now();
    if (wait > 0) await delay(wait);
  }
  const publishMs = performance.now() - started;
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (delivered < target && performance.now() < deadline) await delay(5);
  const totalMs = performance.now() - started;
  const sorted = latencies.slice(from, delivered).sort();
  return {
    events: rounds * USERS,
    delivered: delivered - from,
    publishMs: Math.round(publishMs),
    eventsPerSecond: Math.round((rounds * USERS) / (publishMs / 1000)),
    deliveriesPerSecond: Math.round((delivered - from) / (totalMs / 1000)),
    latencyMs: { p50: round2(percentile(sorted, 50)), p99: round2(percentile(sorted, 99)), max: round2(sorted[sorted.length - 1] ?? NaN) },
  };
};
// `t` rides along (events are JSON) so the client can time each delivery.
const progress = (value: number) => ({ type: 'job.progress', jobId: 'bench-job', value, max: ROUNDS, t: performance.now() }) as unknown as UserEvent;

// What a worker does: record the event in a transaction (SQLite), fanned out after the commit.
const endToEnd = await phase(STORED_ROUNDS, (userId, round) => uow.run((tx) => log.record(tx, userId, progress(round))));
const busOnly = await phase(BUS_ROUNDS, (userId, round) => {
  const seq = STORED_ROUNDS + round;
  const envelope: UserEventEnvelope = { userId, seq, event: progress(seq), createdAt: new Date().toISOString() };
  return bus.publish(USER_EVENTS_CHANNEL, envelope);
}, BUS_ROUND_MS);

const result = {
  bench: 'ws-fanout',
  node: process.version,
  database: 'sqlite',
  users: USERS,
  sockets: sockets.length,
  expectedDeliveries,
  delivered,
  missing: expectedDeliveries - delivered,
  extra,
  outOfOrder,
  openSocketsMs: Math.round(openMs),
  endToEnd,
  busOnly,
  heapPerSocketBytes: Math.round((after.heapUsed - before.heapUsed) / sockets.length),
  rssPerSocketBytes: Math.round((after.rss - before.rss) / sockets.length),
  bareWsHeapPerSocketBytes: Math.round(bare.heap),
  gatewayHeapOverheadPerSocketBytes: Math.round((after.heapUsed - before.heapUsed) / sockets.length - bare.heap),
  gcForced: Boolean(gc),
  memoryNote: 'server and client end of each connection, same process',
};
await app.stop();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify(result));
process.exit(result.missing === 0 && result.outOfOrder === 0 && result.extra === 0 ? 0 : 1);
