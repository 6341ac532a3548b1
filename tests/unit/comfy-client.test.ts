import { createServer, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import test from 'ava';
import { WebSocketServer } from 'ws';
import { ComfyClient, ComfyUnavailable } from '../../adapters/comfyui/comfy-client.ts';

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** A fetch that answers every call with `answer(call)` (an Error is thrown, as a network failure) and records the calls. */
const serving = (answer: (call: Call) => Response | Error) => {
  const calls: Call[] = [];
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    const call: Call = { url: String(input), method: init?.method ?? 'GET', headers: new Headers(init?.headers), body: init?.body };
    calls.push(call);
    const answered = answer(call);
    if (answered instanceof Error) throw answered;
    return answered;
  }) as typeof fetch;
  return { calls, fetch: fetchStub };
};

const json = (body: unknown, status = 200): Response => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const text = (body: string, status: number): Response => new Response(body, { status, headers: { 'content-type': 'text/plain' } });

const clientOf = (url: string, answer: (call: Call) => Response | Error, options: { token?: string } = {}) => {
  const served = serving(answer);
  const client = new ComfyClient(url, { timeoutMs: 5000, label: 'server 1', fetch: served.fetch, ...options });
  return { client, calls: served.calls };
};

const emptyQueue = (): Response => json({ queue_running: [], queue_pending: [] });

// Pins: ComfyUI has no authentication; operators put it behind a proxy. Credentials in the server URL become basic auth on
// every call (never sent inside the URL), COMFYUI_TOKEN a bearer token, and a server with neither gets no authorization
// header at all; a URL with a path prefix and a trailing slash reaches the same paths.
test('a server URL with user:password sends basic auth, a token goes as a bearer, neither sends none; the URL keeps its path prefix', async (t) => {
  const basic = clientOf('http://alice:s%3Acret@gpu.example:8188/', emptyQueue, { token: 'ignored' });
  await basic.client.queue();
  t.is(basic.calls[0]!.url, 'http://gpu.example:8188/queue');
  t.is(basic.calls[0]!.headers.get('authorization'), `Basic ${Buffer.from('alice:s:cret').toString('base64')}`);
  t.is(basic.client.name, 'http://gpu.example:8188');

  const bearer = clientOf('http://gpu.example:8188', emptyQueue, { token: 't0ken' });
  await bearer.client.queue();
  t.is(bearer.calls[0]!.headers.get('authorization'), 'Bearer t0ken');

  const open = clientOf('http://proxy.example/comfy/', emptyQueue);
  await open.client.queue();
  t.is(open.calls[0]!.url, 'http://proxy.example/comfy/queue');
  t.is(open.calls[0]!.headers.get('authorization'), null);
});

// Pins: the socket goes through the same proxy, so it carries the same credentials as the HTTP calls.
test('the socket carries the basic auth of the server URL', async (t) => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  t.teardown(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const seen = new Promise<IncomingMessage>((resolve) => wss.once('connection', (_ws, req) => resolve(req)));
  const port = (wss.address() as { port: number }).port;
  const client = new ComfyClient(`http://bob:pw@127.0.0.1:${port}`, { timeoutMs: 5000, label: 'server 1' });
  const socket = await client.openSocket('run-1');
  t.teardown(() => socket.close());
  const req = await seen;
  t.is(req.headers.authorization, `Basic ${Buffer.from('bob:pw').toString('base64')}`);
  t.is(new URL(req.url ?? '', 'http://x').searchParams.get('clientId'), 'run-1');
});

// Pins: the socket of an https server is encrypted (wss), never plain text to the TLS port.
test('the socket of an https server speaks TLS', async (t) => {
  let first: Buffer | null = null;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', (chunk: Buffer) => {
      first ??= chunk;
      socket.destroy();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as { port: number }).port;
  const client = new ComfyClient(`https://127.0.0.1:${port}`, { timeoutMs: 5000, label: 'server 1' });
  await t.throwsAsync(client.openSocket('run-1'), { instanceOf: ComfyUnavailable });
  t.not(first, null);
  t.is(first![0], 0x16, 'a TLS handshake record, not an HTTP request line');
});

// Pins: a proxy refusing the socket's upgrade is reported with its status, so the operator sees why.
test('a refused socket upgrade is an unreachable server naming the status', async (t) => {
  const server = createServer((socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  const client = new ComfyClient(`http://127.0.0.1:${port}`, { timeoutMs: 5000, label: 'server 1' });
  await t.throwsAsync(client.openSocket('run-1'), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: socket: upgrade answered 401' });
});

// Pins how POST /prompt answers are read: 200 is accepted (with our own id when the server names none, and no node errors
// when it lists none), 400 is the prompt's rejection, anything else means the server is not usable now.
test('POST /prompt: 200 accepted, 400 rejected, any other answer an unreachable server', async (t) => {
  const bare = clientOf('http://gpu.example:8188', () => json({}));
  t.deepEqual(await bare.client.submit({}, 'c', 'ours', {}), { kind: 'accepted', promptId: 'ours', nodeErrors: {} });

  const named = clientOf('http://gpu.example:8188', () => json({ prompt_id: 'theirs', number: 3, node_errors: {} }));
  t.deepEqual(await named.client.submit({}, 'c', 'ours', {}), { kind: 'accepted', promptId: 'theirs', nodeErrors: {} });

  const rejected = clientOf('http://gpu.example:8188', () => json({}, 400));
  t.deepEqual(await rejected.client.submit({}, 'c', 'ours', {}), { kind: 'rejected', error: {}, nodeErrors: {} });

  const notFound = clientOf('http://gpu.example:8188', () => json({ detail: 'no such route' }, 404));
  await t.throwsAsync(notFound.client.submit({}, 'c', 'ours', {}), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: POST /prompt answered 404' });

  const html = clientOf('http://gpu.example:8188', () => text('<html>proxy error page</html>', 200));
  await t.throwsAsync(html.client.submit({}, 'c', 'ours', {}), { instanceOf: ComfyUnavailable, message: /answered 200 without JSON/ });
});

// Pins: a server error or a proxy refusing our credentials is an unreachable server whose message names the status
// (whatever page came with it), once.
test('a 5xx, 401 or 403 answer is an unreachable server naming the call and the status', async (t) => {
  for (const status of [500, 503, 401, 403]) {
    const { client } = clientOf('http://gpu.example:8188', () => text('<html>nope</html>', status));
    await t.throwsAsync(client.submit({}, 'c', 'ours', {}), { instanceOf: ComfyUnavailable, message: `ComfyUI server 1: POST /prompt answered ${status}` });
    await t.throwsAsync(client.queue(), { instanceOf: ComfyUnavailable, message: `ComfyUI server 1: GET /queue answered ${status}` });
  }
});

// Pins: a network failure names its cause, never the server's address (error texts reach users).
test('a network failure is an unreachable server naming the cause, without the address', async (t) => {
  const refused = clientOf('http://10.0.0.5:8188', () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
  await t.throwsAsync(refused.client.queue(), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: GET /queue: ECONNREFUSED' });
  const named = clientOf('http://gpu.example:8188', () => new TypeError('fetch failed', { cause: { message: 'getaddrinfo ENOTFOUND gpu.example' } }));
  await t.throwsAsync(named.client.queue(), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: GET /queue: getaddrinfo ENOTFOUND server 1' });
});

// Pins: a GET answered other than 200 (a proxy's 404, say) is an unreachable server, never read as an empty queue or history;
// a queue answer without one of its lists has that list empty.
test('GET /queue and /history: only a 200 is read; a missing list is empty', async (t) => {
  const proxied = clientOf('http://gpu.example:8188', () => json({}, 404));
  await t.throwsAsync(proxied.client.queue(), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: GET /queue answered 404' });
  await t.throwsAsync(proxied.client.history('p'), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: GET /history/p answered 404' });
  const partial = clientOf('http://gpu.example:8188', () => json({}));
  t.deepEqual(await partial.client.queue(), { running: [], pending: [] });
});

// Pins: whether an output file is still on the server: 200 yes, 404 no (the job runs again), anything else is an
// unreachable server, never "present".
test('hasFile: 200 is present, 404 is gone, any other answer an unreachable server', async (t) => {
  const file = { filename: 'x_00001_.png', subfolder: 'mgs/run', type: 'output' };
  const { client, calls } = clientOf('http://gpu.example:8188', (call) =>
    call.url.includes('present') ? new Response(new Uint8Array([1, 2, 3]), { status: 200 }) : text('', call.url.includes('gone') ? 404 : 400),
  );
  t.true(await client.hasFile({ ...file, filename: 'present.png' }));
  t.false(await client.hasFile({ ...file, filename: 'gone.png' }));
  await t.throwsAsync(client.hasFile({ ...file, filename: 'bad.png' }), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: GET /view of mgs/run/bad.png answered 400' });
  t.is(calls[0]!.url, 'http://gpu.example:8188/view?filename=present.png&subfolder=mgs%2Frun&type=output');
});

// Pins: an upload names the file LoadImage must use (subfolder/name, or the bare name when the server put it at the top),
// and an upload the server refused is an unreachable server, not a name.
test('upload: the name LoadImage uses, and a refused upload is an unreachable server', async (t) => {
  const inFolder = clientOf('http://gpu.example:8188', () => json({ name: 'in.png', subfolder: 'mgs/run', type: 'input' }));
  t.is(await inFolder.client.upload('in.png', Buffer.from([1]), 'image/png', 'mgs/run'), 'mgs/run/in.png');
  const form = inFolder.calls[0]!.body as FormData;
  t.deepEqual([form.get('type'), form.get('subfolder'), form.get('overwrite'), (form.get('image') as File).name], ['input', 'mgs/run', 'true', 'in.png']);
  const atTop = clientOf('http://gpu.example:8188', () => json({ name: 'in.png', subfolder: '', type: 'input' }));
  t.is(await atTop.client.upload('in.png', Buffer.from([1]), 'image/png'), 'in.png');
  const refused = clientOf('http://gpu.example:8188', () => text('', 400));
  await t.throwsAsync(refused.client.upload('in.png', Buffer.from([1]), 'image/png'), { instanceOf: ComfyUnavailable, message: 'ComfyUI server 1: POST /upload/image answered 400' });
});

// Pins: a cancel the server did not take (its delete or interrupt answered other than 200) is an error, not a done cancel.
test('a delete or an interrupt the server did not take is an unreachable server', async (t) => {
  const { client, calls } = clientOf('http://gpu.example:8188', () => text('', 405));
  await t.throwsAsync(client.deletePending('p'), { instanceOf: ComfyUnavailable });
  await t.throwsAsync(client.interrupt('p'), { instanceOf: ComfyUnavailable });
  t.deepEqual(calls.map((c) => [c.method, new URL(c.url).pathname, c.body]), [
    ['POST', '/queue', JSON.stringify({ delete: ['p'] })],
    ['POST', '/interrupt', JSON.stringify({ prompt_id: 'p' })],
  ]);
  const ok = clientOf('http://gpu.example:8188', () => new Response(null, { status: 200 }));
  await t.notThrowsAsync(ok.client.deletePending('p'));
  await t.notThrowsAsync(ok.client.interrupt('p'));
});
