import { subscribe } from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { gateNode } from '../support/gate-node.ts';
import { createComfyProtocolServer } from '../../adapters/comfyui-protocol-server/comfy-protocol-server.ts';
import type { ProtocolRuntime } from '../../adapters/comfyui-protocol-server/protocol-runtime.types.ts';
import { connectComfyWs, startComfyProtocolServer, type ComfyWsMessage, type StartedComfyServer } from '../support/comfy-protocol-server.ts';

// The protocol stand-in's POST /prompt, /queue, /history, /interrupt and /free, and its prompt worker, held to
// comfyui-protocol.md: what a client of ComfyUI meets there, it must meet here.


/** Every server that starts listening in this file, by port. */
const listening = new Map<number, Server>();
subscribe('tracing:net.server.listen:asyncEnd', (message) => {
  const server = (message as { server: Server }).server;
  const address = server.address();
  if (address && typeof address === 'object') listening.set(address.port, server);
});

/** Closes a stand-in; one whose worker died (what some of these tests guard against) cannot close itself, so its port is shut anyway and the file ends. */
const shut = async (close: () => Promise<void>, port: number): Promise<void> => {
  try {
    await close();
  } catch {
    const server = listening.get(port);
    server?.closeAllConnections();
    server?.close();
  }
};

const standIn = async (t: { teardown(fn: () => Promise<void>): void }) => {
  const held = gateNode({ required: { key: ['INT', { default: 0, min: 0, max: 1_000_000 }] } });
  const server = await startComfyProtocolServer({ extraNodes: [held.node] });
  t.teardown(() => shut(() => server.close(), server.port));
  return { server, open: held.open };
};

/** A prompt that runs until the gate opens; distinct keys keep ComfyUI's cache from answering one for another. */
const gated = (key: number) => ({ '1': { class_type: 'TestGate', inputs: { key } } });
/** A prompt that is done in a moment. */
const quick = (color = 0) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color } },
  '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
});

/** Where the calls go: a started stand-in, or any server by its URL. */
type Target = Pick<StartedComfyServer, 'url'>;

const post = (server: Target, path: string, body?: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const getJson = async (server: Target, path: string): Promise<any> => (await fetch(`${server.url}${path}`)).json();
const submit = async (server: Target, body: Record<string, unknown>): Promise<any> => {
  const res = await post(server, '/prompt', body);
  if (res.status !== 200) throw new Error(`POST /prompt answered ${res.status}: ${await res.text()}`);
  return res.json();
};

const queueIds = async (server: Target): Promise<{ running: string[]; pending: string[] }> => {
  const body = await getJson(server, '/queue');
  return { running: body.queue_running.map((item: unknown[]) => item[1]), pending: body.queue_pending.map((item: unknown[]) => item[1]).sort() };
};

/** Whether `condition` held within `ms`. */
const until = async (condition: () => Promise<boolean>, ms = 5000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
};
const running = (server: Target, id: string): Promise<boolean> => until(async () => (await queueIds(server)).running.includes(id));
/** The prompt's history entry, or null if it did not finish within `ms`. */
const finished = async (server: Target, id: string, ms = 5000): Promise<any> => {
  let entry: any = null;
  await until(async () => Boolean((entry = (await getJson(server, `/history/${id}`))[id])), ms);
  return entry;
};
const lastMessage = (entry: any): string => entry.status.messages.at(-1)[0];
const cachedNodes = (entry: any): string[] => entry.status.messages.find((m: [string, any]) => m[0] === 'execution_cached')[1].nodes;

// Pins POST /queue {clear}: a truthy clear empties the pending queue (the running prompt goes on); a falsy one, as in
// Python, changes nothing.
test('POST /queue with a falsy clear keeps the pending prompts; a truthy one removes them, not the running one', async (t) => {
  const { server } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'run' });
  t.true(await running(server, 'run'));
  await submit(server, { prompt: gated(2), prompt_id: 'b' });
  await submit(server, { prompt: gated(3), prompt_id: 'c' });
  for (const clear of [false, 0, '', []]) t.is((await post(server, '/queue', { clear })).status, 200);
  t.deepEqual(await queueIds(server), { running: ['run'], pending: ['b', 'c'] }, 'a falsy clear clears nothing');
  t.is((await post(server, '/queue', { clear: true })).status, 200);
  t.deepEqual(await queueIds(server), { running: ['run'], pending: [] });
});

// Pins POST /history {clear}: a falsy clear keeps the history, as in Python.
test('POST /history with a falsy clear keeps the history', async (t) => {
  const { server } = await standIn(t);
  await submit(server, { prompt: quick(), prompt_id: 'done' });
  t.truthy(await finished(server, 'done'));
  for (const clear of [false, 0, '', {}]) t.is((await post(server, '/history', { clear })).status, 200);
  t.deepEqual(Object.keys(await getJson(server, '/history')), ['done']);
});

// Pins POST /interrupt (comfyui-protocol.md): no body, or a prompt_id that is empty, is a global interrupt; a body that is
// not a JSON object fails (500) and interrupts nothing.
test('POST /interrupt without a body or with an empty prompt_id interrupts the running prompt; a body that is no object interrupts nothing', async (t) => {
  const { server } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'first' });
  t.true(await running(server, 'first'));
  t.is((await post(server, '/interrupt', [1])).status, 500);
  t.deepEqual((await queueIds(server)).running, ['first'], 'still running');
  t.is((await post(server, '/interrupt')).status, 200);
  const first = await finished(server, 'first');
  t.is(first && lastMessage(first), 'execution_interrupted');

  await submit(server, { prompt: gated(2), prompt_id: 'second' });
  t.true(await running(server, 'second'));
  t.is((await post(server, '/interrupt', { prompt_id: '' })).status, 200);
  const second = await finished(server, 'second');
  t.is(second && lastMessage(second), 'execution_interrupted');
});

// Pins (comfyui-protocol.md): an interrupt flag set while the server is idle is cleared when the next prompt starts.
test('an interrupt sent while the server is idle does not stop the next prompt', async (t) => {
  const { server } = await standIn(t);
  t.is((await post(server, '/interrupt')).status, 200);
  await submit(server, { prompt: quick(), prompt_id: 'next' });
  const entry = await finished(server, 'next');
  t.is(entry?.status.status_str, 'success');
});

// Pins POST /prompt's numbering (server.py): an explicit `number` is the priority as given and does not advance the
// counter; `front` puts the prompt ahead only when it is truthy.
test("POST /prompt: an explicit number is taken as given without advancing the counter; front moves a prompt ahead only when truthy", async (t) => {
  const { server } = await standIn(t);
  t.is((await submit(server, { prompt: quick(1) })).number, 0);
  t.is((await submit(server, { prompt: quick(2), number: 7.5 })).number, 7.5);
  t.is((await submit(server, { prompt: quick(3), number: '3' })).number, 3);
  t.is((await submit(server, { prompt: quick(4), front: false })).number, 1);
  t.is((await submit(server, { prompt: quick(5), front: true })).number, -2);
});

// Pins: a client_id with an extra_data that is not an object fails (500) as in Python, and nothing is queued.
test('POST /prompt with a client_id and an extra_data that is not an object fails and queues nothing', async (t) => {
  const { server } = await standIn(t);
  t.is((await post(server, '/prompt', { prompt: quick(), client_id: 'c', extra_data: [1], prompt_id: 'bad' })).status, 500);
  t.deepEqual(await getJson(server, '/prompt'), { exec_info: { queue_remaining: 0 } });
  t.deepEqual(await getJson(server, '/history'), {});
});

// Pins server.py's order: a body without "prompt" is refused with no_prompt (400) before its other fields are read.
test('POST /prompt without a prompt is refused with no_prompt, whatever else the body holds', async (t) => {
  const { server } = await standIn(t);
  const res = await post(server, '/prompt', { client_id: 'c', extra_data: 'not an object', prompt_id: 'none' });
  t.is(res.status, 400);
  t.deepEqual(await res.json(), { error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} }, node_errors: {} });
});

// Pins: one prompt whose extra_data is not an object does not stop the stand-in's worker (comfy-serve runs on for
// everyone else).
test('a prompt whose extra_data is null runs, and the prompts after it too', async (t) => {
  const { server } = await standIn(t);
  await submit(server, { prompt: quick(1), prompt_id: 'odd', extra_data: null });
  await submit(server, { prompt: quick(2), prompt_id: 'after' });
  t.is((await finished(server, 'odd'))?.status.status_str, 'success');
  t.is((await finished(server, 'after'))?.status.status_str, 'success');
});

// Pins /free (comfyui-protocol.md, main.py): free_memory asked while a prompt runs empties the cache once that prompt has
// ended, so an identical prompt runs again; the cache then works as before; a falsy free_memory keeps it.
test('free_memory asked during a run empties the cache after that run, once; a falsy free_memory keeps the cache', async (t) => {
  const { server, open } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'a1' });
  t.true(await running(server, 'a1'));
  t.is((await post(server, '/free', { free_memory: true })).status, 200);
  open();
  t.truthy(await finished(server, 'a1'));
  await submit(server, { prompt: gated(1), prompt_id: 'a2' });
  t.deepEqual(cachedNodes(await finished(server, 'a2')), [], 'the cache was emptied after the run that was going on');
  await submit(server, { prompt: gated(1), prompt_id: 'a3' });
  t.deepEqual(cachedNodes(await finished(server, 'a3')), ['1'], 'and works again afterwards');
  t.is((await post(server, '/free', { free_memory: false, unload_models: true })).status, 200);
  await submit(server, { prompt: gated(1), prompt_id: 'a4' });
  t.deepEqual(cachedNodes(await finished(server, 'a4')), ['1'], 'a falsy free_memory keeps the cache');
});

// Pins (comfyui-protocol.md): a prompt submitted without client_id sends nobody execution_*, executing or executed events;
// its execution_interrupted is broadcast to every socket.
test('a prompt without client_id sends no execution events to anyone, but its interrupt is broadcast', async (t) => {
  const { server, open } = await standIn(t);
  const watcher = await connectComfyWs(server.wsUrl, 'someone-else');
  t.teardown(() => watcher.close());
  await submit(server, { prompt: gated(1), prompt_id: 'stopped' });
  t.true(await running(server, 'stopped'));
  await post(server, '/interrupt', { prompt_id: 'stopped' });
  t.truthy(await finished(server, 'stopped'));
  open();
  await submit(server, { prompt: quick(), prompt_id: 'done' });
  t.truthy(await finished(server, 'done'));
  // The queue's third "0 remaining" (on connect, after each prompt) comes after every frame of both prompts.
  const idle = (m: ComfyWsMessage): boolean => m.type === 'status' && (m.data['status'] as any).exec_info.queue_remaining === 0;
  await watcher.waitFor(() => watcher.messages.filter(idle).length >= 3, 3000).catch(() => null);
  t.like(watcher.messages.find((m) => m.type === 'execution_interrupted')?.data, { prompt_id: 'stopped', node_id: '1', node_type: 'TestGate' });
  const forbidden = ['execution_start', 'execution_cached', 'executing', 'executed', 'execution_success', 'execution_error'];
  t.deepEqual(watcher.messages.filter((m) => forbidden.includes(m.type)).map((m) => m.type), []);
});

// Pins: a prompt whose client has no socket (it disconnected) runs to its end; its events are dropped.
test('a prompt whose client has no socket runs to success', async (t) => {
  const { server } = await standIn(t);
  await submit(server, { prompt: quick(), prompt_id: 'orphan', client_id: 'gone' });
  t.is((await finished(server, 'orphan'))?.status.status_str, 'success');
});

// Pins (comfyui-protocol.md): the node that failed stays "running" in the last progress_state.
test('the node that failed stays running in the last progress_state', async (t) => {
  const { server } = await standIn(t);
  const ws = await connectComfyWs(server.wsUrl, 'err');
  t.teardown(() => ws.close());
  // ImageBatch of an RGB and an RGBA image passes validation and fails at run time, as in ComfyUI.
  const graph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0 } },
    '2': { class_type: 'SolidMask', inputs: { value: 0.5, width: 16, height: 16 } },
    '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
    '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
    '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'e' } },
  };
  await submit(server, { prompt: graph, client_id: 'err', prompt_id: 'bad' });
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null);
  const last = ws.messages.filter((m) => m.type === 'progress_state').at(-1)?.data as any;
  t.is(last?.nodes['4']?.state, 'running');
  t.is(last?.nodes['3']?.state, 'finished');
});

// Pins (comfyui-protocol.md): the paid-API keys in extra_data are visible in GET /queue but stripped from history.
test('api_key_comfy_org and auth_token_comfy_org show in the queue but never reach history', async (t) => {
  const { server, open } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'first' });
  t.true(await running(server, 'first'));
  const extra = { api_key_comfy_org: 'key', auth_token_comfy_org: 'token', mine: 1 };
  await submit(server, { prompt: quick(), prompt_id: 'paid', extra_data: extra });
  t.deepEqual((await getJson(server, '/queue')).queue_pending[0][3], extra);
  open();
  const entry = await finished(server, 'paid');
  t.deepEqual(entry?.prompt[3], { mine: 1 });
});

// Pins: a runtime that throws instead of reporting a failure still ends the prompt with execution_error and an error history
// entry naming the node that ran, and the worker goes on to the next prompt.
test('a runtime that throws ends the prompt with execution_error, and the next prompt runs', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'comfy-throwing-'));
  const dirs = { inputDir: join(root, 'input'), outputDir: join(root, 'output'), tempDir: join(root, 'temp') };
  const builtin = new BuiltinRuntime(dirs);
  const runtime: ProtocolRuntime = {
    objectInfo: () => builtin.objectInfo(),
    validate: (prompt, targets) => builtin.validate(prompt, targets),
    execute: async (promptId, prompt, hooks, outputs) => {
      if (promptId === 'throws-at-once') throw new RangeError('before anything ran');
      if (promptId !== 'throws') return builtin.execute(promptId, prompt, hooks, outputs);
      hooks?.onExecutionStart?.();
      hooks?.onCached?.([]);
      hooks?.onExecuting?.('1');
      throw new TypeError('a bug in the runtime');
    },
  };
  const server = createComfyProtocolServer({ runtime, ...dirs, host: '127.0.0.1', port: 0, log: () => undefined });
  const { port } = await server.listen();
  t.teardown(async () => {
    await shut(() => server.close(), port);
    await rm(root, { recursive: true, force: true });
  });
  const started: Target = { url: `http://127.0.0.1:${port}` };
  await submit(started, { prompt: quick(1), prompt_id: 'throws' });
  await submit(started, { prompt: quick(2), prompt_id: 'next' });
  const failed = await finished(started, 'throws');
  t.like(failed?.status, { status_str: 'error', completed: false });
  t.like(failed?.status.messages.at(-1)?.[1], { node_id: '1', node_type: 'EmptyImage', exception_type: 'TypeError', exception_message: 'a bug in the runtime' });
  t.is((await finished(started, 'next'))?.status.status_str, 'success');
  await submit(started, { prompt: quick(3), prompt_id: 'throws-at-once' });
  const early = await finished(started, 'throws-at-once');
  t.deepEqual(early?.status.messages.map((m: [string, unknown]) => m[0]), ['execution_start', 'execution_cached', 'execution_error'], 'the messages every history entry has');
  t.like(early?.status.messages.at(-1)?.[1], { node_id: '', exception_type: 'RangeError' });
});

// Pins (comfyui-protocol.md): progress_state shows every node that ran as finished once the prompt succeeded, also the last
// one when it has no UI output (nothing else marks it finished).
test('the last node of a prompt shows finished in the last progress_state, though it has no UI output', async (t) => {
  const { server, open } = await standIn(t);
  open();
  const ws = await connectComfyWs(server.wsUrl, 'pc');
  t.teardown(() => ws.close());
  await submit(server, { prompt: gated(1), client_id: 'pc', prompt_id: 'p' });
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null, 5000);
  const last = ws.messages.filter((m) => m.type === 'progress_state').at(-1)?.data as any;
  t.is(last?.nodes['1']?.state, 'finished');
});
