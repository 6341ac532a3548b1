import test from 'ava';
import { WebSocket } from 'ws';
import { gateNode } from '../support/gate-node.ts';
import { startComfyProtocolServer, type ComfyWsMessage, type StartedComfyServer } from '../support/comfy-protocol-server.ts';

// The protocol stand-in's WebSocket (/ws?clientId=) held to comfyui-protocol.md.


const standIn = async (t: { teardown(fn: () => Promise<void>): void }) => {
  const held = gateNode();
  const server = await startComfyProtocolServer({ extraNodes: [held.node] });
  t.teardown(() => server.close());
  return { server, open: held.open };
};

/** A socket recording the JSON frames it gets; `settle()` resolves once the server answered a ping, so every frame it sent before has arrived. */
const socket = async (t: { teardown(fn: () => Promise<void>): void }, server: StartedComfyServer, clientId?: string) => {
  const ws = new WebSocket(clientId === undefined ? server.wsUrl : `${server.wsUrl}?clientId=${encodeURIComponent(clientId)}`);
  const messages: ComfyWsMessage[] = [];
  ws.on('message', (raw, isBinary) => {
    if (!isBinary) messages.push(JSON.parse(raw.toString()) as ComfyWsMessage);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const close = (): Promise<void> =>
    ws.readyState === WebSocket.CLOSED ? Promise.resolve() : new Promise<void>((resolve) => (ws.once('close', () => resolve()), ws.close()));
  t.teardown(close);
  return {
    ws,
    messages,
    types: () => messages.map((m) => m.type),
    settle: () => new Promise<void>((resolve) => (ws.once('pong', () => resolve()), ws.ping())),
    until: async (match: (m: ComfyWsMessage) => boolean, ms = 3000): Promise<ComfyWsMessage | null> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = messages.find(match);
        if (found || Date.now() > deadline) return found ?? null;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    close,
  };
};

const submit = async (server: StartedComfyServer, body: Record<string, unknown>): Promise<void> => {
  const res = await fetch(`${server.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`POST /prompt answered ${res.status}`);
};

const quick = { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } }, '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } } };

// Pins (server.py): an empty clientId is no id; the server makes one (32 hex characters), as without clientId.
test('an empty clientId gets a server-made sid', async (t) => {
  const { server } = await standIn(t);
  const anonymous = await socket(t, server, '');
  const status = await anonymous.until((m) => m.type === 'status');
  t.regex(String(status?.data['sid']), /^[0-9a-f]{32}$/);
});

// Pins (comfyui-protocol.md): on connect only the client whose prompt is running is told its node; another client is not,
// and neither is that client once its prompt has ended.
test('only the socket of the running prompt is told its node on connect, and only while it runs', async (t) => {
  const { server, open } = await standIn(t);
  const owner = await socket(t, server, 'owner');
  await submit(server, { prompt: { '1': { class_type: 'TestGate', inputs: {} } }, client_id: 'owner', prompt_id: 'p' });
  t.truthy(await owner.until((m) => m.type === 'executing' && m.data['node'] === '1'));

  const other = await socket(t, server, 'other');
  await other.settle();
  t.deepEqual(other.types(), ['status'], 'another client is not told the node');
  const back = await socket(t, server, 'owner');
  await back.settle();
  t.deepEqual(back.messages[1], { type: 'executing', data: { node: '1' } }, 'the owner reconnecting is');

  open();
  t.truthy(await back.until((m) => m.type === 'executing' && m.data['node'] === null));
  const after = await socket(t, server, 'owner');
  await after.settle();
  t.deepEqual(after.types(), ['status'], 'once the prompt ended, no node is announced');
});

// Pins the stand-in's reconnect rule: the new socket of a clientId keeps the prompt's events when the socket it replaced
// closes afterwards.
test('a replaced socket closing does not cut its successor off the events', async (t) => {
  const { server } = await standIn(t);
  const first = await socket(t, server, 'c');
  const second = await socket(t, server, 'c');
  await first.close();
  await new Promise((resolve) => setTimeout(resolve, 100)); // the server sees the close
  await submit(server, { prompt: quick, client_id: 'c', prompt_id: 'p' });
  t.truthy(await second.until((m) => m.type === 'executing' && m.data['node'] === null && m.data['prompt_id'] === 'p'));
});

// Pins (comfyui-protocol.md, server.py): feature_flags is answered only as a client's first JSON text message; a binary
// frame does not count as that first message.
test('feature_flags is answered only as the first text message', async (t) => {
  const { server } = await standIn(t);
  const flags = JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } });
  const first = await socket(t, server, 'first');
  first.ws.send(flags);
  await first.settle();
  t.deepEqual(first.messages.find((m) => m.type === 'feature_flags')?.data, { supports_preview_metadata: true, max_upload_size: 104857600 });

  const late = await socket(t, server, 'late');
  late.ws.send(JSON.stringify({ type: 'hello', data: {} }));
  late.ws.send(flags);
  await late.settle();
  t.false(late.types().includes('feature_flags'), 'not answered after another message');

  const afterBinary = await socket(t, server, 'binary');
  afterBinary.ws.send(Buffer.from(JSON.stringify({ type: 'hello', data: {} })), { binary: true });
  afterBinary.ws.send(flags);
  await afterBinary.settle();
  t.true(afterBinary.types().includes('feature_flags'), 'a binary frame is not the first message');
});
