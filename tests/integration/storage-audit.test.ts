/**
 * Guard audit of object storage and file serving: the files route (signed URLs of local storage) on a minimal
 * Express app over a real LocalObjectStorage in a temp folder, the local and memory storages called directly, and
 * the ComfyUI /view re-encodings. Each test pins one guard whose deletion a caller would notice.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import express from 'express';
import sharp from 'sharp';
import type { ApiRouter, RouteSpec, Handler } from '../../adapters/http/api-router.ts';
import { filesRoutes } from '../../adapters/http/routes/files.routes.ts';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { renderViewVariant } from '../../adapters/comfyui-protocol-server/view-variants.ts';
import { S3ObjectStorage, type S3ObjectStorageOptions } from '../../adapters/s3/s3-object-storage.ts';
import { startS3StandIn } from '../support/s3-stand-in.ts';
import { setTimeout as delay } from 'node:timers/promises';

const SIGNING_KEY = 'audit-signing-key-0123456789abcdef';
const FILES_URL = 'http://files.invalid/api/v1/files';

const readAll = async (body: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

function localStorage(t: ExecutionContext, dir?: string): { storage: LocalObjectStorage; root: string } {
  const base = mkdtempSync(path.join(tmpdir(), 'storage-audit-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const root = dir ?? path.join(base, 'storage');
  return { storage: new LocalObjectStorage({ dir: root, filesUrl: FILES_URL, signingKey: SIGNING_KEY, clock: { now: () => new Date() } }), root };
}

/** The files route alone on an Express app, wired as bootstrap wires it (storage.module.ts). */
async function filesServer(t: ExecutionContext) {
  const { storage, root } = localStorage(t);
  const app = express();
  const router = express.Router();
  const api = { add: (spec: RouteSpec, handler: Handler) => router[spec.method](spec.path, handler) } as unknown as ApiRouter;
  filesRoutes({ verify: (query) => storage.signer.verify(query, new Date()), open: (key) => storage.open(key) })(api);
  app.use('/api/v1', router);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** A signed URL of the storage, sent to this server. */
  const link = async (key: string, fileName = 'clip.mp4', contentType?: string): Promise<string> => {
    const url = new URL(await storage.signedUrl(key, { expiresInSeconds: 600, disposition: 'inline', fileName, ...(contentType ? { contentType } : {}) }));
    return `${base}${url.pathname}${url.search}`;
  };
  return { storage, root, link };
}

const TEN = Buffer.from('0123456789');

// --- the files route ---

// Pins: a link whose signature does not match is 403 with the error body, never served (nor a 500).
test('files: a link with a tampered signature is 403 "not valid"', async (t) => {
  const { storage, link } = await filesServer(t);
  await storage.put('outputs/u/j/a.bin', TEN, { contentType: 'application/octet-stream' });
  const good = new URL(await link('outputs/u/j/a.bin'));
  good.searchParams.set('sig', 'A'.repeat(good.searchParams.get('sig')!.length));
  const res = await fetch(good);
  t.is(res.status, 403);
  t.deepEqual(await res.json(), { statusCode: 403, error: 'Forbidden', message: 'This link is not valid (bad or missing signature)' });
});

// Pins: a Range on an empty file gets the (empty) whole file, not 416.
test('files: a Range request on an empty file is 200 with no bytes', async (t) => {
  const { storage, link } = await filesServer(t);
  await storage.put('outputs/u/j/empty.bin', Buffer.alloc(0), { contentType: 'application/octet-stream' });
  const res = await fetch(await link('outputs/u/j/empty.bin'), { headers: { range: 'bytes=0-9' } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-length'), '0');
  t.is((await res.arrayBuffer()).byteLength, 0);
});

// Pins: If-Range carrying the current ETag serves the range (206) with its own Content-Length.
test('files: If-Range with the current ETag serves the range with its own length', async (t) => {
  const { storage, link } = await filesServer(t);
  await storage.put('outputs/u/j/ten.bin', TEN, { contentType: 'video/mp4' });
  const url = await link('outputs/u/j/ten.bin');
  const whole = await fetch(url);
  const etag = whole.headers.get('etag')!;
  t.regex(etag, /^"a-[0-9a-f]+"$/);
  await whole.arrayBuffer();
  const res = await fetch(url, { headers: { range: 'bytes=2-4', 'if-range': etag } });
  t.is(res.status, 206);
  t.is(res.headers.get('content-range'), 'bytes 2-4/10');
  t.is(res.headers.get('content-length'), '3');
  t.is(Buffer.from(await res.arrayBuffer()).toString(), '234');
});

// Pins: several ranges, or a unit other than bytes, get the whole file (200), not the first range.
test('files: a multi-range or non-bytes Range gets the whole file', async (t) => {
  const { storage, link } = await filesServer(t);
  await storage.put('outputs/u/j/ten.bin', TEN, { contentType: 'video/mp4' });
  const url = await link('outputs/u/j/ten.bin');
  for (const range of ['bytes=0-1,5-6', 'items=0-1']) {
    const res = await fetch(url, { headers: { range } });
    t.is(res.status, 200, range);
    t.is(res.headers.get('content-range'), null, range);
    t.is(Buffer.from(await res.arrayBuffer()).toString(), '0123456789', range);
  }
});

// Pins: a client holding the current version (If-None-Match with the ETag) gets 304 and no body.
test('files: If-None-Match with the current ETag is 304', async (t) => {
  const { storage, link } = await filesServer(t);
  await storage.put('outputs/u/j/ten.bin', TEN, { contentType: 'video/mp4' });
  const url = await link('outputs/u/j/ten.bin');
  const first = await fetch(url);
  await first.arrayBuffer();
  // node:http, not fetch: fetch adds Cache-Control: no-cache to a conditional request, which forbids a 304.
  const again = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    get(url, { headers: { 'if-none-match': first.headers.get('etag')! } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  t.is(again.status, 304);
  t.is(again.body.length, 0);
});

// Pins: the validators and the cross-origin policy a served file carries (the front end embeds it from its own origin).
test('files: a served file carries ETag, Last-Modified and Cross-Origin-Resource-Policy cross-origin', async (t) => {
  const { storage, link, root } = await filesServer(t);
  await storage.put('outputs/u/j/ten.bin', TEN, { contentType: 'video/mp4' });
  const res = await fetch(await link('outputs/u/j/ten.bin'));
  await res.arrayBuffer();
  t.is(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
  t.regex(res.headers.get('etag') ?? '', /^"a-[0-9a-f]+"$/);
  const lastModified = res.headers.get('last-modified');
  t.truthy(lastModified);
  const { mtime } = await import('node:fs').then((fs) => fs.statSync(path.join(root, 'outputs/u/j/ten.bin')));
  t.is(lastModified, mtime.toUTCString());
});

// Pins: an unsatisfiable range names the file's size in Content-Range (RFC 9110), with the 416 body.
test('files: an unsatisfiable range is 416 with Content-Range bytes */size', async (t) => {
  const { storage, link } = await filesServer(t);
  await storage.put('outputs/u/j/ten.bin', TEN, { contentType: 'video/mp4' });
  const res = await fetch(await link('outputs/u/j/ten.bin'), { headers: { range: 'bytes=50-60' } });
  t.is(res.status, 416);
  t.is(res.headers.get('content-range'), 'bytes */10');
  t.deepEqual(await res.json(), { statusCode: 416, error: 'Range Not Satisfiable', message: 'Range not satisfiable (the file has 10 bytes)' });
});

// --- local storage ---

// Pins: missing keys (also under a path whose folder is a file) are null for head, get and open, and delete of one is a no-op.
test('local storage: a missing key is null for head/get/open; deleting it succeeds', async (t) => {
  const { storage } = localStorage(t);
  await storage.put('outputs/u/j/a.png', TEN, { contentType: 'image/png' });
  for (const key of ['outputs/u/j/missing.png', 'outputs/u/j/a.png/below', 'never/was/here.png']) {
    t.is(await storage.head(key), null, key);
    t.is(await storage.get(key), null, key);
    t.is(await storage.open(key), null, key);
    await t.notThrowsAsync(storage.delete(key), key);
  }
});

// Pins: a delete takes the body and its sidecar, and removes the folders it left empty (not those still holding objects).
test('local storage: delete removes the sidecar and prunes folders left empty', async (t) => {
  const { storage, root } = localStorage(t);
  await storage.put('outputs/u/j1/a.png', TEN, { contentType: 'image/png' });
  await storage.put('outputs/u/j2/b.png', TEN, { contentType: 'image/png' });
  await storage.delete('outputs/u/j1/a.png');
  t.false(existsSync(path.join(root, 'outputs/u/j1')));
  t.deepEqual(readdirSync(path.join(root, 'outputs/u')), ['j2']);
  // The sidecar went with the body: a new object at the key without a sidecar does not inherit the old type.
  await storage.delete('outputs/u/j2/b.png');
  t.false(existsSync(path.join(root, 'outputs')));
  t.deepEqual(readdirSync(root), []);
});

// Pins: an object whose sidecar is missing, unreadable or without a string type is application/octet-stream.
test('local storage: a missing or broken sidecar reads as application/octet-stream', async (t) => {
  const { storage, root } = localStorage(t);
  await storage.put('outputs/u/j/a.png', TEN, { contentType: 'image/png' });
  t.deepEqual(await storage.head('outputs/u/j/a.png'), { contentType: 'image/png', sizeBytes: 10 });
  const sidecar = path.join(root, 'outputs/u/j/.a.png.meta.json');
  for (const [label, content] of [['a number', '{"contentType":5}'], ['empty', '{"contentType":""}'], ['not JSON', '{oops']] as const) {
    writeFileSync(sidecar, content);
    t.deepEqual(await storage.head('outputs/u/j/a.png'), { contentType: 'application/octet-stream', sizeBytes: 10 }, label);
    t.is((await storage.open('outputs/u/j/a.png').then(async (o) => (await o!.close(), o!.contentType))), 'application/octet-stream', label);
  }
  rmSync(sidecar);
  t.deepEqual(await storage.head('outputs/u/j/a.png'), { contentType: 'application/octet-stream', sizeBytes: 10 });
});

// Pins: check() creates a storage folder that does not exist yet (a fresh STORAGE_DIR), and puts work after it.
test('local storage: check creates a missing root folder', async (t) => {
  const base = mkdtempSync(path.join(tmpdir(), 'storage-audit-root-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'not', 'yet');
  const { storage } = localStorage(t, root);
  await t.notThrowsAsync(storage.check());
  t.true(existsSync(root));
});

// --- memory storage ---

// Pins: the memory storage refuses bad keys in every operation, as the real ones do.
test('memory storage: bad keys are refused by put, get, head, delete and signedUrl', async (t) => {
  const storage = new MemoryObjectStorage();
  for (const key of ['../escape.png', '/abs.png', 'a//b.png']) {
    await t.throwsAsync(storage.put(key, TEN, { contentType: 'image/png' }), undefined, `put ${key}`);
    await t.throwsAsync(storage.get(key), undefined, `get ${key}`);
    await t.throwsAsync(storage.head(key), undefined, `head ${key}`);
    await t.throwsAsync(storage.delete(key), undefined, `delete ${key}`);
    await t.throwsAsync(storage.signedUrl(key, { expiresInSeconds: 60, disposition: 'inline', fileName: 'x.png' }), undefined, `signedUrl ${key}`);
  }
  t.deepEqual(storage.keys(), []);
});

// Pins: a put without a content type, or with a buffer of another length than announced, stores nothing.
test('memory storage: a put without a type, or whose buffer is not the announced length, is refused', async (t) => {
  const storage = new MemoryObjectStorage();
  await t.throwsAsync(storage.put('a/b.png', TEN, { contentType: '' }), { message: 'put needs a content type' });
  await t.throwsAsync(storage.put('a/b.png', TEN, { contentType: 'image/png', contentLength: 11 }), { message: 'body has 10 bytes but 11 were announced' });
  await t.throwsAsync(storage.put('a/b.png', Readable.from([TEN]), { contentType: 'image/png', contentLength: 11 }), { message: 'body has 10 bytes but 11 were announced' });
  t.deepEqual(storage.keys(), []);
});

// Pins: the memory storage keeps its own copy of a buffer: the caller reusing its buffer does not change the object.
test('memory storage: the stored bytes are a copy of the buffer put', async (t) => {
  const storage = new MemoryObjectStorage();
  const buffer = Buffer.from('original');
  await storage.put('a/b.bin', buffer, { contentType: 'application/octet-stream' });
  buffer.write('XXXXXXXX');
  t.is((await readAll((await storage.get('a/b.bin'))!.body)).toString(), 'original');
});

// Pins: memory signed URLs, literally: key segments encoded, expiry from the injected clock, type only when asked.
test('memory storage: signed URLs read back what was asked', async (t) => {
  const storage = new MemoryObjectStorage(() => new Date('2030-01-01T00:00:00.000Z'));
  t.is(
    await storage.signedUrl('outputs/a b/c#1.png', { expiresInSeconds: 60, disposition: 'inline', fileName: 'c.png' }),
    'memory://outputs/a%20b/c%231.png?exp=1893456060&disp=inline&name=c.png',
  );
  t.is(
    await storage.signedUrl('outputs/a/c.png', { expiresInSeconds: 1, disposition: 'attachment', fileName: 'c.png', contentType: 'image/png' }),
    'memory://outputs/a/c.png?exp=1893456001&disp=attachment&name=c.png&type=image%2Fpng',
  );
});

// Pins: a stream of strings is stored as its UTF-8 bytes, counted in bytes against the announced length (local and memory).
test('local and memory storage: a stream of strings is stored as UTF-8 bytes and counted in bytes', async (t) => {
  const { storage: local } = localStorage(t);
  for (const storage of [local, new MemoryObjectStorage()]) {
    const stored = await storage.put('a/utf8.txt', Readable.from(['é', 'ß']), { contentType: 'text/plain', contentLength: 4 });
    t.deepEqual(stored, { sizeBytes: 4 });
    t.is((await readAll((await storage.get('a/utf8.txt'))!.body)).toString('utf8'), 'éß');
  }
});

// --- ComfyUI /view variants ---

async function rgbaPng(t: ExecutionContext): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'view-audit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'image.png');
  await sharp({ create: { width: 8, height: 6, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } }).png().toFile(file);
  return file;
}

// Pins: without a channel the file is sent as stored (null), not re-encoded.
test('view: no preview and no channel sends the stored file', async (t) => {
  const file = await rgbaPng(t);
  t.is(await renderViewVariant(file, null, null), null);
  t.is(await renderViewVariant(file, null, 'rgba'), null);
});

// Pins: a jpeg preview without a channel is jpeg (a missing channel is "", which has no alpha).
test('view: preview=jpeg;80 without a channel is a jpeg', async (t) => {
  const file = await rgbaPng(t);
  const variant = await renderViewVariant(file, 'jpeg;80', null);
  t.is(variant?.contentType, 'image/jpeg');
  t.is((await sharp(variant!.data).metadata()).format, 'jpeg');
});

// Pins: an unknown preview format falls back to webp, and a preview without a quality uses 90.
test('view: an unknown preview format is webp; no quality means 90', async (t) => {
  const file = await rgbaPng(t);
  const unknown = await renderViewVariant(file, 'png;50', null);
  t.is(unknown?.contentType, 'image/webp');
  t.is((await sharp(unknown!.data).metadata()).format, 'webp');
  const plain = await renderViewVariant(file, 'webp', null);
  t.deepEqual(plain?.data, await sharp(file).webp({ quality: 90 }).toBuffer());
});

// --- S3 storage (at the s3rver stand-in) ---

async function s3Storage(t: ExecutionContext, options: Partial<S3ObjectStorageOptions> = {}) {
  const s3 = await startS3StandIn();
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials, ...options });
  t.teardown(async () => {
    storage.close();
    await s3.stop();
  });
  return { s3, storage };
}

// Pins: with an endpoint (MinIO, R2, s3rver) and no forcePathStyle, addressing is path-style: a loopback store works.
test('s3 storage: an endpoint without forcePathStyle is addressed path-style and round-trips', async (t) => {
  const { storage } = await s3Storage(t);
  await storage.put('outputs/u/j/a.txt', Buffer.from('path style'), { contentType: 'text/plain' });
  const got = await storage.get('outputs/u/j/a.txt');
  t.is(got?.contentType, 'text/plain');
  t.is((await readAll(got!.body)).toString(), 'path style');
});

// Pins: presigned URLs are signed for the public endpoint when one is set (the browser's address).
test('s3 storage: presigned URLs carry the public endpoint', async (t) => {
  const s3 = await startS3StandIn();
  t.teardown(() => s3.stop());
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, publicEndpoint: 'https://media.example.com', credentials: s3.credentials });
  t.teardown(() => storage.close());
  const url = await storage.signedUrl('outputs/u/j/a.png', { expiresInSeconds: 60, disposition: 'inline', fileName: 'a.png' });
  t.true(url.startsWith('https://media.example.com/media/outputs/u/j/a.png?'), url);
});

// Pins: a body stream that fails makes the put reject with the body's error (it neither hangs nor stores anything).
test('s3 storage: a failing body stream rejects the put promptly with its own error', async (t) => {
  const { storage } = await s3Storage(t);
  async function* failing() {
    yield Buffer.from('partial');
    await delay(20);
    throw new Error('engine went away');
  }
  // The caller listens for the body's errors itself (as a stream that is also logged would): without the storage's
  // own listener the error would otherwise crash the process, here it would leave the put waiting for good.
  const body = Readable.from(failing()).on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    storage.put('outputs/u/j/broken.png', body, { contentType: 'image/png' }).then(
      () => 'stored',
      (error: Error) => error.message,
    ),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting after 5 s'), 5000))),
  ]);
  clearTimeout(timer);
  t.is(outcome, 'engine went away');
  t.is(await storage.head('outputs/u/j/broken.png'), null);
});

// Pins: a KMS key id configured with aws:kms is sent with every write.
test('s3 storage: aws:kms writes name the configured key', async (t) => {
  const { storage } = await s3Storage(t, { serverSideEncryption: 'aws:kms', kmsKeyId: 'alias/audit' });
  const writes: unknown[] = [];
  storage.client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ServerSideEncryption?: unknown; SSEKMSKeyId?: unknown };
      if (context.commandName === 'PutObjectCommand') writes.push({ sse: input.ServerSideEncryption, kms: input.SSEKMSKeyId });
      return next(args);
    },
    { step: 'initialize', name: 'recordAuditEncryption' },
  );
  await storage.put('outputs/u/j/k.png', Buffer.from('k'), { contentType: 'image/png' }).catch(() => undefined);
  t.deepEqual(writes, [{ sse: 'aws:kms', kms: 'alias/audit' }]);
});
