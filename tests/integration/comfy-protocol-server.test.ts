import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { WebSocket } from 'ws';
import { connectComfyWs, startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import type { ComfyWsMessage, StartedComfyServer } from '../support/comfy-protocol-server.ts';

const postJson = (server: StartedComfyServer, path: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const getJson = async (server: StartedComfyServer, path: string): Promise<any> => (await fetch(`${server.url}${path}`)).json();

const emptyThenSave = (prefix: string) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: 0xff0000 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: prefix } },
});

/** About 20 s of CPU if nobody interrupts it: radius-31 blur of 64 frames of 512x512. */
const longBlur = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 64, color: 0 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blur' } },
});

const waitForHistory = async (server: StartedComfyServer, promptId: string, timeoutMs = 20_000): Promise<any> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const history = await getJson(server, `/history/${promptId}`);
    if (history[promptId]) return history[promptId];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`prompt ${promptId} never reached history`);
};

const forPrompt = (promptId: string, type: string) => (m: ComfyWsMessage) => m.type === type && m.data['prompt_id'] === promptId;

test('a prompt with a client_id streams ComfyUI events in order, then history and /view serve the result', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const ws = await connectComfyWs(server.wsUrl, 'client-a');
  t.teardown(() => ws.close());
  await ws.waitFor((m) => m.type === 'status');

  const res = await postJson(server, '/prompt', { prompt: emptyThenSave('probe/test'), client_id: 'client-a', extra_data: { mine: 42 } });
  t.is(res.status, 200);
  const accepted = (await res.json()) as { prompt_id: string; number: number; node_errors: object };
  t.is(accepted.number, 0);
  t.deepEqual(accepted.node_errors, {});
  const id = accepted.prompt_id;
  t.regex(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null);

  // progress/progress_state depend on which nodes report progress; every other event is exact.
  const events = ws.messages.filter((m) => m.type !== 'progress' && m.type !== 'progress_state');
  t.deepEqual(
    events.map((m) => [m.type, m.data['node'] ?? m.data['status'] ?? null]),
    [
      ['status', { exec_info: { queue_remaining: 0 } }],
      ['status', { exec_info: { queue_remaining: 1 } }],
      ['status', { exec_info: { queue_remaining: 1 } }],
      ['execution_start', null],
      ['execution_cached', null],
      ['executing', '1'],
      ['executing', '2'],
      ['executed', '2'],
      ['execution_success', null],
      ['status', { exec_info: { queue_remaining: 0 } }],
      ['executing', null],
    ],
  );
  t.is(events[0]?.data['sid'], 'client-a');
  t.deepEqual(events[4]?.data, { nodes: [], prompt_id: id, timestamp: events[4]?.data['timestamp'] });
  t.deepEqual(events[5]?.data, { node: '1', display_node: '1', prompt_id: id });
  const image = { filename: 'test_00001_.png', subfolder: 'probe', type: 'output' };
  t.deepEqual(events[7]?.data, { node: '2', display_node: '2', output: { images: [image] }, prompt_id: id });
  t.deepEqual(events[10]?.data, { node: null, prompt_id: id });
  const lastState = ws.messages.filter((m) => m.type === 'progress_state').at(-1)?.data as any;
  t.deepEqual(Object.keys(lastState.nodes), ['1', '2']);
  t.is(lastState.nodes['2'].state, 'finished');

  const history = await getJson(server, `/history/${id}`);
  const entry = history[id];
  t.deepEqual(entry.prompt, [0, id, emptyThenSave('probe/test'), { mine: 42, client_id: 'client-a' }, ['2']]);
  t.deepEqual(entry.outputs, { '2': { images: [image] } });
  t.is(entry.status.status_str, 'success');
  t.true(entry.status.completed);
  t.deepEqual(entry.status.messages.map((m: [string, unknown]) => m[0]), ['execution_start', 'execution_cached', 'execution_success']);
  t.deepEqual(entry.meta, { '2': { node_id: '2', display_node: '2', parent_node: null, real_node_id: '2' } });
  t.deepEqual(Object.keys(await getJson(server, '/api/history?max_items=1')), [id]);

  const view = await fetch(`${server.url}/api/view?filename=${encodeURIComponent('test_00001_.png [output]')}&subfolder=probe`);
  t.is(view.status, 200);
  t.is(view.headers.get('content-type'), 'image/png');
  t.is(view.headers.get('content-disposition'), 'filename="test_00001_.png"');
  const png = Buffer.from(await view.arrayBuffer());
  const meta = await sharp(png).metadata();
  t.like(meta, { format: 'png', width: 64, height: 48 });
  const jpeg = await fetch(`${server.url}/view?filename=test_00001_.png&subfolder=probe&type=output&preview=jpeg;80`);
  t.is(jpeg.headers.get('content-type'), 'image/jpeg');
  t.like(await sharp(Buffer.from(await jpeg.arrayBuffer())).metadata(), { format: 'jpeg', width: 64 });
});

test('validation failures answer 400 with ComfyUI error shapes, and still advance the number counter', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const noPrompt = await postJson(server, '/prompt', { client_id: 'x' });
  t.is(noPrompt.status, 400);
  t.deepEqual(await noPrompt.json(), {
    error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
    node_errors: {},
  });
  const graph = emptyThenSave('v');
  delete (graph['1'].inputs as Record<string, unknown>)['height'];
  const missing = await postJson(server, '/api/prompt', { prompt: graph });
  t.is(missing.status, 400);
  const body = (await missing.json()) as any;
  t.is(body.error.type, 'prompt_outputs_failed_validation');
  t.deepEqual(body.node_errors['1'], {
    errors: [{ type: 'required_input_missing', message: 'Required input is missing', details: 'height', extra_info: { input_name: 'height' } }],
    dependent_outputs: ['2'],
    class_type: 'EmptyImage',
  });
  const ok = await postJson(server, '/prompt', { prompt: emptyThenSave('v'), prompt_id: 'mine' });
  t.deepEqual(await ok.json(), { prompt_id: 'mine', number: 2, node_errors: {} });
  await waitForHistory(server, 'mine');
});

test('a body that is not JSON gets the plain-text 500', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const res = await fetch(`${server.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
  t.is(res.status, 500);
  t.regex(res.headers.get('content-type') ?? '', /^text\/plain/);
  t.true((await res.text()).startsWith('500 Internal Server Error'));
});

test('pending prompts are listed by /queue and a deleted one never reaches history', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const ws = await connectComfyWs(server.wsUrl, 'q');
  t.teardown(() => ws.close());
  await postJson(server, '/prompt', { prompt: longBlur(), prompt_id: 'long', client_id: 'q' });
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === '2');
  await postJson(server, '/prompt', { prompt: emptyThenSave('b'), prompt_id: 'b' });
  await postJson(server, '/prompt', { prompt: emptyThenSave('c'), prompt_id: 'c' });
  const front = (await (await postJson(server, '/prompt', { prompt: emptyThenSave('d'), prompt_id: 'd', front: true })).json()) as any;
  t.is(front.number, -3);

  const queue = await getJson(server, '/queue');
  t.deepEqual(queue.queue_running.map((item: unknown[]) => item[1]), ['long']);
  t.is(queue.queue_running[0].length, 5);
  t.deepEqual(queue.queue_running[0][3], { client_id: 'q' });
  // Heap order, as ComfyUI shows it: [-3 d, 2 c, 1 b] after pushing 1, 2, -3.
  t.deepEqual(queue.queue_pending.map((item: unknown[]) => [item[0], item[1], item[4]]), [
    [-3, 'd', ['2']],
    [2, 'c', ['2']],
    [1, 'b', ['2']],
  ]);
  t.deepEqual(await getJson(server, '/api/prompt'), { exec_info: { queue_remaining: 4 } });
  t.deepEqual(await getJson(server, '/history/b'), {});

  const deleted = await postJson(server, '/queue', { delete: ['b', 'long'] });
  t.is(deleted.status, 200);
  t.is(await deleted.text(), '');
  t.deepEqual((await getJson(server, '/queue')).queue_pending.map((item: unknown[]) => item[1]), ['d', 'c']);
  t.is((await getJson(server, '/queue')).queue_running[0][1], 'long', 'the running prompt is not deleted');

  await postJson(server, '/interrupt', {});
  const order: string[] = [];
  for (const id of ['long', 'd', 'c']) {
    await waitForHistory(server, id);
    order.push(id);
  }
  t.deepEqual(Object.keys(await getJson(server, '/history')), ['long', 'd', 'c']);
  t.deepEqual(await getJson(server, '/history/b'), {});
  t.deepEqual(await getJson(server, '/queue'), { queue_running: [], queue_pending: [] });
});

test('interrupting a running prompt by id ends it with execution_interrupted and an error history entry', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const first = await connectComfyWs(server.wsUrl, 'int');
  t.teardown(() => first.close());
  const res = await postJson(server, '/prompt', { prompt: longBlur(), client_id: 'int' });
  const id = ((await res.json()) as { prompt_id: string }).prompt_id;
  await first.waitFor((m) => m.type === 'progress' && m.data['node'] === '2');

  // Reconnecting with the same clientId takes the stream over and is told which node runs.
  const second = await connectComfyWs(server.wsUrl, 'int');
  t.teardown(() => second.close());
  await second.waitFor((m) => m.type === 'executing');
  t.deepEqual(second.messages.slice(0, 2).map((m) => m.type), ['status', 'executing']);
  t.deepEqual(second.messages[1]?.data, { node: '2' });

  // An id that is not running is a quiet no-op.
  t.is((await postJson(server, '/interrupt', { prompt_id: 'someone-else' })).status, 200);
  await second.waitFor((m) => m.type === 'progress');
  t.is((await postJson(server, '/api/interrupt', { prompt_id: id })).status, 200);

  const interrupted = await second.waitFor(forPrompt(id, 'execution_interrupted'));
  t.like(interrupted.data, { prompt_id: id, node_id: '2', node_type: 'ImageBlur', executed: ['1'] });
  t.is(typeof interrupted.data['timestamp'], 'number');
  await second.waitFor((m) => m.type === 'executing' && m.data['node'] === null);
  const history = await waitForHistory(server, id, 1000);
  t.is(history.status.status_str, 'error');
  t.false(history.status.completed);
  t.is(history.status.messages.at(-1)[0], 'execution_interrupted');
  t.deepEqual(history.outputs, {});
  t.false(first.messages.some((m) => m.type === 'execution_interrupted'), 'the replaced socket gets nothing more');
});

test('uploads dedupe identical content, rename different content, and LoadImage reads them', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const png = (r: number) => sharp({ create: { width: 8, height: 6, channels: 3, background: { r, g: 0, b: 0 } } }).png().toBuffer();
  const upload = async (data: Buffer, fields: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(data)], { type: 'image/png' }), 'pic.png');
    const res = await fetch(`${server.url}/upload/image`, { method: 'POST', body: form });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const red = await png(255);
  t.deepEqual(await upload(red), { status: 200, body: { name: 'pic.png', subfolder: '', type: 'input' } });
  t.deepEqual(await upload(red), { status: 200, body: { name: 'pic.png', subfolder: '', type: 'input' } });
  t.deepEqual(await upload(await png(10)), { status: 200, body: { name: 'pic (1).png', subfolder: '', type: 'input' } });
  t.deepEqual(await upload(await png(10), { subfolder: 'sub' }), { status: 200, body: { name: 'pic.png', subfolder: 'sub', type: 'input' } });
  const missing = await fetch(`${server.url}/upload/image`, { method: 'POST', body: new FormData() });
  t.is(missing.status, 400);

  const graph = {
    '1': { class_type: 'LoadImage', inputs: { image: 'pic (1).png' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'loaded' } },
  };
  const res = await postJson(server, '/prompt', { prompt: graph, prompt_id: 'load' });
  t.is(res.status, 200);
  const entry = await waitForHistory(server, 'load');
  t.is(entry.status.status_str, 'success');
  const saved = await fetch(`${server.url}/view?filename=loaded_00001_.png&type=output`);
  const { data } = await sharp(Buffer.from(await saved.arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
  t.deepEqual([...data.subarray(0, 3)], [10, 0, 0]);
  const input = await fetch(`${server.url}/view?filename=pic.png&type=input&subfolder=sub`);
  t.is(input.status, 200);
});

test('/view refuses bad names and types, 404s missing files and 403s subfolder escapes', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const status = async (query: string) => (await fetch(`${server.url}/view?${query}`)).status;
  t.is(await status('filename=..%2Fsecret.png'), 400);
  t.is(await status('filename=%2Fetc%2Fpasswd'), 400);
  t.is(await status('filename=a.png&type=models'), 400);
  t.is(await status('filename=nope.png'), 404);
  t.is(await status('filename=nope.png&type=temp'), 404);
  t.is(await status('filename=a.png&subfolder=..%2F..'), 403);
  t.is(await status(''), 404);
});

// Pins ComfyUI's upload path rule: a subfolder or file name that climbs out of the input folder is refused (400), nothing written.
test('an upload whose subfolder or file name climbs out of the input folder is refused and writes nothing', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const upload = async (filename: string, fields: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set('image', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), filename);
    return (await fetch(`${server.url}/upload/image`, { method: 'POST', body: form })).status;
  };
  const root = dirname(server.inputDir);
  t.is(await upload('escaped.png', { subfolder: '../output' }), 400);
  t.false(existsSync(join(root, 'output', 'escaped.png')), 'nothing written into the output folder');
  t.is(await upload('../climbed.png'), 400);
  t.false(existsSync(join(root, 'climbed.png')), 'nothing written beside the input folder');
  t.is(await upload('fine.png', { subfolder: 'a/../b' }), 200, 'a subfolder that stays inside is fine');
  t.true(existsSync(join(server.inputDir, 'b', 'fine.png')));
});

// Pins the stand-in's client_max_size: an upload over the limit is refused with 413 and never written, declared or streamed.
test('an upload over the size limit is refused with 413 and not written, whether its length is declared or not', async (t) => {
  const server = await startComfyProtocolServer({ maxUploadBytes: 4096 });
  t.teardown(() => server.close());
  const form = new FormData();
  form.set('image', new Blob([new Uint8Array(8192)], { type: 'image/png' }), 'big.png');
  const declared = await fetch(`${server.url}/upload/image`, { method: 'POST', body: form });
  t.is(declared.status, 413);
  const encoded = new Response(form);
  const chunked = await fetch(`${server.url}/upload/image`, {
    method: 'POST',
    headers: { 'content-type': encoded.headers.get('content-type')! },
    body: encoded.body,
    duplex: 'half',
  } as RequestInit);
  t.is(chunked.status, 413, 'a body without content-length is cut at the limit too');
  t.false(existsSync(join(server.inputDir, 'big.png')));
});

// Pins ComfyUI's origin_only_middleware scope: only a loopback Host is guarded; a server reached by another address answers any Origin.
test('a foreign Origin is refused only when the Host is a loopback address', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const statusWith = (host: string, origin: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/system_stats`, { headers: { host, origin } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  t.is(await statusWith(`127.0.0.1:${server.port}`, 'http://evil.example'), 403);
  t.is(await statusWith(`10.1.2.3:${server.port}`, 'http://evil.example'), 200);
  t.is(await statusWith(`127.0.0.1:${server.port}`, `http://127.0.0.1:${server.port}`), 200);
});

test('a loopback Host with a foreign Origin is refused, over HTTP and WebSocket', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const statusWithOrigin = (origin: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/system_stats`, { headers: { origin } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  t.is(await statusWithOrigin('http://evil.example'), 403);
  t.is(await statusWithOrigin(server.url), 200);
  const stats = await getJson(server, '/system_stats');
  t.is(stats.system.comfyui_version, '0.3.64');
  t.like(stats.devices[0], { name: 'cpu', type: 'cpu' });

  const refused = await new Promise<number>((resolve) => {
    const ws = new WebSocket(server.wsUrl, { origin: 'http://evil.example' });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => resolve(101));
    ws.on('error', () => undefined);
  });
  t.is(refused, 403);
  const anonymous = await connectComfyWs(server.wsUrl);
  t.teardown(() => anonymous.close());
  const status = await anonymous.waitFor((m) => m.type === 'status');
  t.regex(String(status.data['sid']), /^[0-9a-f]{32}$/);
});

test('a prompt without client_id only broadcasts progress, and POST /history windows, deletes and clears', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const watcher = await connectComfyWs(server.wsUrl);
  t.teardown(() => watcher.close());
  const graph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 3, color: 0 } },
    '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1 } },
    '3': { class_type: 'PreviewImage', inputs: { images: ['2', 0] } },
  };
  for (const id of ['h1', 'h2', 'h3']) {
    t.is((await postJson(server, '/prompt', { prompt: graph, prompt_id: id })).status, 200);
    await waitForHistory(server, id);
  }
  await watcher.waitFor((m) => m.type === 'status' && (m.data['status'] as any).exec_info.queue_remaining === 0 && m !== watcher.messages[0]);
  const types = new Set(watcher.messages.map((m) => m.type));
  t.deepEqual([...types].sort(), ['progress', 'progress_state', 'status']);
  t.like(watcher.messages.find((m) => m.type === 'progress')?.data, { value: 1, max: 3, prompt_id: 'h1', node: '2' });
  const preview = (await getJson(server, '/history/h1')).h1.outputs['3'].images[0];
  t.like(preview, { subfolder: '', type: 'temp' });
  t.regex(preview.filename, /^ComfyUI_temp_[a-z]{5}_00001_\.png$/);

  t.deepEqual(Object.keys(await getJson(server, '/history?max_items=2')), ['h2', 'h3']);
  t.deepEqual(Object.keys(await getJson(server, '/history?max_items=1&offset=1')), ['h2']);
  t.is((await fetch(`${server.url}/history?max_items=two`)).status, 500);
  t.is((await postJson(server, '/history', { delete: ['h2'] })).status, 200);
  t.deepEqual(Object.keys(await getJson(server, '/history')), ['h1', 'h3']);
  await postJson(server, '/api/history', { clear: true });
  t.deepEqual(await getJson(server, '/history'), {});
});

test('a node failing at run time gives execution_error and an error history entry', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const ws = await connectComfyWs(server.wsUrl, 'err');
  t.teardown(() => ws.close());
  // ImageBatch of an RGB and an RGBA image passes validation but fails at run time, as in ComfyUI.
  const graph = {
    '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0 } },
    '2': { class_type: 'SolidMask', inputs: { value: 0.5, width: 16, height: 16 } },
    '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
    '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
    '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'e' } },
  };
  t.is((await postJson(server, '/prompt', { prompt: graph, client_id: 'err', prompt_id: 'bad' })).status, 200);
  const error = await ws.waitFor(forPrompt('bad', 'execution_error'));
  t.like(error.data, { node_id: '4', node_type: 'ImageBatch', executed: ['1', '2', '3'], exception_type: 'RuntimeError', traceback: [] });
  t.is(typeof error.data['exception_message'], 'string');
  await ws.waitFor((m) => m.type === 'executing' && m.data['node'] === null);
  const history = await waitForHistory(server, 'bad', 1000);
  t.like(history.status, { status_str: 'error', completed: false });
  t.is(history.status.messages.at(-1)[0], 'execution_error');
});
