/**
 * The ComfyUI engine as generation.module.ts builds it from the configuration: each COMFYUI_* setting must reach the
 * engine adapter. The application is built (not started) with ENGINE_DRIVER=comfyui against small stand-in ComfyUI
 * servers, and each setting is observed by what the engine does: which servers it reads and in which order (COMFYUI_URLS),
 * the credentials it sends (COMFYUI_TOKEN), how long it waits for a silent server (COMFYUI_TIMEOUT_MS), how many jobs
 * share a server (COMFYUI_JOBS_PER_SERVER), how long a job waits while no server is up (COMFYUI_WAIT_MS), how soon a
 * failed server is tried again (COMFYUI_PROBE_MS) and how often the catalogues are read again (COMFYUI_CATALOG_REFRESH_MS).
 * Last, the templates module hands the same fleet to publishing: a draft no server can run any more is not published.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { buildApplication } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { ComfyEngine } from '../../adapters/comfyui/comfy-engine.ts';
import type { EngineSlot } from '../../core/ports/workflow-engine.port.ts';
import { silentLogger, startTestApp } from '../support/test-app.ts';

/** A stand-in ComfyUI server: answers /system_stats, /object_info and /queue; `mode` makes it fail (500) or hang. */
interface StandIn {
  url: string;
  mode: 'up' | 'down' | 'hang';
  objectInfo: Record<string, unknown>;
  seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

const info = (marker: string) => ({ [`Node${marker}`]: { input: { required: {} }, output: [], output_name: [], name: `Node${marker}`, display_name: marker, category: 'audit', output_node: false } });

async function standIn(t: ExecutionContext, marker: string): Promise<StandIn> {
  const state = { mode: 'up' as StandIn['mode'], objectInfo: info(marker) as Record<string, unknown>, seen: [] as IncomingHttpHeaders[] };
  const server: Server = createServer((req, res) => {
    state.seen.push(req.headers);
    if (state.mode === 'hang') return;
    if (state.mode === 'down') {
      res.writeHead(500).end('down');
      return;
    }
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/system_stats') return json({ system: { comfyui_version: '0.3.0' }, devices: [] });
    if (req.url === '/object_info') return json(state.objectInfo);
    if (req.url === '/queue') return json({ queue_running: [], queue_pending: [] });
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const handle: StandIn = Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  });
  t.teardown(() => handle.close());
  return handle;
}

/** The engine the application binds for this configuration (built, not started). */
function engineOf(t: ExecutionContext, env: Record<string, string>): ComfyEngine {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-unexamined-'));
  const loaded = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SEED_TEMPLATES: 'false', JWT_SECRET: 'unexamined-audit-secret-long-enough-for-hs256', ROLES: 'worker', ENGINE_DRIVER: 'comfyui', ...env });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const app = buildApplication(loaded.config, { logger: silentLogger });
  const engine = resolve(app.container, TOKENS.Engine) as unknown as ComfyEngine;
  t.teardown(async () => {
    await engine.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return engine;
}

const SLOW = Symbol('slow');
/** `promise`, or SLOW when it takes longer than `ms`. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | typeof SLOW> =>
  Promise.race([promise, new Promise<typeof SLOW>((done) => setTimeout(() => done(SLOW), ms).unref())]);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A slot request for a job whose workflow any server can run (no node classes the catalogue must have... none). */
const request = (signal: AbortSignal) => ({ jobId: randomUUID(), userId: randomUUID(), workflow: {}, signal });

test.serial('COMFYUI_URLS and COMFYUI_TOKEN: every server in its order, each asked with the bearer token', async (t) => {
  const [a, b] = [await standIn(t, 'A'), await standIn(t, 'B')];
  const engine = engineOf(t, { COMFYUI_URLS: `${b.url},${a.url}`, COMFYUI_TOKEN: 'audit-token' });
  const fleet = await engine.catalogues();
  t.deepEqual(fleet, [
    { server: 1, objectInfo: info('B') },
    { server: 2, objectInfo: info('A') },
  ]);
  t.true(a.seen.length > 0 && b.seen.length > 0);
  for (const headers of [...a.seen, ...b.seen]) t.is(headers.authorization, 'Bearer audit-token');
});

test.serial('COMFYUI_TIMEOUT_MS: a server that never answers is given up after the configured time', async (t) => {
  const [up, silent] = [await standIn(t, 'A'), await standIn(t, 'B')];
  silent.mode = 'hang';
  const engine = engineOf(t, { COMFYUI_URLS: `${up.url},${silent.url}`, COMFYUI_TIMEOUT_MS: '1000' });
  const fleet = await within(engine.catalogues(), 6_000);
  t.not(fleet, SLOW, 'the catalogues are read within 6 s (the default timeout is 30 s)');
  t.deepEqual(fleet, [
    { server: 1, objectInfo: info('A') },
    { server: 2, objectInfo: null },
  ]);
});

test.serial('COMFYUI_JOBS_PER_SERVER: that many jobs run on one server at once, the next one waits', async (t) => {
  const server = await standIn(t, 'A');
  const engine = engineOf(t, { COMFYUI_URLS: server.url, COMFYUI_JOBS_PER_SERVER: '2' });
  const held: EngineSlot[] = [];
  for (let i = 0; i < 2; i++) {
    const slot = await within(engine.reserve(request(new AbortController().signal)), 4_000);
    t.truthy(slot !== SLOW && slot, `slot ${i + 1} of 2 given at once`);
    if (slot !== SLOW && slot) held.push(slot);
  }
  const third = await engine.reserve(request(AbortSignal.timeout(600)));
  t.is(third, null, 'a third job waits for a slot (given up when its wait is aborted)');
  for (const slot of held) slot.release();
});

test.serial('COMFYUI_WAIT_MS: with no server up, a job gives up waiting after the configured time', async (t) => {
  const server = await standIn(t, 'A');
  server.mode = 'down';
  const engine = engineOf(t, { COMFYUI_URLS: server.url, COMFYUI_WAIT_MS: '300' });
  const started = Date.now();
  const slot = await within(engine.reserve(request(new AbortController().signal)), 4_000);
  t.is(slot, null, 'no slot, and the wait ends by itself (the default is 60 s)');
  t.true(Date.now() - started >= 250, 'it did wait');
});

test.serial('COMFYUI_PROBE_MS: a failed server is tried again within the configured pause, however often it failed', async (t) => {
  const server = await standIn(t, 'A');
  server.mode = 'down';
  const engine = engineOf(t, { COMFYUI_URLS: server.url, COMFYUI_PROBE_MS: '100', COMFYUI_WAIT_MS: '60000' });
  const waiting = engine.reserve(request(AbortSignal.timeout(8_000)));
  // Three failed probes: without the setting the pause after the third is 2 s (0.5, 1, 2 s...); with it, 0.1 s.
  for (let i = 0; i < 200 && server.seen.length < 3; i++) await sleep(25);
  t.true(server.seen.length >= 3);
  server.mode = 'up';
  const back = Date.now();
  const slot = await within(waiting, 8_000);
  t.truthy(slot !== SLOW && slot, 'the job gets its slot');
  t.true(Date.now() - back < 1_100, `the server was tried again within ${Date.now() - back} ms of its return`);
  if (slot !== SLOW && slot) slot.release();
});

test.serial('COMFYUI_CATALOG_REFRESH_MS: the catalogues are read again at the configured period', async (t) => {
  const server = await standIn(t, 'A');
  const engine = engineOf(t, { COMFYUI_URLS: server.url, COMFYUI_CATALOG_REFRESH_MS: '200' });
  t.deepEqual(await engine.catalogues(), [{ server: 1, objectInfo: info('A') }]);
  server.objectInfo = info('A2');
  let fleet = await engine.catalogues();
  for (let i = 0; i < 40 && JSON.stringify(fleet) !== JSON.stringify([{ server: 1, objectInfo: info('A2') }]); i++) {
    await sleep(100);
    fleet = await engine.catalogues();
  }
  t.deepEqual(fleet, [{ server: 1, objectInfo: info('A2') }], 'the new catalogue is read within 4 s (the default period is 60 s)');
});

/** A server's /object_info with EmptyImage, SaveImage and a checkpoint loader offering `models`. */
const fleetInfo = (models: string[]) => ({
  EmptyImage: { input: { required: { width: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], batch_size: ['INT', { default: 1, min: 1, max: 4096 }], color: ['INT', { default: 0, min: 0, max: 16777215, step: 1 }] } }, output: ['IMAGE'] },
  SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'ComfyUI' }] } }, output: [] },
  CheckpointLoaderSimple: { input: { required: { ckpt_name: [models] } }, output: ['MODEL', 'CLIP', 'VAE'] },
});

test.serial('templates module: publishing is checked against the ComfyUI fleet (a draft no server can run any more stays a draft)', async (t) => {
  const server = await standIn(t, 'A');
  server.objectInfo = fleetInfo(['a.safetensors']);
  const ADMIN = 'admin@example.com';
  const app = await startTestApp('sqlite', { ROLES: 'api', ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: server.url, COMFYUI_CATALOG_REFRESH_MS: '200', ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false' });
  t.teardown(() => app.close());
  const admin = app.client();
  await admin.signUp({ email: ADMIN });
  const workflow = {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
    '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } },
  };
  const created = await admin.post('/workflow-templates', { name: 'Fleet audit', category: 'text-to-image', workflow, cost: 1, outputType: 'image' });
  t.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id as string;
  const mapped = await admin.put(`/workflow-templates/${id}/parameter-map`, { prompt: { key: 'prompt', type: 'string', node_id: '2', input_name: 'filename_prefix' } });
  t.is(mapped.status, 200, JSON.stringify(mapped.body));

  // The server restarts without model a; the catalogue is read again within the refresh period.
  server.objectInfo = fleetInfo(['b.safetensors']);
  let problems: unknown[] = [];
  for (let i = 0; i < 30 && problems.length === 0; i++) {
    await sleep(100);
    problems = ((await admin.get(`/workflow-templates/${id}`)).body.problems as unknown[] | undefined) ?? [];
  }
  t.is(problems.length, 1, 'the template view shows the new problem');
  const refused = await admin.post(`/templates/${id}/publish`, {});
  t.is(refused.status, 400, JSON.stringify(refused.body));
  t.like(refused.body, { message: 'No engine server can run this workflow' });
  t.is((await admin.get(`/workflow-templates/${id}`)).body.publishedAt, null, 'still a draft');
});

/** Which of the waiting reservations gets the next free slot (the others are given up when the test ends). */
const firstOf = (waiting: Record<string, Promise<EngineSlot | null>>): Promise<[string, EngineSlot]> =>
  Promise.race(Object.entries(waiting).map(([name, slot]) => slot.then((got) => (got ? ([name, got] as [string, EngineSlot]) : new Promise<never>(() => undefined)))));

/** A job that loads checkpoint `ckpt`, for user `userId`. */
const loading = (userId: string, ckpt: string, signal: AbortSignal) => ({ jobId: randomUUID(), userId, workflow: { '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } } }, signal });

test.serial('COMFYUI_DISPATCH=shortest-queue: a free slot goes to the job that came first, not to the user served least recently', async (t) => {
  const server = await standIn(t, 'A');
  const engine = engineOf(t, { COMFYUI_URLS: server.url, COMFYUI_DISPATCH: 'shortest-queue' });
  const done = new AbortController();
  t.teardown(() => done.abort());
  const [x, y] = [randomUUID(), randomUUID()];
  const held = await engine.reserve({ ...request(done.signal), userId: x });
  if (!held) return t.fail('no first slot');
  const waiting = { 'x again': engine.reserve({ ...request(done.signal), userId: x }), y: engine.reserve({ ...request(done.signal), userId: y }) };
  await sleep(300);
  held.release();
  const [winner, slot] = await firstOf(waiting);
  t.is(winner, 'x again', 'arrival order (fair would serve user y, never served, first)');
  slot.release();
});

test.serial('COMFYUI_AFFINITY_WAIT_MS: a job passed over for one whose model is loaded waits no longer than the setting', async (t) => {
  const server = await standIn(t, 'A');
  server.objectInfo = fleetInfo(['m1.safetensors', 'm2.safetensors']);
  const engine = engineOf(t, { COMFYUI_URLS: server.url, COMFYUI_AFFINITY_WAIT_MS: '0' });
  const done = new AbortController();
  t.teardown(() => done.abort());
  const [x, y] = [randomUUID(), randomUUID()];
  const first = await engine.reserve(loading(x, 'm1.safetensors', done.signal));
  if (!first) return t.fail('no first slot');
  // y's job needs another model; x's second job finds m1 loaded and is taken first (y is passed over).
  const round1 = { y: engine.reserve(loading(y, 'm2.safetensors', done.signal)), 'x second': engine.reserve(loading(x, 'm1.safetensors', done.signal)) };
  await sleep(300);
  first.release();
  const [taken, second] = await firstOf(round1);
  t.is(taken, 'x second', 'the loaded model goes first');
  // Another m1 job of x arrives; y has waited past COMFYUI_AFFINITY_WAIT_MS (0): it goes next (the default would wait 15 s).
  const round2 = { y: round1.y, 'x third': engine.reserve(loading(x, 'm1.safetensors', done.signal)) };
  await sleep(300);
  second.release();
  const [next, slot] = await firstOf(round2);
  t.is(next, 'y');
  slot.release();
});
