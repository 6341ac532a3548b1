import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { WebSocket } from 'ws';
import { connectComfyWs, startComfyProtocolServer } from '../support/comfy-protocol-server.ts';

// Guards of adapters/comfyui-protocol-server/comfy-protocol-server.ts, held to ../shared/comfyui-protocol.md.

/** The status of a WebSocket upgrade to `url` (101 when it opened). */
const upgradeStatus = (url: string): Promise<number> =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('error', () => undefined);
  });

// Pins: the socket is served at /ws and at /api/ws (ComfyUI's routes are mounted under /api too); any other path is 404.
test('the WebSocket answers at /ws and /api/ws, and 404 elsewhere', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const base = `ws://127.0.0.1:${server.port}`;
  t.is(await upgradeStatus(`${base}/ws?clientId=a`), 101);
  const viaApi = await connectComfyWs(`${base}/api/ws`, 'b');
  t.teardown(() => viaApi.close());
  const status = await viaApi.waitFor((m) => m.type === 'status');
  t.is(status.data['sid'], 'b');
  t.is(await upgradeStatus(`${base}/elsewhere`), 404);
  t.is(await upgradeStatus(`${base}/api/elsewhere`), 404);
});

// Pins: the temp folder (previews) is wiped at start-up; the output and input folders are kept.
test('start-up wipes the temp folder and keeps output and input', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'comfy-audit-'));
  for (const dir of ['temp', 'output', 'input']) {
    await mkdir(join(root, dir), { recursive: true });
    await writeFile(join(root, dir, 'old.png'), 'x');
  }
  const server = await startComfyProtocolServer({ root });
  t.teardown(() => server.close());
  t.false(existsSync(join(root, 'temp', 'old.png')));
  t.true(existsSync(join(root, 'temp')));
  t.true(existsSync(join(root, 'output', 'old.png')));
  t.true(existsSync(join(root, 'input', 'old.png')));
});

// Pins: an idle connection is kept 75 s like aiohttp's (a client's reuse must not race Node's default 5 s close).
test('HTTP keep-alive is announced with a 75 s timeout', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
    const req = request(`${server.url}/system_stats`, { headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      resolve(res.headers['keep-alive'] as string | undefined);
    });
    req.on('error', reject);
    req.end();
  });
  t.is(keepAlive, 'timeout=75');
});

// Pins: without --max-upload-size the limit is 100 MB, as /features reports it.
test('the upload limit defaults to 100 MB', async (t) => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  const features = (await (await fetch(`${server.url}/features`)).json()) as Record<string, unknown>;
  t.is(features['max_upload_size'], 104857600);
});
