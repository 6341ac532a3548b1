import { request } from 'node:http';
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
