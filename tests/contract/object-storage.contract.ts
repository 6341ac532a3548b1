import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import test from 'ava';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';

export interface ObjectStorageFixture {
  storage: ObjectStorage;
  dispose(): Promise<void>;
}

export const readAll = async (body: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

/** A stream of `total` pseudo-random bytes in 64 KiB chunks, produced lazily. */
export const generated = (total: number, seed = 7): { stream: Readable; sha256: string } => {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let state = seed;
  for (let offset = 0; offset < total; offset += 65536) {
    const chunk = Buffer.alloc(Math.min(65536, total - offset));
    for (let i = 0; i < chunk.length; i += 1) {
      state = (state * 1103515245 + 12345) >>> 0;
      chunk[i] = state >>> 24;
    }
    hash.update(chunk);
    chunks.push(chunk);
  }
  async function* produce() {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve));
      yield chunk;
    }
  }
  return { stream: Readable.from(produce()), sha256: hash.digest('hex') };
};

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export const BAD_KEYS = ['', '/etc/passwd', '../outside', 'a/../../b', 'a/./b', 'a//b', 'a/', 'a\\b', 'a\u0000b', 'a/.hidden', 'x'.repeat(1025)];
/** Over a limit by one: a segment of 201 bytes (101 characters of 2 bytes), a key of 1025 bytes in short segments. */
export const OVERSIZED_KEYS = ['a/' + 'x'.repeat(201), 'a/' + 'é'.repeat(101), `${'abcd/'.repeat(204)}abcde`];

/**
 * Registers the ObjectStorage contract for one adapter; `make()` returns a fresh, empty storage. `signedUrls`:
 * `described` URLs carry exp/disp/name in their query (served by our own files route, checked there);
 * `fetchable` URLs are fetched here (a store that serves presigned URLs itself).
 */
export function objectStorageContract(name: string, make: () => Promise<ObjectStorageFixture>, signedUrls: 'described' | 'fetchable' = 'described'): void {
  let fixture: ObjectStorageFixture;
  test.before(async () => {
    fixture = await make();
  });
  test.after.always(async () => {
    await fixture?.dispose();
  });
  const prefix = () => `outputs/${randomUUID()}/${randomUUID()}`;

  test(`${name}: put a buffer, then get, head and delete it`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/ComfyUI_00001_.png`;
    const body = Buffer.from('not really a png, but bytes are bytes');
    t.deepEqual(await storage.put(key, body, { contentType: 'image/png', contentLength: body.length }), { sizeBytes: body.length });
    t.deepEqual(await storage.head(key), { contentType: 'image/png', sizeBytes: body.length });
    const got = await storage.get(key);
    t.truthy(got);
    t.is(got!.contentType, 'image/png');
    t.is(got!.sizeBytes, body.length);
    t.deepEqual(await readAll(got!.body), body);
    await storage.delete(key);
    t.is(await storage.head(key), null);
    t.is(await storage.get(key), null);
  });

  test(`${name}: missing keys are null, and delete is idempotent`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/missing.webm`;
    t.is(await storage.get(key), null);
    t.is(await storage.head(key), null);
    await t.notThrowsAsync(() => storage.delete(key));
    await storage.put(key, Buffer.from('x'), { contentType: 'video/webm' });
    await storage.delete(key);
    await t.notThrowsAsync(() => storage.delete(key));
    t.is(await storage.head(key), null);
  });

  test(`${name}: put overwrites the body and the content type`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/out.bin`;
    await storage.put(key, Buffer.from('first version, longer'), { contentType: 'image/png' });
    await storage.put(key, Buffer.from('second'), { contentType: 'image/webp' });
    t.deepEqual(await storage.head(key), { contentType: 'image/webp', sizeBytes: 6 });
    t.is((await readAll((await storage.get(key))!.body)).toString(), 'second');
  });

  test(`${name}: a 5 MB body streams in and out intact`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/video.mp4`;
    const size = 5 * 1024 * 1024 + 123;
    const { stream, sha256 } = generated(size);
    t.deepEqual(await storage.put(key, stream, { contentType: 'video/mp4' }), { sizeBytes: size });
    const got = await storage.get(key);
    t.is(got!.sizeBytes, size);
    t.is(sha(await readAll(got!.body)), sha256);
  });

  test(`${name}: an empty body is an object of size 0`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/empty.txt`;
    t.deepEqual(await storage.put(key, Buffer.alloc(0), { contentType: 'text/plain' }), { sizeBytes: 0 });
    t.deepEqual(await storage.head(key), { contentType: 'text/plain', sizeBytes: 0 });
    t.is((await readAll((await storage.get(key))!.body)).length, 0);
  });

  test(`${name}: keys at the limits round-trip: a 200-byte segment, a 1024-byte key`, async (t) => {
    const { storage } = fixture;
    const base = `outputs/${randomUUID()}`;
    // Pins the limits from the accepting side: 200 bytes per segment (100 two-byte characters), 1024 bytes per key.
    const keys = [`${base}/${'é'.repeat(100)}`, `${base}/${'y'.repeat(200)}`, `${base}/${'abcd/'.repeat(195)}abcd`];
    t.is(Buffer.byteLength(keys[2]!), 1024);
    for (const key of keys) {
      await storage.put(key, Buffer.from('limit'), { contentType: 'text/plain' });
      t.deepEqual(await storage.head(key), { contentType: 'text/plain', sizeBytes: 5 }, key.slice(-20));
      await storage.delete(key);
    }
  });

  test(`${name}: keys with unicode and spaces round-trip`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/résumé café 1.png`;
    await storage.put(key, Buffer.from('é'), { contentType: 'image/png' });
    t.is((await readAll((await storage.get(key))!.body)).toString(), 'é');
  });

  test(`${name}: an object is invisible until its whole body arrived`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/slow.bin`;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow() {
      yield Buffer.from('first half ');
      await gate;
      yield Buffer.from('second half');
    }
    const putting = storage.put(key, Readable.from(slow()), { contentType: 'application/octet-stream' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.is(await storage.head(key), null);
    t.is(await storage.get(key), null);
    release();
    await putting;
    t.is((await readAll((await storage.get(key))!.body)).toString(), 'first half second half');
  });

  test(`${name}: a body stream that fails stores nothing and keeps the previous object`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/broken.png`;
    async function* failing() {
      yield Buffer.from('partial');
      throw new Error('engine went away');
    }
    await t.throwsAsync(() => storage.put(key, Readable.from(failing()), { contentType: 'image/png' }), { message: /engine went away/ });
    t.is(await storage.head(key), null);

    await storage.put(key, Buffer.from('good'), { contentType: 'image/png' });
    await t.throwsAsync(() => storage.put(key, Readable.from(failing()), { contentType: 'image/jpeg' }));
    t.deepEqual(await storage.head(key), { contentType: 'image/png', sizeBytes: 4 });
    t.is((await readAll((await storage.get(key))!.body)).toString(), 'good');
  });

  test(`${name}: a body shorter or longer than its announced length is refused`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/length.png`;
    await t.throwsAsync(() => storage.put(key, Buffer.from('1234'), { contentType: 'image/png', contentLength: 5 }));
    await t.throwsAsync(() => storage.put(key, Readable.from([Buffer.from('123456')]), { contentType: 'image/png', contentLength: 5 }));
    await t.throwsAsync(() => storage.put(key, Readable.from([Buffer.from('1234')]), { contentType: 'image/png', contentLength: 5 }), undefined, 'a stream that ends short');
    t.is(await storage.head(key), null);
  });

  test(`${name}: a stream longer than its announced length is refused as soon as it passes it, not read to its end`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/endless.png`;
    // An engine that keeps sending past the length it announced: the put must give up at the first byte
    // too many, not after buffering or writing the whole body (here 64 MiB).
    let pulled = 0;
    async function* endless() {
      for (let i = 0; i < 1024; i += 1) {
        pulled += 1;
        yield Buffer.alloc(64 * 1024, 7);
      }
    }
    await t.throwsAsync(() => storage.put(key, Readable.from(endless()), { contentType: 'image/png', contentLength: 5 }), { message: /announced/ });
    t.true(pulled < 32, `read ${pulled} chunks of 64 KiB before refusing`);
    t.is(await storage.head(key), null);
  });

  test(`${name}: a put without a content type is refused and stores nothing`, async (t) => {
    const { storage } = fixture;
    const key = `${prefix()}/untyped.png`;
    // Pins: every stored output has the type its signed link is served with; none is stored untyped.
    await t.throwsAsync(() => storage.put(key, Buffer.from('x'), { contentType: '' }), { message: /content type/ });
    await t.throwsAsync(() => storage.put(key, Readable.from([Buffer.from('x')]), { contentType: '' }), { message: /content type/ });
    t.is(await storage.head(key), null);
  });

  test(`${name}: bad keys are refused by every operation`, async (t) => {
    const { storage } = fixture;
    for (const key of [...BAD_KEYS, ...OVERSIZED_KEYS, 'a\u001fb', 'a\u007fb']) {
      const label = JSON.stringify(key.slice(0, 30));
      await t.throwsAsync(() => storage.put(key, Buffer.from('x'), { contentType: 'text/plain' }), { message: /Invalid storage key/ }, `put ${label}`);
      await t.throwsAsync(() => storage.get(key), { message: /Invalid storage key/ }, `get ${label}`);
      await t.throwsAsync(() => storage.head(key), { message: /Invalid storage key/ }, `head ${label}`);
      await t.throwsAsync(() => storage.delete(key), { message: /Invalid storage key/ }, `delete ${label}`);
      await t.throwsAsync(() => storage.signedUrl(key, { expiresInSeconds: 60, disposition: 'inline', fileName: 'x' }), undefined, `signedUrl ${label}`);
    }
  });

  if (signedUrls === 'described') {
    test(`${name}: signedUrl names the key, the expiry and the disposition`, async (t) => {
      const { storage } = fixture;
      const key = `${prefix()}/clip 1.mp4`;
      await storage.put(key, Buffer.from('x'), { contentType: 'video/mp4' });
      const before = Math.floor(Date.now() / 1000);
      const url = new URL(await storage.signedUrl(key, { expiresInSeconds: 300, disposition: 'attachment', fileName: 'clip 1.mp4' }));
      t.true(decodeURIComponent(url.href).includes(key), url.href);
      const exp = Number(url.searchParams.get('exp'));
      t.true(exp >= before + 299 && exp <= before + 301, `exp ${exp}`);
      t.is(url.searchParams.get('disp'), 'attachment');
      t.is(url.searchParams.get('name'), 'clip 1.mp4');
    });
  } else {
    test(`${name}: a signed URL serves the object with its type and disposition until it expires`, async (t) => {
      const { storage } = fixture;
      const key = `${prefix()}/clip 1 é.mp4`;
      await storage.put(key, Buffer.from('video bytes'), { contentType: 'video/mp4' });
      const attachment = await fetch(await storage.signedUrl(key, { expiresInSeconds: 300, disposition: 'attachment', fileName: 'clip 1 é.mp4' }));
      t.is(attachment.status, 200);
      t.is(await attachment.text(), 'video bytes');
      t.is(attachment.headers.get('content-type'), 'video/mp4');
      t.is(attachment.headers.get('content-disposition'), `attachment; filename="clip 1 _.mp4"; filename*=UTF-8''clip%201%20%C3%A9.mp4`);
      const inline = await fetch(await storage.signedUrl(key, { expiresInSeconds: 300, disposition: 'inline', fileName: 'a.mp4', contentType: 'video/mp4' }));
      t.regex(inline.headers.get('content-disposition') ?? '', /^inline; filename="a\.mp4"/);
      await inline.arrayBuffer();

      const short = await storage.signedUrl(key, { expiresInSeconds: 1, disposition: 'inline', fileName: 'a.mp4' });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const expired = await fetch(short);
      await expired.arrayBuffer();
      t.is(expired.status, 403, 'an expired URL stops working');
    });
  }

  test(`${name}: check passes on a working storage`, async (t) => {
    await t.notThrowsAsync(() => fixture.storage.check());
  });
}
