import { Readable } from 'node:stream';
import test from 'ava';
import sharp from 'sharp';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUploadRepository } from '../../adapters/memory/memory-upload-repository.ts';
import { SharpImageInspector } from '../../adapters/sharp/sharp-image-inspector.ts';
import { Blake3ContentHasher } from '../../adapters/crypto/blake3-content-hasher.ts';
import { GetUploadForUser } from '../../core/use-cases/uploads/get-upload-for-user.use-case.ts';
import { StoreUpload } from '../../core/use-cases/uploads/store-upload.use-case.ts';
import { SweepExpiredUploads } from '../../core/use-cases/uploads/sweep-expired-uploads.use-case.ts';
import { readAll } from '../contract/object-storage.contract.ts';
import { makeImage, makePixelBomb, MIME } from '../support/images.ts';

const USER = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const T0 = new Date('2030-01-01T00:00:00.000Z');
const HOUR = 3600_000;

function setup(maxBytes = 1024 * 1024, maxImagePixels = 8192 * 8192) {
  const clock = { current: T0, now() { return this.current; } };
  let n = 0;
  const ids = { newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
  const memory = new MemoryStore();
  // Uploads belong to existing users (the memory store keeps the SQL foreign key).
  for (const id of [USER, OTHER]) memory.users.set(id, { id, email: `${id}@example.com`, displayName: 'U', role: 'user', coinBalance: 0, createdAt: T0, updatedAt: T0, passwordHash: null });
  const uploads = new MemoryUploadRepository(memory);
  const storage = new MemoryObjectStorage();
  const store = new StoreUpload({ uploads, storage, inspector: new SharpImageInspector(), hasher: new Blake3ContentHasher(), ids, clock, maxBytes, maxImagePixels });
  const sweep = new SweepExpiredUploads({ uploads, storage, clock });
  const get = new GetUploadForUser({ uploads });
  return { clock, uploads, storage, store, sweep, get };
}

for (const format of ['png', 'jpeg', 'webp'] as const) {
  test(`a ${format} is stored under uploads/<user>/<id>.<ext> with its dimensions`, async (t) => {
    const { store, storage, get } = setup();
    const bytes = await makeImage(format, 64, 48);
    const result = await store.execute({ userId: USER, body: bytes, claimedMimeType: MIME[format] });
    if (!result.ok) return t.fail(JSON.stringify(result));
    const upload = result.value;
    const ext = { png: 'png', jpeg: 'jpg', webp: 'webp' }[format];
    t.like(upload, { userId: USER, mimeType: MIME[format], width: 64, height: 48, sizeBytes: bytes.length, createdAt: T0, usedAt: null });
    t.is(upload.storageKey, `uploads/${USER}/${upload.id}.${ext}`);
    const stored = await storage.get(upload.storageKey);
    t.is(stored!.contentType, MIME[format]);
    t.deepEqual(await readAll(stored!.body), bytes);
    t.deepEqual(await get.execute({ userId: USER, uploadId: upload.id }), { ok: true, value: upload });
  });
}

test('the bytes decide: a mismatched claim, a non-image and an undecodable image are refused, nothing stored', async (t) => {
  const { store, storage } = setup();
  const png = await makeImage('png');
  const cases: [string, Buffer, string][] = [
    ['png claimed as jpeg', png, 'image/jpeg'],
    ['text claimed as png', Buffer.from('hello, I am a text file pretending'), 'image/png'],
    ['png claimed as text', png, 'text/plain'],
    ['gif', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'image/gif'],
    ['truncated png', png.subarray(0, Math.floor(png.length / 2)), 'image/png'],
    ['png signature then garbage', Buffer.concat([png.subarray(0, 16), Buffer.alloc(200, 7)]), 'image/png'],
    ['empty', Buffer.alloc(0), 'image/png'],
  ];
  for (const [label, body, claimed] of cases) {
    const result = await store.execute({ userId: USER, body, claimedMimeType: claimed });
    t.like(result, { ok: false, code: 'VALIDATION.FAILED' }, label);
    if (!result.ok) t.is(result.details?.[0]?.field, 'file', label);
  }
  t.deepEqual(storage.keys(), []);
});

/**
 * Decoding 16000² pixels takes most of a gigabyte and seconds of CPU; reading its header takes neither. Memory tells
 * them apart whatever else loads the machine (a time bound did not): the process's peak resident size grows by less
 * than DECODE_FREE_BYTES.
 */
const DECODE_FREE_BYTES = 256 * 1024 * 1024;
const peakRss = () => process.resourceUsage().maxRSS * 1024;

test('a pixel bomb (a small PNG that decodes to 16000²) is refused from its header, without decoding it, naming the limit', async (t) => {
  const { store, storage } = setup(1024 * 1024);
  const bomb = makePixelBomb(16000);
  t.true(bomb.length < 1024 * 1024, `bomb is ${bomb.length} bytes`);
  const before = peakRss();
  const result = await store.execute({ userId: USER, body: bomb, claimedMimeType: 'image/png' });
  t.like(result, { ok: false, code: 'VALIDATION.FAILED' });
  if (!result.ok) t.regex(result.details?.[0]?.message ?? '', /16000×16000 \(256000000 pixels\), above the pixel limit per image \(67108864\)/);
  t.true(peakRss() - before < DECODE_FREE_BYTES, `peak memory grew by ${Math.round((peakRss() - before) / 1024 / 1024)} MB`);
  t.deepEqual(storage.keys(), []);
});

test('the decode itself is bounded: sharp refuses an image above the pixel limit without decoding it', async (t) => {
  const bomb = makePixelBomb(16000);
  const before = peakRss();
  t.is(await new SharpImageInspector().inspect(bomb, 8192 * 8192), null);
  t.true(peakRss() - before < DECODE_FREE_BYTES, `peak memory grew by ${Math.round((peakRss() - before) / 1024 / 1024)} MB`);
  t.deepEqual(await new SharpImageInspector().inspect(await makeImage('png', 64, 48), 64 * 48), { width: 64, height: 48 });
});

test('a generic claim (application/octet-stream) lets the bytes decide; image/jpg is an alias', async (t) => {
  const { store } = setup();
  t.like(await store.execute({ userId: USER, body: await makeImage('webp'), claimedMimeType: 'application/octet-stream' }), { ok: true, value: { mimeType: 'image/webp' } });
  t.like(await store.execute({ userId: USER, body: await makeImage('jpeg'), claimedMimeType: 'IMAGE/JPG; foo=bar' }), { ok: true, value: { mimeType: 'image/jpeg' } });
});

test('EXIF orientation is applied to the reported dimensions', async (t) => {
  const { store } = setup();
  const result = await store.execute({ userId: USER, body: await makeImage('jpeg', 64, 48, { orientation: 6 }), claimedMimeType: 'image/jpeg' });
  t.like(result, { ok: true, value: { width: 48, height: 64 } });
});

test('too large: a buffer or a stream past maxBytes is PAYLOAD.TOO_LARGE, and the stream is not read to the end', async (t) => {
  const { store, storage } = setup(1024);
  t.like(await store.execute({ userId: USER, body: Buffer.alloc(1025), claimedMimeType: 'image/png' }), { ok: false, code: 'PAYLOAD.TOO_LARGE' });
  let produced = 0;
  async function* endless() {
    for (;;) {
      produced += 1;
      yield Buffer.alloc(512);
    }
  }
  t.like(await store.execute({ userId: USER, body: Readable.from(endless()), claimedMimeType: 'image/png' }), { ok: false, code: 'PAYLOAD.TOO_LARGE' });
  t.true(produced <= 4);
  t.deepEqual(storage.keys(), []);
});

test("GetUploadForUser: another user's upload, an unknown id and a malformed id are all NOT_FOUND", async (t) => {
  const { store, get } = setup();
  const mine = await store.execute({ userId: USER, body: await makeImage('png'), claimedMimeType: 'image/png' });
  if (!mine.ok) return t.fail();
  t.like(await get.execute({ userId: OTHER, uploadId: mine.value.id }), { ok: false, code: 'NOT_FOUND' });
  t.like(await get.execute({ userId: USER, uploadId: '99999999-9999-4999-8999-999999999999' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await get.execute({ userId: USER, uploadId: 'not-a-uuid' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await get.execute({ userId: USER, uploadId: mine.value.id.toUpperCase() }), { ok: true });
});

test('the sweeper deletes unused uploads older than 24 h, file and row, and keeps used or young ones', async (t) => {
  const { store, sweep, uploads, storage, clock, get } = setup();
  const png = await makeImage('png');
  const old = await store.execute({ userId: USER, body: png, claimedMimeType: 'image/png' });
  const used = await store.execute({ userId: USER, body: png, claimedMimeType: 'image/png' });
  clock.current = new Date(T0.getTime() + 20 * HOUR);
  const young = await store.execute({ userId: USER, body: png, claimedMimeType: 'image/png' });
  if (!old.ok || !used.ok || !young.ok) return t.fail();
  t.true(await uploads.markUsed(used.value.id, new Date(T0.getTime() + HOUR)));

  clock.current = new Date(T0.getTime() + 23 * HOUR);
  t.deepEqual(await sweep.execute(), { deleted: 0, failedKeys: [] });

  clock.current = new Date(T0.getTime() + 25 * HOUR);
  t.deepEqual(await sweep.execute(), { deleted: 1, failedKeys: [] });
  t.like(await get.execute({ userId: USER, uploadId: old.value.id }), { ok: false, code: 'NOT_FOUND' });
  t.is(await storage.head(old.value.storageKey), null);
  t.deepEqual(storage.keys(), [used.value.storageKey, young.value.storageKey].sort());
  t.like(await get.execute({ userId: USER, uploadId: used.value.id }), { ok: true, value: { usedAt: new Date(T0.getTime() + HOUR) } });
  t.false(await uploads.markUsed(old.value.id, clock.now()), 'a swept upload can no longer be marked used');
});

test('the sweeper leaves an upload that a job marks used between listing and deleting', async (t) => {
  const { store, uploads, storage, clock } = setup();
  const result = await store.execute({ userId: USER, body: await makeImage('png'), claimedMimeType: 'image/png' });
  if (!result.ok) return t.fail();
  clock.current = new Date(T0.getTime() + 48 * HOUR);
  // A job claims the upload right after the sweeper listed it.
  const racing = Object.create(uploads) as typeof uploads;
  racing.listExpired = async (before, limit) => {
    const listed = await uploads.listExpired(before, limit);
    await uploads.markUsed(result.value.id, clock.now());
    return listed;
  };
  const report = await new SweepExpiredUploads({ uploads: racing, storage, clock }).execute();
  t.deepEqual(report, { deleted: 0, failedKeys: [] });
  t.truthy(await storage.head(result.value.storageKey));
});

test('a file name up to 255 characters is kept; a longer one is refused on file_path and nothing is stored', async (t) => {
  const { store, storage } = setup();
  const png = await makeImage('png');
  // Pins the column's size: 255 fits, 256 is a validation failure before any byte is stored.
  t.like(await store.execute({ userId: USER, body: png, claimedMimeType: 'image/png', fileName: 'a'.repeat(255) }), { ok: true, value: { fileName: 'a'.repeat(255) } });
  const keys = storage.keys();
  const refused = await store.execute({ userId: USER, body: png, claimedMimeType: 'image/png', fileName: 'a'.repeat(256) });
  t.like(refused, { ok: false, code: 'VALIDATION.FAILED' });
  if (!refused.ok) t.is(refused.details?.[0]?.field, 'file_path');
  t.deepEqual(storage.keys(), keys);
});

test('images of other formats (GIF, TIFF) are refused by their bytes even when no type or a generic one is declared', async (t) => {
  const { store, storage } = setup();
  const pixels = { create: { width: 8, height: 8, channels: 3 as const, background: '#ff0000' } };
  const gif = await sharp(pixels).gif().toBuffer();
  const tiff = await sharp(pixels).tiff().toBuffer();
  // Pins: only PNG, JPEG and WebP bytes are accepted, whatever (if anything) the client claims.
  for (const [label, body] of [['gif', gif], ['tiff', tiff]] as const) {
    for (const claimed of [undefined, null, 'application/octet-stream']) {
      const result = await store.execute({ userId: USER, body, claimedMimeType: claimed });
      t.like(result, { ok: false, code: 'VALIDATION.FAILED' }, `${label} claimed ${claimed}`);
    }
  }
  t.deepEqual(storage.keys(), []);
});

test('an upload whose row cannot be written leaves no file behind', async (t) => {
  const { store, uploads, storage } = setup();
  uploads.create = async () => {
    throw new Error('the database is gone');
  };
  // Pins: saveUpload takes the stored file away again when its row fails (the sweep finds rows, never files).
  await t.throwsAsync(store.execute({ userId: USER, body: await makeImage('png'), claimedMimeType: 'image/png' }), { message: 'the database is gone' });
  t.deepEqual(storage.keys(), []);
});

test('the sweeper goes on past a full batch until every expired upload is gone', async (t) => {
  const { store, uploads, storage, clock } = setup();
  const png = await makeImage('png');
  for (let i = 0; i < 5; i++) t.true((await store.execute({ userId: USER, body: png, claimedMimeType: 'image/png' })).ok);
  clock.current = new Date(T0.getTime() + 25 * HOUR);
  // Pins: batches of 2 over 5 expired uploads: 2 + 2 + 1, all deleted in one run.
  t.deepEqual(await new SweepExpiredUploads({ uploads, storage, clock, batchSize: 2 }).execute(), { deleted: 5, failedKeys: [] });
  t.deepEqual(storage.keys(), []);
});
