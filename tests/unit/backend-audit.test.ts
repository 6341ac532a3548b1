/**
 * Guards of adapters and services that had few entries (audit `backend-audit`): the single-use states' record
 * checks, the memory store's transactions (nesting refused, tables outside transactions, after-commit work),
 * the memory event log's copies, the plain SQL readers (read-only, statements finalized before closing, UTC
 * dates on MariaDB), the traced engine (no slot wait or release it does not have), the web app router and the
 * HEALTH_PORT listener.
 */
// The MariaDB reader must read DATETIMEs as UTC whatever the process's zone: run in one far from UTC.
process.env.TZ = 'Pacific/Auckland';

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import express from 'express';
import sqlite3 from 'sqlite3';
import { createHealthProbeServer } from '../../adapters/http/health-probe-server.ts';
import { webAppRouter } from '../../adapters/http/web-app.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryNestedTransactionError, MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUserEventStore } from '../../adapters/memory/memory-user-event-store.ts';
import { TracedWorkflowEngine } from '../../adapters/opentelemetry/traced-workflow-engine.ts';
import { MysqlPlainReader, SqlitePlainReader } from '../../adapters/sequelize/plain-reader.ts';
import type { UserEvent } from '../../core/ports/user-events.port.ts';
import type { EngineRunResult, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { SingleUseStates } from '../../core/use-cases/single-use-states.service.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { ObjectInfo } from '../../core/domain/object-info.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import { CreateTemplate } from '../../core/use-cases/templates/create-template.use-case.ts';
import { RecheckTemplates } from '../../core/use-cases/templates/recheck-templates.use-case.ts';
import { randomUUID } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { SpanStatusCode } from '@opentelemetry/api';
import { TracedUnitOfWork } from '../../adapters/opentelemetry/traced-unit-of-work.ts';
import type { OutgoingMessage } from '../../core/ports/queue.port.ts';
import { createMariaDatabase, DATABASES } from '../support/databases.ts';

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const closeServer = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

// --- SingleUseStates ---

interface Pending {
  state: string;
  userId: string;
}

const states = (cache: MemoryCache) =>
  new SingleUseStates<Pending>(cache, { prefix: 'audit', ttlSeconds: 60, isComplete: (record) => typeof record.userId === 'string' });

test('single-use states: a saved complete record is taken once', async (t) => {
  const store = states(new MemoryCache());
  await store.save({ state: 's1', userId: 'u1' });
  t.deepEqual(await store.take('s1'), { state: 's1', userId: 'u1' });
  t.is(await store.take('s1'), null);
});

test('single-use states: an incomplete record is not handed out', async (t) => {
  const store = states(new MemoryCache());
  await store.save({ state: 's2' } as Pending);
  t.is(await store.take('s2'), null);
});

test('single-use states: a record stored under a state that is not its own is not handed out', async (t) => {
  const cache = new MemoryCache();
  await cache.set('audit:pending:s3', JSON.stringify({ state: 'other', userId: 'u1' }), 60);
  t.is(await states(cache).take('s3'), null);
});

// --- MemoryStore ---

/** The outcome of `work`, or 'still waiting' when it has not settled within a second (a deadlock). */
const settled = async <T>(work: Promise<T>): Promise<{ value: T } | { error: unknown } | 'still waiting'> => {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 1000)));
  try {
    return await Promise.race([work.then((value) => ({ value }), (error: unknown) => ({ error })), wait]);
  } finally {
    clearTimeout(timer);
  }
};

test('memory store: a transaction started inside another is refused at once (not a deadlock)', async (t) => {
  const store = new MemoryStore();
  const outcome = await store.transaction(async () => settled(store.transaction(async () => 'inner ran')));
  t.true(typeof outcome === 'object' && 'error' in outcome && outcome.error instanceof MemoryNestedTransactionError, JSON.stringify(outcome));
});

test('memory store: a rollback leaves a table outside transactions as it was changed, and restores the others', async (t) => {
  const store = new MemoryStore();
  const queue = store.table<string>('audit_queue', { transactional: false });
  const rows = store.table<string>('audit_rows');
  await t.throwsAsync(
    store.transaction(async () => {
      queue.set('m1', 'published');
      rows.set('r1', 'written');
      throw new Error('roll back');
    }),
    { message: 'roll back' },
  );
  t.deepEqual([...queue], [['m1', 'published']]);
  t.deepEqual([...rows], []);
});

test('memory store: work started outside a transaction from inside it (an after-commit hook) runs its own transaction', async (t) => {
  const store = new MemoryStore();
  let hook: Promise<string> | undefined;
  await store.transaction(async () => {
    hook = store.outside(() => store.transaction(async () => 'hook ran')).catch((error: unknown) => `refused: ${String(error)}`);
  });
  t.is(await hook, 'hook ran');
});

// --- MemoryUserEventStore ---

test('memory event log: what append and listSince return are copies (a caller changing them changes nothing stored)', async (t) => {
  const events = new MemoryUserEventStore(new MemoryStore());
  const appended = await events.append('u1', { type: 'job.status', jobId: 'j1', text: 'queued' } as UserEvent, new Date('2026-01-01T00:00:00Z'));
  (appended.event as { text: string }).text = 'changed by the caller';
  appended.createdAt.setTime(0);
  const listed = await events.listSince('u1', 0, 10);
  t.like(listed[0]!.event, { text: 'queued' });
  t.is(listed[0]!.createdAt.toISOString(), '2026-01-01T00:00:00.000Z');
  (listed[0]!.event as { text: string }).text = 'changed again';
  t.like((await events.listSince('u1', 0, 10))[0]!.event, { text: 'queued' });
});

test('memory event log: events at the purge time are kept, older ones removed', async (t) => {
  const events = new MemoryUserEventStore(new MemoryStore());
  await events.append('u1', { type: 'job.status', jobId: 'j1', text: 'old' } as UserEvent, new Date('2026-01-01T00:00:00Z'));
  await events.append('u1', { type: 'job.status', jobId: 'j1', text: 'edge' } as UserEvent, new Date('2026-01-01T00:01:00Z'));
  t.is(await events.purgeBefore(new Date('2026-01-01T00:01:00Z')), 1);
  t.deepEqual((await events.listSince('u1', 0, 10)).map((e) => [e.seq, (e.event as { text: string }).text]), [[2, 'edge']]);
});

// --- plain readers ---

const sqliteFile = async (): Promise<{ file: string; dir: string }> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'backend-audit-'));
  const file = path.join(dir, 'db.sqlite');
  const db = new sqlite3.Database(file);
  await new Promise<void>((resolve, reject) => db.exec("CREATE TABLE items (id TEXT PRIMARY KEY); INSERT INTO items VALUES ('a');", (error) => (error ? reject(error) : resolve())));
  await new Promise<void>((resolve) => db.close(() => resolve()));
  return { file, dir };
};

test('plain SQLite reader: reads, refuses writes (read-only handle), and closes after its statements ran', async (t) => {
  const { file, dir } = await sqliteFile();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const reader = new SqlitePlainReader(file);
  t.deepEqual(await reader.all('SELECT id FROM items WHERE id = ?', ['a']), [{ id: 'a' }]);
  const write = await t.throwsAsync(reader.all("INSERT INTO items VALUES ('b') RETURNING id", []));
  t.regex(String(write?.message), /SQLITE_READONLY/);
  await t.notThrowsAsync(reader.close());
});

if (DATABASES.includes('mariadb')) {
  test('plain MariaDB reader: a DATETIME reads back as that UTC instant, whatever the process time zone', async (t) => {
    const maria = await createMariaDatabase();
    const reader = new MysqlPlainReader(maria.url, 1);
    t.teardown(async () => {
      await reader.close();
      await maria.drop();
    });
    const [row] = await reader.all<{ at: Date }>("SELECT CAST('2024-01-02 03:04:05' AS DATETIME) AS at", []);
    t.true(row!.at instanceof Date);
    t.is(row!.at.toISOString(), '2024-01-02T03:04:05.000Z');
  });
}

// --- TracedWorkflowEngine ---

const bareEngine = (released: string[] | null): WorkflowEngine => ({
  run: async (): Promise<EngineRunResult> => ({ ok: true, files: [], texts: [] }),
  check: async () => undefined,
  close: async () => undefined,
  ...(released ? { release: async (runId: string) => void released.push(runId) } : {}),
});

test('traced engine: an engine without a slot wait has none when traced', (t) => {
  t.is(new TracedWorkflowEngine(bareEngine(null), 'builtin').reserve, undefined);
});

test('traced engine: release passes on to the engine, and is a no-op for an engine without one', async (t) => {
  const released: string[] = [];
  await new TracedWorkflowEngine(bareEngine(released), 'comfyui').release('run-1');
  t.deepEqual(released, ['run-1']);
  await t.notThrowsAsync(() => new TracedWorkflowEngine(bareEngine(null), 'builtin').release('run-2'));
});

// --- web app router ---

const webApp = async (t: import('ava').ExecutionContext, secure: boolean): Promise<string> => {
  const root = mkdtempSync(path.join(tmpdir(), 'backend-audit-web-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>client</title>');
  const app = express();
  app.use(webAppRouter(root, { secure, mediaOrigins: ['https://media.example.com'] }));
  app.use((_req, res) => void res.status(404).json({ fellThrough: true }));
  const server = createServer(app);
  const base = await listen(server);
  t.teardown(async () => {
    await closeServer(server);
    rmSync(root, { recursive: true, force: true });
  });
  return base;
};

test('web app: a POST to a client route falls through (no page); a GET asking for HTML gets the client', async (t) => {
  const base = await webApp(t, false);
  const page = await fetch(`${base}/history`, { headers: { accept: 'text/html' } });
  t.is(page.status, 200);
  t.regex(await page.text(), /<title>client<\/title>/);
  const post = await fetch(`${base}/history`, { method: 'POST', headers: { accept: 'text/html' } });
  t.is(post.status, 404);
  t.deepEqual(await post.json(), { fellThrough: true });
});

test('web app: HSTS only when secure', async (t) => {
  const insecure = await fetch(`${await webApp(t, false)}/`, { headers: { accept: 'text/html' } });
  t.is(insecure.headers.get('strict-transport-security'), null);
  const secure = await fetch(`${await webApp(t, true)}/`, { headers: { accept: 'text/html' } });
  t.regex(secure.headers.get('strict-transport-security') ?? '', /max-age=\d+/);
});

// --- HEALTH_PORT listener ---

test('health port: live answers GET only; a readiness that cannot be evaluated answers 500', async (t) => {
  const unreadable = new Proxy({}, { ownKeys: () => { throw new Error('checks unreadable'); } });
  const server = createHealthProbeServer(unreadable, 1000);
  const base = await listen(server);
  t.teardown(() => closeServer(server));
  const live = await fetch(`${base}/api/v1/health/live`);
  t.is(live.status, 200);
  t.deepEqual(await live.json(), { status: 'ok' });
  const posted = await fetch(`${base}/api/v1/health/live`, { method: 'POST' });
  t.is(posted.status, 404);
  t.like(await posted.json(), { statusCode: 404, message: 'No route for POST /api/v1/health/live' });
  const ready = await fetch(`${base}/api/v1/health/ready`);
  t.is(ready.status, 500);
  t.like(await ready.json(), { statusCode: 500, message: 'Readiness could not be evaluated' });
  t.is(ready.headers.get('cache-control'), 'no-store');
});

// --- RecheckTemplates ---

const objectInfo = (model: string): ObjectInfo => ({
  EmptyImage: { input: { required: { width: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], height: ['INT', { default: 512, min: 1, max: 16384, step: 1 }], batch_size: ['INT', { default: 1, min: 1, max: 4096 }], color: ['INT', { default: 0, min: 0, max: 16777215, step: 1 }] } }, output: ['IMAGE'] },
  SaveImage: { input: { required: { images: ['IMAGE'], filename_prefix: ['STRING', { default: 'ComfyUI' }] } }, output: [] },
  CheckpointLoaderSimple: { input: { required: { ckpt_name: [[model]] } }, output: ['MODEL', 'CLIP', 'VAE'] },
});

/** A memory template store holding one active template that needs a.safetensors, and a logger that keeps warnings. */
const recheckWorld = async () => {
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const templates = uow.autocommit.templates;
  const create = new CreateTemplate({ templates, uow, clock: { now: () => new Date() }, ids: { newId: () => randomUUID() }, rules: {} });
  const workflow = {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'test' } },
    '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } },
  };
  const created = await create.execute({ actorId: randomUUID(), fields: { name: 'Needs A', category: 'text-to-image', workflow, cost: 1, outputType: 'image' } });
  if (!created.ok) throw new Error(JSON.stringify(created));
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message, fields) => void warnings.push([message, fields]), child: () => logger };
  return { templates, warnings, logger };
};

test('template re-check: with no fleet known, nothing is reported', async (t) => {
  const { templates, warnings, logger } = await recheckWorld();
  const result = await new RecheckTemplates({ templates, nodes: { catalogues: async () => null }, logger }).execute();
  t.deepEqual(result, { ok: true, value: [] });
  t.deepEqual(warnings, []);
});

test('template re-check: a template only some servers can run is reported as runnable, with the servers that cannot', async (t) => {
  const { templates, warnings, logger } = await recheckWorld();
  const fleet: ServerCatalogue[] = [{ server: 1, objectInfo: objectInfo('a.safetensors') }, { server: 2, objectInfo: objectInfo('b.safetensors') }];
  const result = await new RecheckTemplates({ templates, nodes: { catalogues: async () => fleet }, logger }).execute();
  if (!result.ok) return t.fail();
  t.deepEqual(result.value.map((r) => [r.name, r.runnable, r.problems.map((p) => p.server)]), [['Needs A', true, [2]]]);
  t.deepEqual(warnings.map(([message, fields]) => [message, fields?.['name'], fields?.['servers']]), [['template cannot run on some engine servers', 'Needs A', [2]]]);
});

// --- TracedUnitOfWork ---

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const OWN_TRACE = { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' };

test.serial('traced unit of work: an outbox message is stamped with the caller\'s trace, and one that carries its own keeps it', async (t) => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  t.teardown(() => {
    context.disable();
    propagation.disable();
  });
  const memory = new MemoryUnitOfWork(new MemoryStore());
  const uow = new TracedUnitOfWork(memory);
  const message = (trace?: Record<string, string>): OutgoingMessage => ({ taskType: 'generate', body: {}, ...(trace ? { trace } : {}) }) as OutgoingMessage;
  const caller = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
  await context.with(caller, () =>
    uow.run(async (tx) => {
      await tx.outbox.add({ id: 'plain', message: message(), createdAt: new Date() });
      await tx.outbox.add({ id: 'own', message: message(OWN_TRACE), createdAt: new Date() });
    }),
  );
  const leased = await memory.outbox.lease(10, { token: 't', until: new Date(Date.now() + 60_000) }, new Date());
  const traceOf = new Map(leased.map((entry) => [entry.id, entry.message.trace]));
  t.deepEqual(traceOf.get('plain'), { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` });
  t.deepEqual(traceOf.get('own'), OWN_TRACE);
});

// --- TracedWorkflowEngine spans ---

test.serial("traced engine: a failed run's span is an error with its outcome; a slot wait says whether it got a slot", async (t) => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  t.teardown(() => trace.disable());
  const outcomes: EngineRunResult[] = [
    { ok: false, error: { code: 'ENGINE.EXECUTION', message: 'node 3 failed' } as never, transient: false },
    { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'down' } as never, transient: true },
    { ok: true, files: [], texts: [] },
  ];
  const slots = [null, { id: 'slot' }];
  const engine: WorkflowEngine = {
    run: async () => outcomes.shift()!,
    reserve: async () => slots.shift() as never,
    check: async () => undefined,
    close: async () => undefined,
  };
  const traced = new TracedWorkflowEngine(engine, 'comfyui');
  for (const runId of ['r1', 'r2', 'r3']) await traced.run({ runId, jobId: `job-${runId}` } as never);
  for (const jobId of ['j1', 'j2']) await traced.reserve!({ jobId } as never);
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const runs = spans.filter((span) => span.name === 'engine run comfyui').map((span) => [span.attributes['engine.run_id'], span.attributes['engine.outcome'], span.status.code, span.status.message]);
  t.deepEqual(runs, [
    ['r1', 'failed', SpanStatusCode.ERROR, 'ENGINE.EXECUTION'],
    ['r2', 'failed_transient', SpanStatusCode.ERROR, 'ENGINE.UNAVAILABLE'],
    ['r3', 'succeeded', SpanStatusCode.UNSET, undefined],
  ]);
  const waits = spans.filter((span) => span.name === 'engine slot comfyui').map((span) => [span.attributes['job.id'], span.attributes['engine.slot']]);
  t.deepEqual(waits, [['j1', 'none'], ['j2', 'given']]);
});
