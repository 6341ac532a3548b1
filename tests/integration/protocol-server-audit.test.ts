import { subscribe } from 'node:diagnostics_channel';
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { dirname } from 'node:path';
import test from 'ava';
import { gateNode } from '../support/gate-node.ts';
import { customNode } from '../support/custom-node.ts';
import { connectComfyWs, startComfyProtocolServer, type ComfyStandInOptions, type StartedComfyServer } from '../support/comfy-protocol-server.ts';

// Guards of the protocol stand-in's queue (prompt-queue.ts), its heap (prompt-heap.ts), its progress_state snapshots
// (progress-tracker.ts) and its HTTP plumbing (http-support.ts), held to /work/shared/comfyui-protocol.md and to
// ComfyUI's own PromptQueue (server.py/execution.py at 0.3.64). Expected values are pinned literally; the heap orders
// were computed with Python's heapq on the same (number, prompt_id) tuples.

/** Every server that starts listening in this file, by port (to shut one whose close hangs). */
const listening = new Map<number, Server>();
subscribe('tracing:net.server.listen:asyncEnd', (message) => {
  const server = (message as { server: Server }).server;
  const address = server.address();
  if (address && typeof address === 'object') listening.set(address.port, server);
});

const sleep = (ms: number) => new Promise<'slept'>((resolve) => setTimeout(() => resolve('slept'), ms));

/** Ends a stand-in once (later calls get the first outcome); a stop that has not returned within `ms` is reported as
 * 'hung' and its port is shut anyway (what some of these tests guard against). */
const stops = new WeakMap<StartedComfyServer, Promise<'stopped' | 'hung'>>();
const stopWithin = (server: StartedComfyServer, ms: number): Promise<'stopped' | 'hung'> => {
  let outcome = stops.get(server);
  if (!outcome) {
    outcome = Promise.race([server.stop().then(() => 'stopped' as const), sleep(ms).then(() => 'hung' as const)]).then((result) => {
      if (result === 'hung') {
        const http = listening.get(server.port);
        http?.closeAllConnections();
        http?.close();
      }
      return result;
    });
    stops.set(server, outcome);
  }
  return outcome;
};

/** Stops the stand-in when the test ends and removes its folders. */
const disposeOf = (t: { teardown(fn: () => Promise<void>): void }, server: StartedComfyServer, before: () => void = () => undefined): void => {
  t.teardown(async () => {
    before();
    await stopWithin(server, 5000);
    await rm(dirname(server.outputDir), { recursive: true, force: true });
  });
};

/** A node that reports `steps` progress steps and returns no UI output. */
const stepsNode = customNode(
  'TestSteps',
  { required: { image: ['IMAGE', {}], steps: ['INT', { default: 1, min: 1, max: 100 }] } },
  async (inputs, ctx) => {
    const steps = inputs['steps'] as number;
    for (let k = 1; k <= steps; k++) ctx.progress(k, steps);
    return {};
  },
  { outputNode: true },
);

const standIn = async (t: { teardown(fn: () => Promise<void>): void }, options: ComfyStandInOptions = {}) => {
  const held = gateNode({ required: { key: ['INT', { default: 0, min: 0, max: 1_000_000 }] } });
  const server = await startComfyProtocolServer({ extraNodes: [held.node, stepsNode], ...options });
  disposeOf(t, server, held.open);
  return { server, open: held.open };
};

const gated = (key: number) => ({ '1': { class_type: 'TestGate', inputs: { key } } });
const quick = (color = 0) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color } },
  '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
});
const saving = (prefix: string) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: prefix } },
});

type Target = Pick<StartedComfyServer, 'url'>;
const post = (server: Target, path: string, body?: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const getJson = async (server: Target, path: string): Promise<any> => (await fetch(`${server.url}${path}`)).json();
const submit = async (server: Target, body: Record<string, unknown>): Promise<any> => {
  const res = await post(server, '/prompt', body);
  if (res.status !== 200) throw new Error(`POST /prompt answered ${res.status}: ${await res.text()}`);
  return res.json();
};
const until = async (condition: () => Promise<boolean>, ms = 5000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
};
const runningIds = async (server: Target): Promise<string[]> => (await getJson(server, '/queue')).queue_running.map((item: unknown[]) => item[1]);
const running = (server: Target, id: string): Promise<boolean> => until(async () => (await runningIds(server)).includes(id));
const pendingIds = async (server: Target): Promise<string[]> => (await getJson(server, '/queue')).queue_pending.map((item: unknown[]) => item[1]);
const historyIds = async (server: Target): Promise<string[]> => Object.keys(await getJson(server, '/history'));

// Pins ComfyUI's queue_updated() calls, each a `status` broadcast: put, get (start), task_done, wipe_queue, and
// delete_queue_item (twice when it removed the last pending prompt, through wipe_queue; never for an id not pending).
test('every queue change broadcasts one status with the count of pending plus running prompts', async (t) => {
  const { server, open } = await standIn(t);
  const ws = await connectComfyWs(server.wsUrl, 'w');
  t.teardown(() => ws.close());
  await ws.waitFor((m) => m.type === 'status');
  await submit(server, { prompt: gated(1), prompt_id: 'g', client_id: 'w' });
  t.true(await running(server, 'g'));
  t.deepEqual(await getJson(server, '/prompt'), { exec_info: { queue_remaining: 1 } }, 'the running prompt counts');
  await submit(server, { prompt: quick(1), prompt_id: 'b' });
  await submit(server, { prompt: quick(2), prompt_id: 'c' });
  t.is((await post(server, '/queue', { delete: ['b'] })).status, 200);
  t.is((await post(server, '/queue', { delete: ['nope'] })).status, 200);
  t.deepEqual(await pendingIds(server), ['c'], 'an id that is not pending removes nothing');
  t.is((await post(server, '/queue', { delete: ['c'] })).status, 200);
  t.is((await post(server, '/queue', { clear: true })).status, 200);
  open();
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null);
  const counts = ws.messages.filter((m) => m.type === 'status').map((m) => (m.data as any).status.exec_info.queue_remaining);
  t.deepEqual(counts, [0, 1, 1, 2, 3, 2, 1, 1, 1, 0]);
  t.deepEqual(await historyIds(server), ['g'], 'the deleted prompts never ran');
});

// Pins a delete of one id among many: exactly that prompt leaves, whichever its place in the heap.
test('deleting one pending prompt removes that one only; an unknown id removes none', async (t) => {
  const { server, open } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'g' });
  t.true(await running(server, 'g'));
  for (const id of ['a', 'b', 'c']) await submit(server, { prompt: quick(), prompt_id: id });
  await post(server, '/queue', { delete: ['zzz', 'g'] });
  t.deepEqual((await pendingIds(server)).sort(), ['a', 'b', 'c']);
  t.deepEqual(await runningIds(server), ['g'], 'the running prompt is not deleted');
  await post(server, '/queue', { delete: ['a'] });
  t.deepEqual((await pendingIds(server)).sort(), ['b', 'c']);
  open();
  t.true(await until(async () => (await historyIds(server)).length === 3));
  t.deepEqual(await historyIds(server), ['g', 'b', 'c']);
});

// Pins the heap: GET /queue lists pending prompts in Python heapq order of (number, prompt_id), a delete re-heapifies,
// and prompts run lowest number first, a tie going to the lower prompt_id.
test('pending prompts are listed in heapq order and run by (number, prompt_id), also after a delete', async (t) => {
  const { server, open } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'g' });
  t.true(await running(server, 'g'));
  const pushed: [number, string][] = [[5, 'n5'], [3, 'n3'], [8, 'n8'], [1, 'n1'], [9, 'n9'], [2, 'n2'], [7, 'n7'], [4, 't-b'], [4, 't-a'], [6, 'n6']];
  for (const [number, id] of pushed) await submit(server, { prompt: quick(number), prompt_id: id, number });
  const listed = async () => (await getJson(server, '/queue')).queue_pending.map((item: unknown[]) => [item[0], item[1]]);
  t.deepEqual(await listed(), [[1, 'n1'], [3, 'n3'], [2, 'n2'], [4, 't-a'], [6, 'n6'], [8, 'n8'], [7, 'n7'], [5, 'n5'], [4, 't-b'], [9, 'n9']]);
  await post(server, '/queue', { delete: ['n3'] });
  t.deepEqual(await listed(), [[1, 'n1'], [2, 'n2'], [4, 't-a'], [4, 't-b'], [8, 'n8'], [7, 'n7'], [5, 'n5'], [6, 'n6'], [9, 'n9']]);
  open();
  t.true(await until(async () => (await historyIds(server)).length === 10));
  t.deepEqual(await historyIds(server), ['g', 'n1', 'n2', 't-a', 't-b', 'n5', 'n6', 'n7', 'n8', 'n9']);
});

// Pins a pop with two children where the right one is the smaller: the smaller always runs first.
test('prompts queued in descending order run in ascending order', async (t) => {
  const { server, open } = await standIn(t);
  await submit(server, { prompt: gated(1), prompt_id: 'g' });
  t.true(await running(server, 'g'));
  for (const number of [9, 8, 7, 6, 5, 4, 3, 2, 1]) await submit(server, { prompt: quick(number), prompt_id: `p${number}`, number });
  open();
  t.true(await until(async () => (await historyIds(server)).length === 10));
  t.deepEqual(await historyIds(server), ['g', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
});

// Pins the worker's stop: closing an idle stand-in ends (the worker does not wait again), and a closed stand-in runs none
// of the prompts still pending.
test('closing a stand-in ends promptly and runs no pending prompt', async (t) => {
  const idle = await startComfyProtocolServer();
  disposeOf(t, idle);
  t.is(await stopWithin(idle, 3000), 'stopped', 'an idle stand-in closes');

  const held = gateNode({ required: {} });
  const busy = await startComfyProtocolServer({ extraNodes: [held.node] });
  disposeOf(t, busy, held.open);
  await submit(busy, { prompt: { '1': { class_type: 'TestGate', inputs: {} } }, prompt_id: 'g' });
  t.true(await running(busy, 'g'));
  await submit(busy, { prompt: saving('after-close'), prompt_id: 'late' });
  t.is(await stopWithin(busy, 3000), 'stopped', 'a busy stand-in closes (its running prompt is interrupted)');
  t.deepEqual(readdirSync(busy.outputDir), [], 'the pending prompt never ran');
});

// Pins ComfyUI's ProgressRegistry as progress_state shows it: a node starts at 0/1 running, a step sets value and max, a
// node finishes at its max, and the previous node finishes when the next one starts.
test('progress_state snapshots follow each node from start through its steps to finished', async (t) => {
  const { server } = await standIn(t);
  const ws = await connectComfyWs(server.wsUrl, 'p');
  t.teardown(() => ws.close());
  const graph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
    '2': { class_type: 'TestSteps', inputs: { image: ['1', 0], steps: 2 } },
  };
  await submit(server, { prompt: graph, prompt_id: 'steps', client_id: 'p' });
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null);
  const snapshots = ws.messages.filter((m) => m.type === 'progress_state').map((m) => m.data as any);
  t.true(snapshots.every((s) => s.prompt_id === 'steps'));
  const node = (id: string, value: number, max: number, state: string) => ({
    value,
    max,
    state,
    node_id: id,
    prompt_id: 'steps',
    display_node_id: id,
    parent_node_id: null,
    real_node_id: id,
  });
  t.deepEqual(
    snapshots.map((s) => s.nodes),
    [
      { '1': node('1', 0, 1, 'running') },
      { '1': node('1', 1, 1, 'finished') },
      { '1': node('1', 1, 1, 'finished'), '2': node('2', 0, 1, 'running') },
      { '1': node('1', 1, 1, 'finished'), '2': node('2', 1, 2, 'running') },
      { '1': node('1', 1, 1, 'finished'), '2': node('2', 2, 2, 'running') },
      { '1': node('1', 1, 1, 'finished'), '2': node('2', 2, 2, 'finished') },
    ],
  );

  // Nodes with UI output finish when they report it: no second "finished" snapshot when the next node starts or the
  // prompt ends.
  const withUi = {
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 1 } },
    '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
    '3': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '4': { class_type: 'PreviewImage', inputs: { images: ['3', 0] } },
  };
  await submit(server, { prompt: withUi, prompt_id: 'ui', client_id: 'p' });
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null && m.data['prompt_id'] === 'ui');
  const shown = ws.messages
    .filter((m) => m.type === 'progress_state' && m.data['prompt_id'] === 'ui')
    .map((m) => Object.entries((m.data as any).nodes as Record<string, any>).map(([id, p]) => `${id} ${p.value}/${p.max} ${p.state}`).join(', '));
  t.deepEqual(shown, [
    '1 0/1 running',
    '1 1/1 finished',
    '1 1/1 finished, 2 0/1 running',
    '1 1/1 finished, 2 1/1 running',
    '1 1/1 finished, 2 1/1 finished',
    '1 1/1 finished, 2 1/1 finished, 3 0/1 running',
    '1 1/1 finished, 2 1/1 finished, 3 1/1 finished',
    '1 1/1 finished, 2 1/1 finished, 3 1/1 finished, 4 0/1 running',
    '1 1/1 finished, 2 1/1 finished, 3 1/1 finished, 4 1/1 running',
    '1 1/1 finished, 2 1/1 finished, 3 1/1 finished, 4 1/1 finished',
  ]);

  // A prompt answered from the cache shows only its output nodes, each finished as it re-sends its output.
  await submit(server, { prompt: withUi, prompt_id: 'cached', client_id: 'p' });
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null && m.data['prompt_id'] === 'cached');
  const cached = ws.messages
    .filter((m) => m.type === 'progress_state' && m.data['prompt_id'] === 'cached')
    .map((m) => Object.entries((m.data as any).nodes as Record<string, any>).map(([id, p]) => `${id} ${p.value}/${p.max} ${p.state}`).join(', '));
  t.deepEqual(cached, ['2 1/1 finished', '2 1/1 finished, 4 1/1 finished']);
});

// Pins aiohttp's request.json(), which ignores the Content-Type: a JSON body sent as text is read.
test('POST /prompt reads a JSON body whatever its content type', async (t) => {
  const { server } = await standIn(t);
  const res = await fetch(`${server.url}/prompt`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ prompt: quick(), prompt_id: 'plain' }) });
  t.is(res.status, 200);
  t.like(await res.json(), { prompt_id: 'plain', node_errors: {} });
  t.true(await until(async () => (await historyIds(server)).includes('plain')));
});

// Pins aiohttp's answers: an unknown route is a plain-text 404, and a body over --max-upload-size is a 413 naming both sizes.
test('an unknown route is a plain 404 and a body over the size limit a 413', async (t) => {
  const { server } = await standIn(t, { maxUploadBytes: 1000 });
  for (const path of ['/nowhere', '/api/nowhere']) {
    const res = await fetch(`${server.url}${path}`);
    t.is(res.status, 404, path);
    t.is(await res.text(), '404: Not Found');
  }
  const big = JSON.stringify({ prompt: quick(), pad: 'x'.repeat(2000) });
  const res = await fetch(`${server.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
  t.is(res.status, 413);
  t.is(await res.text(), `Maximum request body size 1000 exceeded, actual body size ${Buffer.byteLength(big)}`);
  t.deepEqual(await getJson(server, '/queue'), { queue_running: [], queue_pending: [] });
});
