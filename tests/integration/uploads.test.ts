import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { TOKENS, type Repositories } from '../../bootstrap/tokens.ts';
import type { UploadRepository } from '../../core/ports/upload-repository.port.ts';
import { GetUploadForUser } from '../../core/use-cases/uploads/get-upload-for-user.use-case.ts';
import { SweepExpiredUploads } from '../../core/use-cases/uploads/sweep-expired-uploads.use-case.ts';
import { DATABASES } from '../support/databases.ts';
import { blake3Of, makeImage, MIME } from '../support/images.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

const apps = new Map<string, TestApp>();

const form = (parts: [string, Buffer | string, string?, string?][]): FormData => {
  const data = new FormData();
  for (const [field, content, type, fileName] of parts) {
    if (typeof content === 'string' && type === undefined) data.append(field, content);
    else data.append(field, new Blob([content], type ? { type } : {}), fileName ?? 'upload.bin');
  }
  return data;
};

const upload = (client: TestClient, bytes: Buffer | string, type: string, fileName = 'image') => client.post('/uploads', form([['file', bytes, type, fileName]]));

const storageOf = (app: TestApp) => app.app.container.get<LocalObjectStorage>(TOKENS.ObjectStorage);
const uploadsOf = (app: TestApp): UploadRepository => app.app.container.get<Repositories>(TOKENS.Repositories).uploads;
/** Signed URLs carry PUBLIC_URL (localhost:0 in tests); send them to the test server instead. */
const local = (app: TestApp, url: string): string => {
  const parsed = new URL(url);
  return `${app.baseUrl}${parsed.pathname}${parsed.search}`;
};

for (const db of DATABASES) {
  test.before(async () => {
    apps.set(db, await startTestApp(db, { MAX_UPLOAD_MB: '1' }));
  });
  test.after.always(async () => {
    await apps.get(db)?.close();
  });
  const appOf = () => apps.get(db)!;
  const signedIn = async () => {
    const client = appOf().client();
    const user = await client.signUp();
    return { client, user };
  };

  test(`${db}: a real PNG, JPEG and WebP are stored; 201 with their dimensions`, async (t) => {
    const app = appOf();
    const { client, user } = await signedIn();
    for (const [format, width, height] of [['png', 64, 48], ['jpeg', 33, 17], ['webp', 20, 30]] as const) {
      const bytes = await makeImage(format, width, height);
      const res = await upload(client, bytes, MIME[format], `photo.${format}`);
      t.is(res.status, 201, JSON.stringify(res.body));
      t.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'height', 'id', 'mimeType', 'sizeBytes', 'width']);
      t.like(res.body, { mimeType: MIME[format], width, height, sizeBytes: bytes.length });
      t.true(Math.abs(Date.parse(res.body.createdAt) - Date.now()) < 60_000);
      const stored = await new GetUploadForUser({ uploads: uploadsOf(app) }).execute({ userId: user.id, uploadId: res.body.id });
      if (!stored.ok) return t.fail('no row');
      const ext = { png: 'png', jpeg: 'jpg', webp: 'webp' }[format];
      t.is(stored.value.storageKey, `uploads/${user.id}/${res.body.id}.${ext}`);
      t.deepEqual(readFileSync(path.join(app.dataDir, 'storage', stored.value.storageKey)), bytes);
      // Content-addressed like every upload (ADR 042): the blake3 of the bytes, and the name the file was sent with.
      t.like(stored.value, { contentHash: await blake3Of(bytes), fileName: `photo.${format}` });
    }
  });

  test(`${db}: bytes that are not the claimed image type are 400 on field "file"`, async (t) => {
    const { client } = await signedIn();
    const png = await makeImage('png');
    const cases: [Buffer | string, string][] = [
      ['just some text, not an image at all', 'image/png'],
      [png, 'image/jpeg'],
      [png, 'text/plain'],
      [png.subarray(0, 40), 'image/png'],
    ];
    for (const [bytes, type] of cases) {
      const res = await upload(client, bytes, type);
      t.is(res.status, 400);
      t.like(res.body, { statusCode: 400, error: 'Bad Request', message: 'Validation failed' });
      t.is(res.body.details[0].field, 'file');
    }
  });

  test(`${db}: a file over MAX_UPLOAD_MB is 413 with the error body`, async (t) => {
    const { client } = await signedIn();
    const big = Buffer.concat([await makeImage('png'), Buffer.alloc(2 * 1024 * 1024, 1)]);
    const res = await upload(client, big, 'image/png');
    t.is(res.status, 413);
    t.like(res.body, { statusCode: 413, error: 'Payload Too Large' });
    t.regex(res.body.message, /1 MB/);
    // The connection survived: the same client can go on.
    t.is((await upload(client, await makeImage('png'), 'image/png')).status, 201);
  });

  test(`${db}: no file, a text field, two files or a JSON body are 400`, async (t) => {
    const { client } = await signedIn();
    const png = await makeImage('png');
    const bodies: [string, FormData | object][] = [
      ['empty form', form([['note', 'hello']])],
      ['file as text', form([['file', 'not a file']])],
      ['other field name', form([['image', png, 'image/png', 'a.png']])],
      ['two files', form([['file', png, 'image/png', 'a.png'], ['file', png, 'image/png', 'b.png']])],
      ['json', { file: 'x' }],
    ];
    for (const [label, body] of bodies) {
      const res = await client.post('/uploads', body);
      t.is(res.status, 400, label);
      t.is(res.body.statusCode, 400, label);
      t.is(res.body.details?.[0]?.field, 'file', label);
    }
  });

  test(`${db}: unauthenticated is 401; cookie auth without the XSRF header is 403; a bearer token needs none`, async (t) => {
    const app = appOf();
    const png = await makeImage('png');
    const anonymous = await upload(app.client(), png, 'image/png');
    t.is(anonymous.status, 401);
    t.is(anonymous.body.statusCode, 401);

    const { client } = await signedIn();
    client.sendXsrf = false;
    const forged = await upload(client, png, 'image/png');
    t.is(forged.status, 403);
    t.regex(forged.body.message, /CSRF/);

    const bearer = app.client();
    bearer.bearer = client.cookies.get('access_token')!;
    t.is((await upload(bearer, png, 'image/png')).status, 201);
  });

  test(`${db}: a signed URL serves the file inline or as an attachment, with caching bounded by its validity`, async (t) => {
    const app = appOf();
    const { client, user } = await signedIn();
    const png = await makeImage('png', 40, 40);
    const created = await upload(client, png, 'image/png');
    const key = `uploads/${user.id}/${created.body.id}.png`;
    const storage = storageOf(app);

    const inline = await fetch(local(app, await storage.signedUrl(key, { expiresInSeconds: 900, disposition: 'inline', fileName: 'photo.png' })));
    t.is(inline.status, 200);
    t.deepEqual(Buffer.from(await inline.arrayBuffer()), png);
    t.is(inline.headers.get('content-type'), 'image/png');
    t.is(inline.headers.get('content-length'), String(png.length));
    t.is(inline.headers.get('content-disposition'), `inline; filename="photo.png"; filename*=UTF-8''photo.png`);
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(inline.headers.get('cache-control') ?? '')?.[1]);
    t.true(maxAge > 890 && maxAge <= 900, `max-age ${maxAge}`);
    t.is(inline.headers.get('accept-ranges'), 'bytes');

    const url = await storage.signedUrl(key, { expiresInSeconds: 300, disposition: 'attachment', fileName: 'résumé "1".png' });
    const attachment = await fetch(local(app, url));
    t.is(attachment.status, 200);
    t.is(attachment.headers.get('content-disposition'), `attachment; filename="r_sum_ _1_.png"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%221%22.png`);
    t.deepEqual(Buffer.from(await attachment.arrayBuffer()), png);

    // The legacy prefix serves the same signed path.
    const legacy = await fetch(local(app, url).replace('/api/v1/files/', '/api/files/'));
    t.is(legacy.status, 200);
    t.is(legacy.headers.get('deprecation'), 'true');
  });

  // Pins that the content type signed into a link is the one served, over the one the storage recorded for the file.
  test(`${db}: a signed URL that names a content type serves the file as that type; one that names none, as stored`, async (t) => {
    const app = appOf();
    const storage = storageOf(app);
    const key = `outputs/signed-type-${db}/job/picture.bin`;
    await storage.put(key, Buffer.from('stored without a useful type'), { contentType: 'application/octet-stream' });
    const typed = await fetch(local(app, await storage.signedUrl(key, { expiresInSeconds: 120, disposition: 'inline', fileName: 'picture.png', contentType: 'image/png' })));
    t.is(typed.status, 200);
    t.is(typed.headers.get('content-type'), 'image/png');
    t.is(await typed.text(), 'stored without a useful type');
    const untyped = await fetch(local(app, await storage.signedUrl(key, { expiresInSeconds: 120, disposition: 'inline', fileName: 'picture.bin' })));
    t.is(untyped.status, 200);
    t.is(untyped.headers.get('content-type'), 'application/octet-stream');
    await untyped.arrayBuffer();
  });

  test(`${db}: a tampered or expired signed URL is 403 with the error body; a deleted file is 404`, async (t) => {
    const app = appOf();
    const { client, user } = await signedIn();
    const created = await upload(client, await makeImage('png'), 'image/png');
    const key = `uploads/${user.id}/${created.body.id}.png`;
    const storage = storageOf(app);
    const good = new URL(local(app, await storage.signedUrl(key, { expiresInSeconds: 60, disposition: 'inline', fileName: 'a.png' })));

    const variants: [string, (u: URL) => void][] = [
      ['sig', (u) => u.searchParams.set('sig', `${u.searchParams.get('sig')!.slice(0, -2)}AA`)],
      ['exp', (u) => u.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600))],
      ['disp', (u) => u.searchParams.set('disp', 'attachment')],
      ['name', (u) => u.searchParams.set('name', 'b.png')],
      ['type', (u) => u.searchParams.set('type', 'text/html')],
      ['no sig', (u) => u.searchParams.delete('sig')],
      ['other key', (u) => (u.pathname = u.pathname.replace(/\.png$/, '.jpg'))],
    ];
    for (const [label, change] of variants) {
      const tampered = new URL(good);
      change(tampered);
      const res = await fetch(tampered);
      t.is(res.status, 403, label);
      const body = (await res.json()) as { statusCode: number; error: string; message: string };
      t.like(body, { statusCode: 403, error: 'Forbidden' }, label);
      t.regex(body.message, /not valid/, label);
    }

    const expired = storage.signer.sign(key, { expiresInSeconds: 60, disposition: 'inline', fileName: 'a.png' }, new Date(Date.now() - 120_000));
    const res = await fetch(local(app, expired));
    t.is(res.status, 403);
    t.regex(((await res.json()) as { message: string }).message, /expired/);

    await storage.delete(key);
    const gone = await fetch(good);
    t.is(gone.status, 404);
    t.is(((await gone.json()) as { statusCode: number }).statusCode, 404);
  });

  test(`${db}: Range requests get 206 with the slice; an unsatisfiable range is 416; HEAD has no body`, async (t) => {
    const app = appOf();
    const storage = storageOf(app);
    const body = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    const key = `outputs/range-test-${db}/job/clip.mp4`;
    await storage.put(key, body, { contentType: 'video/mp4' });
    const url = local(app, await storage.signedUrl(key, { expiresInSeconds: 120, disposition: 'inline', fileName: 'clip.mp4' }));

    const first = await fetch(url, { headers: { range: 'bytes=0-99' } });
    t.is(first.status, 206);
    t.is(first.headers.get('content-range'), 'bytes 0-99/1000');
    t.is(first.headers.get('content-length'), '100');
    t.is(first.headers.get('content-type'), 'video/mp4');
    t.deepEqual(Buffer.from(await first.arrayBuffer()), body.subarray(0, 100));

    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    t.is(tail.status, 206);
    t.is(tail.headers.get('content-range'), 'bytes 990-999/1000');
    t.deepEqual(Buffer.from(await tail.arrayBuffer()), body.subarray(990));

    const open = await fetch(url, { headers: { range: 'bytes=500-' } });
    t.is(open.status, 206);
    t.deepEqual(Buffer.from(await open.arrayBuffer()), body.subarray(500));

    const beyond = await fetch(url, { headers: { range: 'bytes=5000-6000' } });
    t.is(beyond.status, 416);
    t.is(beyond.headers.get('content-range'), 'bytes */1000');
    t.is(((await beyond.json()) as { statusCode: number }).statusCode, 416);

    const stale = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': '"not-the-etag"' } });
    t.is(stale.status, 200, 'If-Range that does not match sends the whole file');
    t.is((await stale.arrayBuffer()).byteLength, 1000);

    const head = await fetch(url, { method: 'HEAD' });
    t.is(head.status, 200);
    t.is(head.headers.get('content-length'), '1000');
    t.is((await head.arrayBuffer()).byteLength, 0);
  });

  test(`${db}: a multipart file name up to 255 characters is kept; a longer one is dropped, never a reason to refuse the image`, async (t) => {
    const app = appOf();
    const { client, user } = await signedIn();
    const png = await makeImage('png');
    const get = new GetUploadForUser({ uploads: uploadsOf(app) });
    // Pins: the name is optional metadata; one too long for its column is left out and the image is stored.
    for (const [name, kept] of [['k'.repeat(255), 'k'.repeat(255)], ['l'.repeat(256), null]] as const) {
      const res = await upload(client, png, 'image/png', name);
      t.is(res.status, 201, JSON.stringify(res.body));
      t.like(await get.execute({ userId: user.id, uploadId: res.body.id }), { ok: true, value: { fileName: kept } });
    }
  });

  test(`${db}: If-Range with a date serves the range only when the file has not changed since; files carry the sandbox CSP`, async (t) => {
    const app = appOf();
    const storage = storageOf(app);
    const body = Buffer.from('0123456789'.repeat(10));
    const key = `outputs/if-range-${db}/job/clip.mp4`;
    await storage.put(key, body, { contentType: 'video/mp4' });
    const url = local(app, await storage.signedUrl(key, { expiresInSeconds: 120, disposition: 'inline', fileName: 'clip.mp4' }));
    const whole = await fetch(url);
    await whole.arrayBuffer();
    // Pins: a served file can run no active content on our origin.
    t.is(whole.headers.get('content-security-policy'), "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'");
    const lastModified = whole.headers.get('last-modified')!;
    const unchanged = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': lastModified } });
    t.is(unchanged.status, 206);
    t.is(Buffer.from(await unchanged.arrayBuffer()).toString(), '0123456789');
    // Pins: a client holding the version of a day before gets the whole current file, not a slice of it.
    const older = new Date(Date.parse(lastModified) - 24 * 3600_000).toUTCString();
    const changed = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': older } });
    t.is(changed.status, 200);
    t.deepEqual(Buffer.from(await changed.arrayBuffer()), body);
  });

  // Serial: the health route gives each check 3 s, and the concurrent tests below (scrypt sign-ups, sharp
  // decodes, fsyncs) can keep the libuv threadpool that file system calls share busy for longer than that.
  test.serial(`${db}: health reports storage ok and leaves no probe behind; OpenAPI lists the routes`, async (t) => {
    const app = appOf();
    const health = await app.client().get('/health');
    t.is(health.body.checks.storage, 'ok');
    t.false(existsSync(path.join(app.dataDir, 'storage', 'health')));
    const doc = await app.client().get('/openapi.json');
    t.truthy(doc.body.paths['/uploads']?.post);
    t.truthy(Object.keys(doc.body.paths).some((p: string) => p.startsWith('/files/')));
  });

  // Serial: AVA runs serial tests before the concurrent ones, so this sweep cannot take other tests' fresh uploads.
  test.serial(`${db}: the sweeper removes an old unused upload (file and row) and keeps a used one`, async (t) => {
    const app = appOf();
    const { client, user } = await signedIn();
    const png = await makeImage('png');
    const unused = (await upload(client, png, 'image/png')).body;
    const used = (await upload(client, png, 'image/png')).body;
    const uploads = uploadsOf(app);
    t.true(await uploads.markUsed(used.id, new Date()));
    const storage = storageOf(app);
    const fileOf = (id: string) => path.join(app.dataDir, 'storage', 'uploads', user.id, `${id}.png`);
    t.true(existsSync(fileOf(unused.id)));

    const later = { now: () => new Date(Date.now() + 25 * 3600_000) };
    const report = await new SweepExpiredUploads({ uploads, storage, clock: later }).execute();
    t.true(report.deleted >= 1);
    t.deepEqual(report.failedKeys, []);
    const get = new GetUploadForUser({ uploads });
    t.like(await get.execute({ userId: user.id, uploadId: unused.id }), { ok: false, code: 'NOT_FOUND' });
    t.false(existsSync(fileOf(unused.id)));
    t.like(await get.execute({ userId: user.id, uploadId: used.id }), { ok: true });
    t.true(existsSync(fileOf(used.id)));
    t.deepEqual(readdirSync(path.dirname(fileOf(used.id))).filter((name) => !name.startsWith('.')), [`${used.id}.png`]);
  });
}
