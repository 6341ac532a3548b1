/**
 * Guards of the ComfyUI engine adapter (adapters/comfyui/comfy-engine.ts) against the protocol stand-in: what a rejection
 * says, which earlier prompt an attempt adopts, when it submits nothing, and how odd answers of a server are taken.
 * Faults are injected through the engine's `fetch` option (it carries every HTTP call) or a counting proxy.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineRunRequest, EngineRunResult } from '../../core/ports/workflow-engine.port.ts';
import { ComfyEngine, type ComfyEngineOptions } from '../../adapters/comfyui/comfy-engine.ts';
import { imageAndText, longBlur } from '../contract/workflow-engine.contract.ts';
import { proxyFor, standInFor, startComfyProtocolServer, type StartedComfyServer } from '../support/comfy-protocol-server.ts';
import { gateNode } from '../support/gate-node.ts';

type Teardown = { teardown(fn: () => Promise<void> | void): void };

const FAST: Omit<ComfyEngineOptions, 'urls'> = { timeoutMs: 10_000, jobsPerServer: 1, unavailableWaitMs: 8000, pollMs: 50, baseBackoffMs: 100, maxBackoffMs: 400, catalogueRefreshMs: 0 };

const server = standInFor;
const proxied = proxyFor;

const engineFor = (t: Teardown, urls: string[], options: Partial<ComfyEngineOptions> = {}): ComfyEngine => {
  const engine = new ComfyEngine({ ...FAST, ...options, urls });
  t.teardown(() => engine.close());
  return engine;
};

const request = (workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}): EngineRunRequest => ({ runId: randomUUID(), workflow, inputs: [], onEvent: () => undefined, ...extra });

/** The promise's value, or 'still waiting' after `ms` (a guard whose loss only hangs fails an assertion, not ava's timeout). */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

/** A fetch that answers `path` (method and path, query included, e.g. "GET /queue") with `answer`'s response when it gives one. */
const answering =
  (answer: (call: string, real: () => Promise<Response>) => Promise<Response | undefined> | Response | undefined): typeof fetch =>
  async (input, init) => {
    const url = new URL(String(input));
    const real = () => fetch(input, init);
    return (await answer(`${init?.method ?? 'GET'} ${url.pathname}${url.search}`, real)) ?? real();
  };

const json = (body: unknown, status = 200): Response => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const historyIds = async (target: StartedComfyServer): Promise<string[]> => Object.keys((await (await fetch(`${target.url}/history`)).json()) as object);

const failed = (result: EngineRunResult | 'still waiting') => (result !== 'still waiting' && !result.ok ? { ...result.error, transient: result.transient } : result);

// Pins: a rejected prompt is ENGINE.VALIDATION whatever its node_errors hold; a rejection without node errors names no
// node and reads as the server's message (with its details); node errors missing fields read as empty, never "undefined".
test.serial('a rejection without node errors names no node; node errors missing their fields are read as empty', async (t) => {
  const target = await server(t);
  const noOutputs: WorkflowGraph = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } };
  const plain = await engineFor(t, [target.url]).run(request(noOutputs));
  t.deepEqual(failed(plain), { code: 'ENGINE.VALIDATION', message: 'Prompt has no outputs', nodeErrors: {}, transient: false });

  let answer: unknown;
  const engine = engineFor(t, [target.url], { fetch: answering((call) => (call === 'POST /prompt' ? json(answer, 400) : undefined)) });
  answer = { error: { message: 'Bad prompt', details: 'why' }, node_errors: {} };
  t.deepEqual(failed(await within(engine.run(request(imageAndText(1))), 20_000)), { code: 'ENGINE.VALIDATION', message: 'Bad prompt: why', nodeErrors: {}, transient: false });
  answer = { error: {}, node_errors: { '7': {}, '8': { class_type: 'SaveImage', errors: [{ message: 'no images' }, { type: 'x', message: 'bad', details: 'd' }, { type: 'y' }] } } };
  t.deepEqual(failed(await within(engine.run(request(imageAndText(1))), 20_000)), {
    code: 'ENGINE.VALIDATION',
    message: 'Prompt rejected. node #7:  | SaveImage #8: no images; bad: d; ',
    nodeId: '7',
    nodeErrors: {
      '7': { classType: '', errors: [] },
      '8': { classType: 'SaveImage', errors: [{ type: '', message: 'no images', details: '' }, { type: 'x', message: 'bad', details: 'd' }, { type: 'y', message: '', details: '' }] },
    },
    transient: false,
  });
  t.deepEqual(await historyIds(target), [], 'nothing ran');
});

// Pins: only an attempt that supersedes another adopts anything: a new attempt of a job that already ran runs again
// (and each run gives its slot back: the second run is not left waiting for the first one's).
test.serial('an attempt that supersedes nothing runs its prompt, though its job already ran one', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const jobId = randomUUID();
  const first = await within(engine.run(request(imageAndText(1), { jobId })), 15_000);
  t.like(first, { ok: true });
  const second = request(imageAndText(2), { jobId });
  t.like(await within(engine.run(second), 15_000), { ok: true });
  t.is((await historyIds(target)).length, 2);
  t.true((await historyIds(target)).includes(second.runId), 'it ran its own prompt');
});


// Pins: an adopting attempt whose socket cannot open follows the earlier prompt by polling instead of running the job again.
test.serial('an attempt adopting a running prompt whose socket is refused follows it by polling, submitting nothing', async (t) => {
  // A prompt that is surely still running when the next attempt adopts it.
  const gate = gateNode();
  const target = await startComfyProtocolServer({ extraNodes: [gate.node] });
  t.teardown(async () => {
    gate.open();
    await target.close();
  });
  const proxy = await proxied(t, target);
  const crashed = new ComfyEngine({ ...FAST, urls: [proxy.url] });
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const held: WorkflowGraph = { '1': { class_type: 'TestGate', inputs: {} } };
  const first = request(held, { onEvent: (e) => void (e.type === 'executing' && e.nodeId === '1' && started()) });
  const abandoned = crashed.run(first);
  await running;
  await crashed.close(); // the worker died: its watch ends, its prompt runs on
  t.like(await within(abandoned, 5_000), { ok: false }, 'the closed engine ended its watch');
  proxy.refuseWebSockets();
  let resumed!: () => void;
  const resuming = new Promise<void>((resolve) => (resumed = resolve));
  const adopting = engineFor(t, [proxy.url]).run(request(held, { supersedes: first.runId, onEvent: (e) => void (e.type === 'status' && resumed()) }));
  await within(resuming, 10_000); // it found the prompt running (else it would have submitted its own)
  await new Promise((resolve) => setTimeout(resolve, 200));
  gate.open();
  t.like(await within(adopting, 30_000), { ok: true });
  t.is(proxy.count('POST /prompt '), 1, 'never submitted twice');
});

// Pins: queue items and history entries are JSON from the server: a queued item without extra data (or with null) and a
// history entry without its prompt are not this job's, and do not stop the attempt.
test.serial('queue items without extra data and history entries without a prompt do not stop a redelivered attempt', async (t) => {
  const target = await server(t);
  const odd: typeof fetch = answering(async (call, real) => {
    if (call === 'GET /queue') {
      const body = (await (await real()).json()) as { queue_running: unknown[]; queue_pending: unknown[] };
      return json({ ...body, queue_pending: [...body.queue_pending, [90, 'odd-a', {}, null, []], [91, 'odd-b', {}]] });
    }
    if (call.startsWith('GET /history?max_items=')) return json({ ...((await (await real()).json()) as object), 'odd-c': { outputs: {}, status: { status_str: 'success', completed: true, messages: [] } } });
    return undefined;
  });
  const engine = engineFor(t, [target.url], { fetch: odd });
  const attempt = request(imageAndText(3), { jobId: randomUUID(), supersedes: randomUUID() });
  const outcome = await within(engine.run(attempt), 15_000);
  t.like(outcome, { ok: true });
  t.deepEqual(await historyIds(target), [attempt.runId]);
});

// Pins: a history entry without status (older ComfyUI) is a finished prompt: adopted, not run again.
test.serial('an earlier prompt whose history entry has no status is adopted', async (t) => {
  const target = await server(t);
  const first = request(imageAndText(4));
  t.like(await engineFor(t, [target.url]).run(first), { ok: true });
  const bare: typeof fetch = answering(async (call, real) => {
    if (call !== `GET /history/${first.runId}`) return undefined;
    const body = (await (await real()).json()) as Record<string, { status?: unknown }>;
    delete body[first.runId]!.status;
    return json(body);
  });
  const outcome = await within(engineFor(t, [target.url], { fetch: bare }).run(request(imageAndText(4), { supersedes: first.runId })), 15_000);
  t.like(outcome, { ok: true });
  t.deepEqual(await historyIds(target), [first.runId], 'not run again');
});

// Pins: a job cancelled while waiting for a slot ends as interrupted (not as a server fault to retry).
test.serial('a job cancelled while it waits for a slot is ENGINE.INTERRUPTED, not transient', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const busy = new AbortController();
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const holder = engine.run(request(longBlur(), { signal: busy.signal, onEvent: (e) => void (e.type === 'executing' && started()) }));
  t.teardown(() => busy.abort());
  await running; // the only slot is taken
  const controller = new AbortController();
  const waiting = engine.run(request(imageAndText(5), { signal: controller.signal }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  controller.abort();
  t.like(failed(await within(waiting, 5_000)), { code: 'ENGINE.INTERRUPTED', transient: false });
  busy.abort();
  await holder;
});

// Pins: a slot the run was handed is given back when the run only adopted an earlier result (it never took a lease of its own).
test.serial('a run on a reserved slot that adopts an earlier result gives the slot back', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const first = request(imageAndText(6));
  t.like(await engine.run(first), { ok: true });
  const ask = () => ({ jobId: randomUUID(), userId: 'u', workflow: imageAndText(6), signal: new AbortController().signal });
  const slot = await within(engine.reserve(ask()), 5_000);
  if (!slot || slot === 'still waiting') return t.fail('no slot after the first run');
  t.like(await engine.run(request(imageAndText(6), { slot, supersedes: first.runId })), { ok: true });
  const next = await within(engine.reserve(ask()), 3_000);
  t.not(next, 'still waiting', 'the slot came back');
  if (next !== 'still waiting') next?.release();
});

// Pins: reserve gives no slot for a workflow no server can run (its run says why), nor to a job cancelled while it waited.
test.serial('reserve answers null (and run refuses) for a workflow no server can run, and reserve answers null for a job cancelled while waiting', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  await engine.catalogues();
  const alien: WorkflowGraph = { '1': { class_type: 'NoSuchNode', inputs: {} } };
  t.is(await engine.reserve({ jobId: randomUUID(), userId: 'u', workflow: alien, signal: new AbortController().signal }), null);
  t.like(failed(await engine.run(request(alien))), { code: 'ENGINE.VALIDATION', transient: false });
  const held = await engine.reserve({ jobId: randomUUID(), userId: 'u', workflow: imageAndText(1), signal: new AbortController().signal });
  const controller = new AbortController();
  const waiting = engine.reserve({ jobId: randomUUID(), userId: 'u', workflow: imageAndText(1), signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, 200));
  controller.abort();
  t.is(await within(waiting, 5_000), null);
  held?.release();
});

// Pins: a job cancelled before its prompt was submitted (here: on the slot it reserved) submits nothing.
test.serial('a run whose job was cancelled before its prompt went out submits nothing', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url]);
  const controller = new AbortController();
  const slot = await engine.reserve({ jobId: randomUUID(), userId: 'u', workflow: imageAndText(1), signal: controller.signal });
  if (!slot) return t.fail('no slot');
  controller.abort();
  t.like(failed(await within(engine.run(request(imageAndText(1), { slot, signal: controller.signal })), 10_000)), { code: 'ENGINE.INTERRUPTED', transient: false });
  t.is(proxy.count('POST /prompt '), 0);
});

// Pins: a server that cannot open the prompt's socket, refuses an upload, or lists outputs it no longer has gives a
// transient ENGINE.UNAVAILABLE (the job is retried), never an exception out of run.
test.serial('a refused socket, a refused upload and a listed output that is gone are transient ENGINE.UNAVAILABLE', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  proxy.refuseWebSockets();
  t.like(failed(await within(engineFor(t, [proxy.url]).run(request(imageAndText(1))), 10_000)), { code: 'ENGINE.UNAVAILABLE', transient: true });
  t.is(proxy.count('POST /prompt '), 0);

  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#00f' } }).png().toBuffer();
  const loads: WorkflowGraph = {
    '1': { class_type: 'LoadImage', inputs: { image: 'in.png' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'loaded' } },
  };
  const noUpload = engineFor(t, [target.url], { fetch: answering((call) => (call === 'POST /upload/image' ? new Response('', { status: 503 }) : undefined)) });
  t.like(failed(await within(noUpload.run(request(loads, { inputs: [{ name: 'in.png', mimeType: 'image/png', data: png }] })), 10_000)), { code: 'ENGINE.UNAVAILABLE', transient: true });

  t.like(await within(engineFor(t, [target.url]).run(request(loads, { inputs: [{ name: 'in.png', mimeType: 'image/png', data: png }] })), 10_000), { ok: true }, 'the input is found under its new name');

  const gone = engineFor(t, [target.url], { fetch: answering((call) => (call.startsWith('GET /view?') ? new Response('', { status: 404 }) : undefined)) });
  const missing = failed(await within(gone.run(request(imageAndText(1))), 10_000));
  t.like(missing, { code: 'ENGINE.UNAVAILABLE', transient: true });
  t.regex((missing as { message: string }).message, /no longer has the file/);
});

// Pins: a run id is made safe before it names folders: one with "/" or ".." saves inside its own folder.
test.serial('a run id with slashes and dots names one folder inside output/mgs', async (t) => {
  const target = await server(t);
  const outcome = await engineFor(t, [target.url]).run(request(imageAndText(1, 'safe'), { runId: 'run/../../escape' }));
  t.like(outcome, { ok: true });
  t.true(existsSync(join(target.outputDir, 'mgs', 'run_.._.._escape', 'safe_00001_.png')));
});

// Pins: the catalogues are null while no server has answered; COMFYUI_CATALOG_REFRESH_MS=0 reads them no more.
test.serial('no catalogue without an answering server; a refresh of 0 reads /object_info no more', async (t) => {
  const gone = await startComfyProtocolServer();
  await gone.close();
  t.is(await engineFor(t, [gone.url], { timeoutMs: 1000 }).catalogues(), null);
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url], { catalogueRefreshMs: 0 });
  t.truthy(await engine.catalogues());
  const read = proxy.count('GET /object_info');
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.is(proxy.count('GET /object_info'), read);

  const refreshing = new ComfyEngine({ ...FAST, urls: [proxy.url], catalogueRefreshMs: 50 });
  await refreshing.catalogues();
  await refreshing.close();
  await new Promise((resolve) => setTimeout(resolve, 150)); // a read the timer began just before the close lands
  const closedAt = proxy.count('GET /object_info');
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.is(proxy.count('GET /object_info'), closedAt, 'a closed engine reads no more');
});

// Pins: of a job's finished prompts in the recent history, a redelivered attempt adopts the newest.
test.serial("a redelivered attempt adopts the newest of its job's finished prompts", async (t) => {
  const target = await server(t);
  const jobId = randomUUID();
  const said = (text: string): WorkflowGraph => ({
    '3': { class_type: 'PrimitiveString', inputs: { value: text } },
    '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
  });
  for (const text of ['older', 'newer']) {
    const promptId = randomUUID();
    await fetch(`${target.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: said(text), prompt_id: promptId, extra_data: { mgs_job: jobId } }) });
    for (let i = 0; i < 400 && !(await historyIds(target)).includes(promptId); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const outcome = await engineFor(t, [target.url]).run(request(said('again'), { jobId, supersedes: randomUUID() }));
  t.deepEqual(outcome.ok && outcome.texts.map((x) => x.text), ['newer']);
  t.is((await historyIds(target)).length, 2, 'not run again');
});
