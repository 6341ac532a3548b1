import { randomUUID } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import test from 'ava';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineEvent, EngineRunRequest } from '../../core/ports/workflow-engine.port.ts';
import type { NodeDef } from '../../adapters/builtin-engine/types.ts';
import { ComfyClient } from '../../adapters/comfyui/comfy-client.ts';
import { ComfyEngine, type ComfyEngineOptions } from '../../adapters/comfyui/comfy-engine.ts';
import { fileBytes, imageAndText, longBlur } from '../contract/workflow-engine.contract.ts';
import { startComfyProtocolServer, type StartedComfyServer } from '../support/comfy-protocol-server.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/** A blur of a few frames: a second or two of CPU, long enough to act while it runs. */
const shortBlur = (frames: number): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: frames, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'ImageScale', inputs: { image: ['2', 0], upscale_method: 'nearest-exact', width: 16, height: 16, crop: 'disabled' } },
  '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'short' } },
});

// Generous deadlines: the suite shares two cores with everything else; a test that needs a short one sets it.
/** The promise's value, or 'still waiting' after `ms`. */
const settledWithin = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

const FAST: Omit<ComfyEngineOptions, 'urls'> = { timeoutMs: 10_000, jobsPerServer: 1, unavailableWaitMs: 8000, pollMs: 50, baseBackoffMs: 100, maxBackoffMs: 400 };

const server = async (t: { teardown(fn: () => Promise<void>): void }): Promise<StartedComfyServer> => {
  const started = await startComfyProtocolServer();
  t.teardown(() => started.close());
  return started;
};

const proxied = async (t: { teardown(fn: () => Promise<void>): void }, target: StartedComfyServer): Promise<TcpProxy> => {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: target.port });
  t.teardown(() => proxy.close());
  return proxy;
};

const engineFor = (t: { teardown(fn: () => Promise<void>): void }, urls: string[], options: Partial<ComfyEngineOptions> = {}): ComfyEngine => {
  const engine = new ComfyEngine({ ...FAST, ...options, urls });
  t.teardown(() => engine.close());
  return engine;
};

/** A run request whose `started` resolves when the engine reports the given node running. */
const request = (workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}, startedAt = '2') => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const events: EngineEvent[] = [];
  const req: EngineRunRequest = {
    runId: randomUUID(),
    workflow,
    inputs: [],
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'executing' && e.nodeId === startedAt) started();
    },
    ...extra,
  };
  return { req, running, events };
};

const queueOf = async (target: StartedComfyServer): Promise<{ running: string[]; pending: string[] }> => {
  const body = (await (await fetch(`${target.url}/queue`)).json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
  return { running: body.queue_running.map((i) => String(i[1])), pending: body.queue_pending.map((i) => String(i[1])) };
};

const historyIds = async (target: StartedComfyServer): Promise<string[]> => Object.keys((await (await fetch(`${target.url}/history`)).json()) as object);

test.serial('the server dies mid-job: the attempt fails as transient ENGINE.UNAVAILABLE and the server leaves the rotation', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url], { timeoutMs: 2000 });
  const { req, running } = request(longBlur());
  const result = engine.run(req);
  await running;
  await target.stop();
  // Bounded here, so an attempt that waits forever for the dead server fails this assertion instead of ava's timeout.
  const outcome = await settledWithin(result, 20_000);
  if (outcome === 'still waiting') return t.fail('the attempt still waits for a server that is gone');
  if (outcome.ok) return t.fail('succeeded without a server');
  t.is(outcome.error.code, 'ENGINE.UNAVAILABLE');
  t.true(outcome.transient);
  t.false(engine.pool.report()[0]!.healthy);
});

test.serial('the socket is cut mid-job and cannot reconnect: the result still arrives by polling /history', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url]);
  const { req, running, events } = request(shortBlur(4));
  const result = engine.run(req);
  await running;
  proxy.refuseWebSockets();
  const outcome = await result;
  if (!outcome.ok) return t.fail(JSON.stringify(outcome.error));
  t.is(outcome.files.length, 4, 'one file per frame');
  t.true((await fileBytes(outcome.files[0]!)).length > 0);
  t.false(events.some((e) => e.type === 'executing' && e.nodeId === '4'), 'the last node ran while the socket was gone');
  t.is(proxy.count('POST /prompt '), 1);
});

test.serial('the server restarts mid-job (its queue and history are gone): the attempt fails as transient', async (t) => {
  const first = await startComfyProtocolServer();
  const engine = engineFor(t, [first.url]);
  const { req, running } = request(longBlur());
  const result = engine.run(req);
  await running;
  await first.stop();
  const second = await startComfyProtocolServer({ port: first.port });
  t.teardown(() => second.close());
  // Bounded here, so an attempt that waits forever fails this assertion instead of ava's timeout.
  const outcome = await settledWithin(result, 20_000);
  await first.close();
  if (outcome === 'still waiting') return t.fail('the attempt still waits for a prompt the restarted server no longer knows');
  if (outcome.ok) return t.fail('succeeded across a restart');
  t.is(outcome.error.code, 'ENGINE.UNAVAILABLE');
  t.true(outcome.transient);
  t.regex(outcome.error.message, /no longer knows prompt/);
});

test.serial('a redelivered attempt that supersedes a still-running prompt adopts it: the server received the prompt once', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const crashed = new ComfyEngine({ ...FAST, urls: [proxy.url] });
  const first = request(shortBlur(6));
  const abandoned = crashed.run(first.req);
  await first.running;
  await crashed.close(); // the worker died: its prompt goes on running on the server
  t.is((await abandoned).ok, false);

  const engine = engineFor(t, [proxy.url]);
  const second = request(shortBlur(6), { supersedes: first.req.runId });
  const outcome = await engine.run(second.req);
  if (!outcome.ok) return t.fail(JSON.stringify(outcome.error));
  t.is(outcome.files.length, 6);
  t.true((await fileBytes(outcome.files[0]!)).length > 0);
  t.is(proxy.count('POST /prompt '), 1, 'never submitted twice');
  t.deepEqual(await historyIds(target), [first.req.runId]);
  t.deepEqual(second.events.filter((event) => event.type === 'server'), [{ type: 'server', server: 1 }], 'the adopting attempt names the server too');
});

test.serial('a chain of redeliveries: an attempt that only adopted the prompt dies too; the next one still finds the prompt by its job, never submitting twice', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const jobId = randomUUID();
  const crashed = new ComfyEngine({ ...FAST, urls: [proxy.url] });
  const first = request(shortBlur(8), { jobId });
  const abandoned = crashed.run(first.req);
  await first.running;
  await crashed.close(); // attempt 1 died; its prompt runs on
  await abandoned;

  // Attempt 2 adopts attempt 1's prompt, then dies as well.
  const adopter = new ComfyEngine({ ...FAST, urls: [proxy.url] });
  const second = request(shortBlur(8), { jobId, supersedes: first.req.runId });
  const adopting = adopter.run(second.req);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await adopter.close();
  await adopting;

  // Attempt 3 supersedes attempt 2, whose run id names no prompt: the job's prompt is found all the same.
  const engine = engineFor(t, [proxy.url]);
  const third = request(shortBlur(8), { jobId, supersedes: second.req.runId });
  const outcome = await engine.run(third.req);
  if (!outcome.ok) return t.fail(JSON.stringify(outcome.error));
  t.is(outcome.files.length, 8);
  t.is(proxy.count('POST /prompt '), 1, 'the workflow ran once on the engine');
  t.deepEqual(await historyIds(target), [first.req.runId]);
});

test.serial('a redelivered attempt whose earlier prompt already succeeded reads its outputs without running again', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url]);
  const first = request(imageAndText(0x0000ff));
  const done = await engine.run(first.req);
  t.true(done.ok);
  const adopting = request(imageAndText(0x0000ff), { supersedes: first.req.runId });
  const again = await engine.run(adopting.req);
  if (!again.ok) return t.fail(JSON.stringify(again.error));
  t.deepEqual(again.texts.map((x) => x.text), ['hello engine']);
  t.deepEqual(adopting.events.filter((event) => event.type === 'server'), [{ type: 'server', server: 1 }], 'the job learns which server ran it');
  t.true((await fileBytes(again.files[0]!)).length > 0);
  t.is(proxy.count('POST /prompt '), 1);
});

test.serial('a redelivered attempt whose earlier prompt failed or is unknown runs the job again', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url]);
  const failing: WorkflowGraph = { '2': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'x' } } };
  const controller = new AbortController();
  const interrupted = request(longBlur(), { signal: controller.signal });
  void interrupted.running.then(() => controller.abort());
  const first = await engine.run(interrupted.req);
  t.is(!first.ok && first.error.code, 'ENGINE.INTERRUPTED');
  const retried = await engine.run(request(imageAndText(0x00ff00), { supersedes: interrupted.req.runId }).req);
  t.true(retried.ok, 'an interrupted earlier prompt is not adopted');
  const unknown = await engine.run(request(imageAndText(0x00ff00), { supersedes: randomUUID() }).req);
  t.true(unknown.ok);
  t.is(proxy.count('POST /prompt '), 3);
  const rejected = await engine.run(request(failing).req);
  t.is(!rejected.ok && rejected.error.code, 'ENGINE.VALIDATION');
  t.is(!rejected.ok && rejected.transient, false);
});

test.serial('cancelling a pending prompt removes it from the queue and never interrupts the prompt that is running', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url], { jobsPerServer: 2 });
  const running = request(shortBlur(8));
  const first = engine.run(running.req);
  await running.running;
  const controller = new AbortController();
  const waiting = request(imageAndText(0xffffff), { signal: controller.signal });
  const second = engine.run(waiting.req);
  for (let i = 0; i < 100 && !(await queueOf(target)).pending.includes(waiting.req.runId); i++) await new Promise((r) => setTimeout(r, 20));
  t.deepEqual(await queueOf(target), { running: [running.req.runId], pending: [waiting.req.runId] });
  controller.abort();
  const cancelled = await second;
  t.is(!cancelled.ok && cancelled.error.code, 'ENGINE.INTERRUPTED');
  t.deepEqual((await queueOf(target)).pending, []);
  const finished = await first;
  t.true(finished.ok, 'the running prompt was not interrupted');
  t.false((await historyIds(target)).includes(waiting.req.runId), 'the cancelled prompt never ran');
});

test.serial('the pool sends jobs to a healthy server, waits a bounded time when none is, and takes a recovered server back', async (t) => {
  const up = await server(t);
  const down = await startComfyProtocolServer();
  const downUrl = down.url;
  const downPort = down.port;
  await down.close();
  const engine = engineFor(t, [downUrl, up.url]);
  for (let i = 0; i < 3; i++) t.true((await engine.run(request(imageAndText(i)).req)).ok);
  t.deepEqual((await historyIds(up)).length, 3, 'every job went to the healthy server');
  await t.throwsAsync(engineFor(t, [downUrl], { timeoutMs: 2000 }).check(), { message: /no ComfyUI server is reachable/ });

  const lonely = engineFor(t, [downUrl], { unavailableWaitMs: 600, timeoutMs: 2000 });
  const started = Date.now();
  const none = await lonely.run(request(imageAndText(1)).req);
  t.is(!none.ok && none.error.code, 'ENGINE.UNAVAILABLE');
  t.is(!none.ok && none.transient, true);
  t.true(Date.now() - started >= 600, 'waited for a server first');

  const back = await startComfyProtocolServer({ port: downPort });
  t.teardown(() => back.close());
  const recovered = await lonely.run(request(imageAndText(2)).req);
  t.true(recovered.ok, 'probed again after its backoff and used');
  const health = (await lonely.check()) as { servers: { healthy: boolean; devices?: unknown[] }[] };
  t.true(health.servers[0]!.healthy);
  t.true(Array.isArray(health.servers[0]!.devices), 'VRAM figures reported');
});

test.serial('two worker processes sharing two servers: the second job goes to the server with the shorter queue', async (t) => {
  const a = await server(t);
  const b = await server(t);
  const workerOne = engineFor(t, [a.url, b.url]);
  const workerTwo = engineFor(t, [a.url, b.url]);
  const first = request(shortBlur(6));
  const one = workerOne.run(first.req);
  await first.running;
  const busy = (await queueOf(a)).running.length > 0 ? a : b;
  const second = request(imageAndText(0x123456));
  const two = await workerTwo.run(second.req);
  t.true(two.ok);
  const idle = busy === a ? b : a;
  t.deepEqual(await historyIds(idle), [second.req.runId], 'the second worker avoided the busy server');
  t.true((await one).ok);
});

test.serial('COMFYUI_JOBS_PER_SERVER=1: a second job of this worker waits for the slot instead of queueing on the busy server', async (t) => {
  const target = await server(t);
  const proxy = await proxied(t, target);
  const engine = engineFor(t, [proxy.url]);
  const first = request(shortBlur(6));
  const one = engine.run(first.req);
  let firstEnded = false;
  void one.finally(() => (firstEnded = true));
  await first.running;
  const second = request(imageAndText(0x0f0f0f));
  const two = engine.run(second.req);
  // When the second prompt reaches the server, the first must be over: it never waits in the server's queue.
  const deadline = Date.now() + 20_000;
  while (proxy.count('POST /prompt ') < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  t.is(proxy.count('POST /prompt '), 2, 'the second prompt was sent');
  if (!t.true(firstEnded, 'the second prompt was sent only after the first ended')) return;
  t.true((await one).ok);
  t.true((await two).ok);
  t.deepEqual(await historyIds(target), [first.req.runId, second.req.runId]);
});

test.serial('an interrupt names its prompt: interrupting a prompt that is not the running one leaves the running prompt alone', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const first = request(shortBlur(6));
  const one = engine.run(first.req);
  await first.running;
  await new ComfyClient(target.url, { timeoutMs: 10_000 }).interrupt(randomUUID());
  t.true((await one).ok, 'the running prompt finished');
});

test.serial('closing the engine (worker shutdown) releases a job still waiting for a server: transient, at once', async (t) => {
  const gone = await startComfyProtocolServer();
  await gone.close();
  const engine = engineFor(t, [gone.url], { unavailableWaitMs: 60_000 });
  const waiting = engine.run(request(imageAndText(1)).req);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = Date.now();
  await engine.close();
  const outcome = await waiting;
  t.is(!outcome.ok && outcome.error.code, 'ENGINE.UNAVAILABLE');
  t.is(!outcome.ok && outcome.transient, true);
  t.true(Date.now() - started < 2000);
});

test.serial("progress is the whole prompt's, in percent, from progress_state: rising to 100 (real ComfyUI's model-free nodes send no `progress`)", async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const { req, events } = request(shortBlur(2));
  t.true((await engine.run(req)).ok);
  const progress = events.flatMap((e) => (e.type === 'progress' ? [e] : []));
  t.true(progress.length >= 3, JSON.stringify(progress));
  t.true(progress.every((p) => p.max === 100));
  t.deepEqual(progress.map((p) => p.value), [...new Set(progress.map((p) => p.value))].sort((a, b) => a - b), 'strictly rising');
  t.is(progress.at(-1)!.value, 100);
});

/** A blur of a few frames with node ids our workflows never use, submitted straight to the server by someone else (no job tag, no client_id). */
const foreignPrompt = async (target: StartedComfyServer, frames: number, text = 'foreign'): Promise<string> => {
  const promptId = randomUUID();
  const prompt: WorkflowGraph = {
    '71': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: frames, color: 0x101010 } },
    '72': { class_type: 'ImageBlur', inputs: { image: ['71', 0], blur_radius: 31, sigma: 10 } },
    '73': { class_type: 'SaveImage', inputs: { images: ['72', 0], filename_prefix: 'foreign' } },
    '74': { class_type: 'PrimitiveString', inputs: { value: text } },
    '75': { class_type: 'PreviewAny', inputs: { source: ['74', 0] } },
  };
  const res = await fetch(`${target.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, prompt_id: promptId }) });
  if (res.status !== 200) throw new Error(`the foreign prompt was refused: ${res.status}`);
  return promptId;
};

const untilQueue = async (target: StartedComfyServer, done: (q: { running: string[]; pending: string[] }) => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !done(await queueOf(target)); i++) await new Promise((r) => setTimeout(r, 25));
};

// Pins: a redelivered attempt adopts only its own job's prompt; another user's prompt on the same server (queued, running or finished) is never taken as its result.
test.serial("a redelivered attempt never adopts another job's prompt, queued, running or finished, nor hears its events", async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);

  // Finished: a foreign prompt sits in the server's history.
  const finished = await foreignPrompt(target, 1, 'finished foreign');
  for (let i = 0; i < 400 && !(await historyIds(target)).includes(finished); i++) await new Promise((r) => setTimeout(r, 25));
  const afterFinished = request(imageAndText(0x00ff00), { supersedes: randomUUID() });
  const one = await engine.run(afterFinished.req);
  if (!one.ok) return t.fail(JSON.stringify(one.error));
  t.deepEqual(one.texts.map((x) => x.text), ['hello engine'], 'its own result, not the finished foreign prompt');
  t.true((await historyIds(target)).includes(afterFinished.req.runId), 'it ran its own prompt');

  // Running: a foreign prompt runs (broadcasting its progress) while the attempt starts.
  const running = await foreignPrompt(target, 6, 'running foreign');
  await untilQueue(target, (q) => q.running.includes(running));
  const whileRunning = request(imageAndText(0x0000ff), { supersedes: randomUUID() });
  const two = await engine.run(whileRunning.req);
  if (!two.ok) return t.fail(JSON.stringify(two.error));
  t.deepEqual(two.texts.map((x) => x.text), ['hello engine'], 'its own result, not the running foreign prompt');
  t.true((await historyIds(target)).includes(whileRunning.req.runId), 'it ran its own prompt');
  t.deepEqual(
    whileRunning.events.filter((e) => 'nodeId' in e && typeof e.nodeId === 'string' && e.nodeId.startsWith('7')),
    [],
    "no event of the foreign prompt's nodes reached this job",
  );
});

// Pins: an earlier attempt of the same job whose prompt failed (interrupted) is run anew, never adopted from the history by its job tag.
test.serial('a chain of redeliveries whose earliest prompt was interrupted runs the job anew instead of adopting the failure', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const jobId = randomUUID();
  const controller = new AbortController();
  const first = request(longBlur(), { jobId, signal: controller.signal });
  void first.running.then(() => controller.abort());
  const interrupted = await engine.run(first.req);
  t.is(!interrupted.ok && interrupted.error.code, 'ENGINE.INTERRUPTED');
  // Attempt 3 supersedes attempt 2, which never submitted a prompt: only the job tag leads to attempt 1's failed prompt.
  const third = request(imageAndText(0x00ffff), { jobId, supersedes: randomUUID() });
  const outcome = await engine.run(third.req);
  if (!outcome.ok) return t.fail(JSON.stringify(outcome.error));
  t.deepEqual(outcome.texts.map((x) => x.text), ['hello engine']);
  t.deepEqual(await historyIds(target), [first.req.runId, third.req.runId], 'the job ran again');
});

/** A node deaf to interrupts (a custom node stuck in native code, say): it ends only when the test lets it. */
const stubbornNode = (released: Promise<void>): NodeDef => ({
  name: 'StubbornWait',
  displayName: 'Stubborn Wait',
  description: 'Waits without ever looking for an interrupt.',
  category: 'testing',
  pythonModule: 'custom_nodes.stubborn',
  outputNode: true,
  inputTypes: () => ({ required: {} }),
  output: [],
  run: async () => {
    await released;
    return {};
  },
});

/** A forwarder that can freeze: its connections stay open but nothing goes through any more (a hung server, not a gone one). */
const freezable = async (t: { teardown(fn: () => Promise<void>): void }, target: StartedComfyServer): Promise<{ url: string; freeze(): void }> => {
  let frozen = false;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(target.port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => void (frozen || upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => void (frozen || client.write(chunk)));
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) socket.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });
  const address = proxy.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, freeze: () => void (frozen = true) };
};

// Pins that cancelling a running prompt reports the server's own account of the interrupt (the node it stopped at), once the server has ended the prompt.
test.serial('cancelling a running prompt ends the attempt with the node the server stopped at, once the prompt no longer runs there', async (t) => {
  const target = await server(t);
  const engine = engineFor(t, [target.url]);
  const controller = new AbortController();
  const { req, running } = request(longBlur(), { signal: controller.signal });
  const result = engine.run(req);
  await running;
  controller.abort();
  const outcome = await result;
  if (outcome.ok) return t.fail('an interrupted run succeeded');
  t.like(outcome.error, { code: 'ENGINE.INTERRUPTED', nodeId: '2', message: 'Interrupted before ImageBlur #2 finished' });
  t.false(outcome.transient);
  t.deepEqual(await queueOf(target), { running: [], pending: [] }, 'the prompt no longer runs on the server');
  t.true((await historyIds(target)).includes(req.runId));
});

// Pins that a cancel whose delete of the pending prompt comes too late (the prompt started meanwhile) still stops the prompt on the server, and ends only once it has.
test.serial('a cancel that loses the race with its prompt starting interrupts the prompt instead of leaving it running on the server', async (t) => {
  const target = await server(t);
  let waitingId = '';
  let deletes = 0;
  // Holds each delete until the prompt it names runs: what happens when the prompt before it ends just as the cancel comes.
  const late: typeof fetch = async (input, init) => {
    if (init?.method === 'POST' && String(input).endsWith('/queue')) {
      deletes += 1;
      await untilQueue(target, (q) => q.running.includes(waitingId));
    }
    return fetch(input, init);
  };
  const engine = engineFor(t, [target.url], { jobsPerServer: 2, fetch: late });
  const first = request(shortBlur(6));
  const one = engine.run(first.req);
  await first.running;
  const controller = new AbortController();
  const waiting = request(longBlur(), { signal: controller.signal });
  waitingId = waiting.req.runId;
  const second = engine.run(waiting.req);
  await untilQueue(target, (q) => q.pending.includes(waitingId));
  controller.abort();
  const cancelled = await second;
  t.is(deletes, 1, 'the delete was sent, too late to remove the prompt');
  t.false((await queueOf(target)).running.includes(waitingId), 'the cancelled prompt no longer runs on the server');
  if (cancelled.ok) return t.fail('a cancelled run succeeded');
  t.is(cancelled.error.code, 'ENGINE.INTERRUPTED');
  t.regex(cancelled.error.message, /^Interrupted before \w+ #\d finished$/, 'the server ended it by the interrupt');
  t.true((await one).ok);
});

// Pins that a cancel the server never carries out (a node deaf to interrupts) ends the attempt after COMFYUI_TIMEOUT_MS instead of holding the worker until the node is done.
test.serial('a cancel the server does not confirm in time ends the attempt anyway, saying so', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const target = await startComfyProtocolServer({ extraNodes: [stubbornNode(released)] });
  t.teardown(async () => {
    release();
    await target.close();
  });
  const engine = engineFor(t, [target.url], { timeoutMs: 1500 });
  const controller = new AbortController();
  const { req, running } = request({ '1': { class_type: 'StubbornWait', inputs: {} } }, { signal: controller.signal }, '1');
  const result = engine.run(req);
  await running;
  controller.abort();
  const outcome = await settledWithin(result, 15_000);
  if (outcome === 'still waiting') return t.fail('the attempt still waits for an interrupt the server never carries out');
  if (outcome.ok) return t.fail('a cancelled run succeeded');
  t.like(outcome.error, { code: 'ENGINE.INTERRUPTED', message: 'Cancelled; the server did not confirm the interrupt in time' });
  t.false(outcome.transient);
});

// Pins that a server that stops answering (connections open, no replies) fails the attempt as transient after its timeouts instead of hanging the worker.
test.serial('a server that hangs mid-job (connections open, no answers) fails the attempt as transient, naming the missing answer', async (t) => {
  const target = await server(t);
  const proxy = await freezable(t, target);
  const engine = engineFor(t, [proxy.url], { timeoutMs: 1000, failoverMs: 1000 });
  const { req, running } = request(longBlur());
  const result = engine.run(req);
  await running;
  proxy.freeze();
  const outcome = await settledWithin(result, 15_000);
  if (outcome === 'still waiting') return t.fail('the attempt still waits for a server that no longer answers');
  if (outcome.ok) return t.fail('succeeded without answers from the server');
  t.is(outcome.error.code, 'ENGINE.UNAVAILABLE');
  t.true(outcome.transient);
  t.regex(outcome.error.message, /no answer in 1000 ms/);
});
