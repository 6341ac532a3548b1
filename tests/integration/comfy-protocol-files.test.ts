import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { startComfyProtocolServer, type StartedComfyServer } from '../support/comfy-protocol-server.ts';

// The protocol stand-in's GET /view and POST /upload/image held to comfyui-protocol.md and ComfyUI's server.py.

const standIn = async (t: { teardown(fn: () => Promise<void>): void }): Promise<StartedComfyServer> => {
  const server = await startComfyProtocolServer();
  t.teardown(() => server.close());
  return server;
};

const view = async (server: StartedComfyServer, query: string): Promise<{ status: number; body: string }> => {
  const res = await fetch(`${server.url}/view?${query}`);
  return { status: res.status, body: res.status === 200 ? await res.text() : '' };
};

// Pins /view's folder rules: no subfolder or an empty one is the top of the folder; a " [temp]" / " [input]" suffix picks
// the folder whatever `type` says; a name that is only a suffix is refused (400); a folder is not a file (404); no
// filename at all is 404.
test('/view: the top folder with or without an empty subfolder, the folder named by a suffix, and what is no file', async (t) => {
  const server = await standIn(t);
  await writeFile(join(server.outputDir, 'top.txt'), 'output top');
  await writeFile(join(server.tempDir, 'preview.txt'), 'temp preview');
  await writeFile(join(server.inputDir, 'source.txt'), 'input source');
  await mkdir(join(server.outputDir, 'folder'));
  t.deepEqual(await view(server, 'filename=top.txt'), { status: 200, body: 'output top' });
  t.deepEqual(await view(server, 'filename=top.txt&subfolder=&type=output'), { status: 200, body: 'output top' });
  t.deepEqual(await view(server, `filename=${encodeURIComponent('preview.txt [temp]')}&type=output`), { status: 200, body: 'temp preview' });
  t.deepEqual(await view(server, `filename=${encodeURIComponent('source.txt [input]')}`), { status: 200, body: 'input source' });
  t.is((await view(server, `filename=${encodeURIComponent(' [output]')}`)).status, 400);
  t.is((await view(server, 'filename=folder')).status, 404);
  t.is((await view(server, 'type=output')).status, 404);
});

const upload = async (server: StartedComfyServer, parts: [string, string | { data: string; filename: string }][]) => {
  const form = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value.data], { type: 'image/png' }), value.filename);
  }
  const res = await fetch(`${server.url}/upload/image`, { method: 'POST', body: form });
  return { status: res.status, body: res.status === 200 ? ((await res.json()) as unknown) : null };
};

// Pins (server.py image_upload): overwrite "true" or "1" replaces a same-name file; without it a different file is renamed.
test('an upload with overwrite "true" or "1" replaces the file of the same name', async (t) => {
  const server = await standIn(t);
  t.deepEqual((await upload(server, [['image', { data: 'one', filename: 'pic.png' }]])).body, { name: 'pic.png', subfolder: '', type: 'input' });
  t.deepEqual((await upload(server, [['image', { data: 'two', filename: 'pic.png' }], ['overwrite', 'true']])).body, { name: 'pic.png', subfolder: '', type: 'input' });
  t.is(await readFile(join(server.inputDir, 'pic.png'), 'utf8'), 'two');
  t.deepEqual((await upload(server, [['image', { data: 'three', filename: 'pic.png' }], ['overwrite', '1']])).body, { name: 'pic.png', subfolder: '', type: 'input' });
  t.is(await readFile(join(server.inputDir, 'pic.png'), 'utf8'), 'three');
  t.deepEqual((await upload(server, [['image', { data: 'four', filename: 'pic.png' }], ['overwrite', 'yes']])).body, { name: 'pic (1).png', subfolder: '', type: 'input' });
});

// Pins comfyui-protocol.md's dedupe: without overwrite, a same-name upload with identical bytes is the file already
// there (same name back, nothing new written); other bytes get the next free "name (n)".
test('an upload of the same name and the same bytes answers the name already there; other bytes are renamed', async (t) => {
  const server = await standIn(t);
  t.deepEqual((await upload(server, [['image', { data: 'one', filename: 'pic.png' }]])).body, { name: 'pic.png', subfolder: '', type: 'input' });
  t.deepEqual((await upload(server, [['image', { data: 'two', filename: 'pic.png' }]])).body, { name: 'pic (1).png', subfolder: '', type: 'input' });
  t.deepEqual((await upload(server, [['image', { data: 'one', filename: 'pic.png' }]])).body, { name: 'pic.png', subfolder: '', type: 'input' });
  t.deepEqual((await upload(server, [['image', { data: 'two', filename: 'pic.png' }]])).body, { name: 'pic (1).png', subfolder: '', type: 'input' });
  t.is(await readFile(join(server.inputDir, 'pic.png'), 'utf8'), 'one');
  t.is(await readFile(join(server.inputDir, 'pic (1).png'), 'utf8'), 'two');
});

// Pins how aiohttp reads the upload form: the first value of a repeated field counts, the first "image" file is the upload,
// a file under another field name is no upload (400), an "image" that is a plain field or a part without a file name
// (aiohttp reads that as a plain value) fails as in ComfyUI (500), and a body that is no form has no image (400).
test('the upload form is read as ComfyUI reads it', async (t) => {
  const server = await standIn(t);
  const first = await upload(server, [
    ['type', 'temp'],
    ['type', 'input'],
    ['image', { data: 'first', filename: 'a.png' }],
    ['image', { data: 'second', filename: 'b.png' }],
  ]);
  t.deepEqual(first.body, { name: 'a.png', subfolder: '', type: 'temp' });
  t.is(await readFile(join(server.tempDir, 'a.png'), 'utf8'), 'first');
  t.is((await upload(server, [['file', { data: 'x', filename: 'c.png' }]])).status, 400);
  t.is((await upload(server, [['image', 'not a file']])).status, 500);
  t.is((await upload(server, [['image', { data: 'x', filename: '' }]])).status, 500);
  const unnamed = await fetch(`${server.url}/upload/image`, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
    body: '--XyZ\r\nContent-Disposition: form-data; name="image"\r\nContent-Type: application/octet-stream\r\n\r\nbytes\r\n--XyZ--\r\n',
  });
  t.is(unnamed.status, 500, 'an octet-stream part without a file name is no file either');
  const json = await fetch(`${server.url}/upload/image`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"image": 1}' });
  t.is(json.status, 400);
});
