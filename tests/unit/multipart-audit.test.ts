import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import test from 'ava';
import express from 'express';
import { readSingleFile } from '../../adapters/http/multipart.ts';

// Guards of the multipart reader behind POST /uploads and the v2 asset upload: the size limit to the byte, one
// file in the named field, the counts of fields and parts, the bounded text fields, a malformed or truncated body
// refused (never left hanging), and the request always read to its end so the client gets the answer.

const MiB = 1048576;
let server: Server;
let base = '';
/** What each request to /form ended with, answered or not. */
const settled: string[] = [];

/** Answers what readSingleFile made of the request: 200 with the file (size, type, name, first bytes) and fields, or the refusal's status and body. */
const formApp = () => {
  const app = express();
  app.post('/form', async (req, res) => {
    const outcome = await readSingleFile(req, { field: 'file', maxBytes: Number(req.query['max'] ?? MiB) });
    settled.push(outcome.ok ? 'file' : `${outcome.status} ${outcome.details?.[0]?.message ?? outcome.message}`);
    if (!outcome.ok) return void res.status(outcome.status).json({ message: outcome.message, details: outcome.details ?? null });
    const { file, fields } = outcome;
    res.json({ size: file.data.length, mimeType: file.mimeType, fileName: file.fileName, head: file.data.subarray(0, 8).toString('latin1'), fields: { ...fields } });
  });
  return app;
};

test.before(async () => {
  server = formApp().listen(0, '127.0.0.1');
  // fetch keeps its connections: never let the server close one as the next request goes out on it.
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The answer, or 'no answer' within 30 s (a reader that never settles must fail the test, not time it out). */
const post = async (body: FormData | Buffer | string, headers: Record<string, string> = {}, query = ''): Promise<{ status: number; body: any } | 'no answer'> => {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 30_000);
  try {
    const res = await fetch(`${base}/form${query}`, { method: 'POST', body, headers, signal: abort.signal });
    return { status: res.status, body: await res.json() };
  } catch (error) {
    if (abort.signal.aborted) return 'no answer';
    throw error;
  } finally {
    clearTimeout(timer);
  }
};

const form = (...parts: [string, string | Buffer, string?][]): FormData => {
  const data = new FormData();
  for (const [name, value, fileName] of parts) {
    if (fileName === undefined && typeof value === 'string') data.append(name, value);
    else data.append(name, new Blob([value], { type: 'image/png' }), fileName ?? 'a.png');
  }
  return data;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bytes = (n: number) => Buffer.alloc(n, 7);
const refusal = (message: string) => ({ status: 400, body: { message: 'Validation failed', details: [{ field: 'file', message }] } });

/** A raw multipart body with boundary "XyZ": each part is its header lines and its content. */
const BOUNDARY = 'XyZ';
const raw = (parts: [string[], string | Buffer][], end = `--${BOUNDARY}--\r\n`): Buffer =>
  Buffer.concat([...parts.flatMap(([headers, content]) => [Buffer.from(`--${BOUNDARY}\r\n${headers.join('\r\n')}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]), Buffer.from(end)]);
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
const filePart = (content: string | Buffer, name = 'file'): [string[], string | Buffer] => [[`Content-Disposition: form-data; name="${name}"; filename="a.png"`, 'Content-Type: image/png'], content];

// Fixed: busboy's fileSize limit fires on reaching it, so a file of exactly MAX_UPLOAD_MB was refused as "larger than" it.
test.serial('a file of exactly the limit is read whole; one byte more is 413 naming the limit in MB', async (t) => {
  t.like(await post(form(['file', bytes(MiB)])), { status: 200, body: { size: MiB, mimeType: 'image/png', fileName: 'a.png' } });
  t.deepEqual(await post(form(['file', bytes(MiB + 1)])), { status: 413, body: { message: 'The file is larger than the 1 MB upload limit', details: null } });
  t.deepEqual(await post(form(['file', bytes(3 * MiB)]), {}, `?max=${2.5 * MiB}`), { status: 413, body: { message: 'The file is larger than the 3 MB upload limit', details: null } });
});

test.serial('a file far over the limit is answered 413 after the body is read, the connection intact', async (t) => {
  t.like(await post(form(['note', 'before']), {}), { status: 400 });
  t.like(await post(form(['file', bytes(12 * MiB)])), { status: 413 });
  t.like(await post(form(['file', bytes(10)])), { status: 200, body: { size: 10 } });
});

test.serial('text fields come back beside the file, in any order; a repeated one keeps its last value', async (t) => {
  const res = await post(form(['content_type', 'image/webp'], ['file', Buffer.from('PNG-data-and-more')], ['file_path', 'x.png'], ['content_type', 'image/jpeg']));
  t.deepEqual(res, { status: 200, body: { size: 17, mimeType: 'image/png', fileName: 'a.png', head: 'PNG-data', fields: { content_type: 'image/jpeg', file_path: 'x.png' } } });
});

// Fixed: a longer field was cut at 64 KiB and the rest taken as its value; a field of exactly 64 KiB was cut too.
test.serial('a text field of up to 64 KiB is kept whole; one byte more is 400 naming the field, not cut', async (t) => {
  const res = await post(form(['a', 'a'.repeat(64 * 1024)], ['file', bytes(4)]));
  if (res === 'no answer' || res.status !== 200) return t.fail(JSON.stringify(res));
  t.is(res.body.fields.a, 'a'.repeat(64 * 1024));
  const longer = { status: 400, body: { message: 'Validation failed', details: [{ field: 'b', message: 'is longer than 65536 bytes' }] } };
  t.deepEqual(await post(form(['a', 'a'], ['b', 'b'.repeat(64 * 1024 + 1)], ['file', bytes(4)])), longer);
  t.deepEqual(await post(form(['file', bytes(4)], ['b', 'b'.repeat(64 * 1024 + 500)])), longer);
});

test.serial('one file, in the field "file": a second file, another field name, a text "file" or no file at all is 400', async (t) => {
  t.deepEqual(await post(form(['file', bytes(4)], ['file', bytes(5), 'b.png'])), refusal('send exactly one file'));
  t.deepEqual(await post(form(['image', bytes(4)])), refusal('send the image in the field "file" (got "image")'));
  t.deepEqual(await post(form(['file', 'not a file'])), refusal('must be a file, not a text field'));
  t.deepEqual(await post(form(['note', 'hello'])), refusal('is required (a multipart file field named "file")'));
  // A part with no file name but an octet-stream type is a file too; in another field, it is refused.
  t.deepEqual(await post(raw([[['Content-Disposition: form-data; name="blob"', 'Content-Type: application/octet-stream'], 'xx']]), MULTIPART), refusal('send the image in the field "file" (got "blob")'));
});

test.serial('the first problem is the one reported', async (t) => {
  t.deepEqual(await post(form(['file', 'text first'], ['image', bytes(4)], ['file', bytes(4)])), refusal('must be a file, not a text field'));
});

// Fixed: busboy's parts limit fires on reaching it, so a form of exactly 60 parts was refused.
test.serial('50 text fields are accepted, 51 are 400; a form of 60 parts is accepted, 61 or more are 400', async (t) => {
  const fields = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`f${i}`, 'v']);
  const fifty = await post(form(...fields(50), ['file', bytes(4)]));
  if (fifty === 'no answer' || fifty.status !== 200) return t.fail(JSON.stringify(fifty));
  t.is(Object.keys(fifty.body.fields).length, 50);
  t.deepEqual(await post(form(...fields(51), ['file', bytes(4)])), refusal('too many form fields'));
  // Parts with no form-data disposition are skipped by name but count as parts.
  const stray: [string[], string] = [['Content-Type: text/plain'], 's'];
  t.like(await post(raw([...Array.from({ length: 40 }, () => stray), filePart('ok')]), MULTIPART), { status: 200, body: { size: 2 } });
  t.like(await post(raw([...Array.from({ length: 59 }, () => stray), filePart('ok')]), MULTIPART), { status: 200, body: { size: 2 } });
  t.deepEqual(await post(raw([...Array.from({ length: 60 }, () => stray), filePart('ok')]), MULTIPART), refusal('too many form parts'));
  t.deepEqual(await post(raw([filePart('ok'), ...Array.from({ length: 60 }, () => stray)]), MULTIPART), refusal('too many form parts'));
  t.deepEqual(await post(raw([...Array.from({ length: 70 }, () => stray), filePart('ok')]), MULTIPART), refusal('too many form parts'));
});

test.serial('a body that is not multipart, or has no boundary, is 400 asking for multipart/form-data, even a large one', async (t) => {
  const ask = refusal('send multipart/form-data with the image in a file field named "file"');
  t.deepEqual(await post(JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' }), ask);
  t.deepEqual(await post('x', { 'content-type': 'multipart/form-data' }), ask);
  t.deepEqual(await post(bytes(8 * MiB), { 'content-type': 'application/octet-stream' }), ask);
  t.like(await post(form(['file', bytes(10)])), { status: 200 });
});

test.serial('a malformed or truncated multipart body is 400, also when its file part was complete, and answered at once', async (t) => {
  const malformed = refusal('the multipart body is malformed');
  // The file part is whole, the next part begun, then the body ends: no closing boundary.
  t.deepEqual(await post(raw([filePart('whole')], `--${BOUNDARY}\r\nContent-Disposition: form-data; name="x"\r\n\r\nhal`), MULTIPART), malformed);
  // A part header too long to be one, then megabytes more.
  t.deepEqual(await post(Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nX-Pad: `), bytes(4 * MiB)]), MULTIPART), malformed);
  t.like(await post(form(['file', bytes(10)])), { status: 200 });
});

// Fixed: a body cut short inside the file part made busboy destroy the file stream with an error nobody listened
// to: an uncaught exception, which ends the service (any signed-in user could stop it with one request). Hence a
// server of its own, in a child process, whose survival is the outcome.
test.serial('a body cut short inside its file part is 400 and the service keeps answering', async (t) => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const script = `
    import express from 'express';
    import { readSingleFile } from ${JSON.stringify(pathToFileURL(path.join(root, 'adapters/http/multipart.ts')).href)};
    const app = express();
    app.post('/form', async (req, res) => {
      const outcome = await readSingleFile(req, { field: 'file', maxBytes: 1024 });
      res.status(outcome.ok ? 200 : outcome.status).json(outcome.ok ? { size: outcome.file.data.length } : { message: outcome.details?.[0]?.message ?? outcome.message });
    });
    const server = app.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill());
  let output = '';
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const found = /port (\d+)/.exec(String(chunk));
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${output}`)));
  });
  const send = async (body: FormData | Buffer, headers: Record<string, string> = {}) => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/form`, { method: 'POST', body, headers, signal: AbortSignal.timeout(30_000) });
      return { status: res.status, body: (await res.json()) as unknown };
    } catch (error) {
      return `no answer: ${String(error)}`;
    }
  };
  const cut = Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`), bytes(100)]);
  t.deepEqual(await send(cut, MULTIPART), { status: 400, body: { message: 'the multipart body is malformed' } });
  t.deepEqual(await send(form(['file', bytes(10)])), { status: 200, body: { size: 10 } }, output);
});

// Fixed: a client that hung up in the middle of its upload left the reader waiting forever, so its route handler
// never ended and every later shutdown waited its whole drain timeout for it.
test.serial('a client that hangs up in the middle of its body ends the reading (the handler does not wait forever)', async (t) => {
  const before = settled.length;
  const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabcdef`;
  socket.write(`POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100000\r\n\r\n${head}`);
  await pause(100);
  socket.destroy();
  const deadline = Date.now() + 3000;
  while (settled.length === before && Date.now() < deadline) await pause(20);
  t.deepEqual(settled.slice(before), ['400 the request ended before its body did']);
});

test.serial('a file part with no file name (an application/octet-stream part) is the file, named ""', async (t) => {
  const res = await post(raw([[['Content-Disposition: form-data; name="file"', 'Content-Type: application/octet-stream'], 'bytes']]), MULTIPART);
  t.deepEqual(res, { status: 200, body: { size: 5, mimeType: 'application/octet-stream', fileName: '', head: 'bytes', fields: {} } });
});

test.serial('the rest of a malformed body is read and dropped: the connection is left idle, so the server can close', async (t) => {
  const own = formApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => own.once('listening', resolve));
  t.teardown(() => own.closeAllConnections());
  const body = Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nX-Pad: `), bytes(4 * MiB)]);
  const res = await fetch(`http://127.0.0.1:${(own.address() as AddressInfo).port}/form`, { method: 'POST', body, headers: MULTIPART, signal: AbortSignal.timeout(30_000) });
  t.is(res.status, 400);
  await res.text();
  const closed = await Promise.race([new Promise((resolve) => own.close(() => resolve('closed'))), pause(5000).then(() => 'a connection still busy')]);
  t.is(closed, 'closed');
});
