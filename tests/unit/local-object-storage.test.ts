import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { LocalUrlSigner } from '../../adapters/local-storage/local-url-signer.ts';
import { readAll } from '../contract/object-storage.contract.ts';

const SECRET = 'unit-test-signing-key-0123456789abcdef';
const NOW = new Date('2030-01-01T00:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;

const makeStorage = (t: { teardown(fn: () => void): void }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'local-storage-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const storage = new LocalObjectStorage({ dir, filesUrl: 'https://media.example.com/api/v1/files', signingKey: SECRET, clock: { now: () => NOW } });
  return { dir, storage };
};

/** Every file under `dir`, relative, sorted. */
const tree = (dir: string): string[] =>
  existsSync(dir) ? (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort() : [];

test('a key is a path under the storage folder, with a content-type sidecar and no temp file left', async (t) => {
  const { dir, storage } = makeStorage(t);
  await storage.put('outputs/u1/j1/ComfyUI_00001_.png', Buffer.from('png bytes'), { contentType: 'image/png' });
  t.deepEqual(tree(dir), ['outputs/u1/j1/.ComfyUI_00001_.png.meta.json', 'outputs/u1/j1/ComfyUI_00001_.png']);
  t.is(readFileSync(path.join(dir, 'outputs/u1/j1/ComfyUI_00001_.png'), 'utf8'), 'png bytes');
  t.deepEqual(JSON.parse(readFileSync(path.join(dir, 'outputs/u1/j1/.ComfyUI_00001_.png.meta.json'), 'utf8')), { contentType: 'image/png' });
  t.is(storage.pathOf('outputs/u1/j1/ComfyUI_00001_.png'), path.join(dir, 'outputs', 'u1', 'j1', 'ComfyUI_00001_.png'));
});

test('delete removes the body, the sidecar and the folders it left empty, but not the root or busy folders', async (t) => {
  const { dir, storage } = makeStorage(t);
  await storage.put('outputs/u1/j1/a.png', Buffer.from('a'), { contentType: 'image/png' });
  await storage.put('outputs/u1/j2/b.png', Buffer.from('b'), { contentType: 'image/png' });
  await storage.delete('outputs/u1/j1/a.png');
  t.deepEqual(tree(dir), ['outputs/u1/j2/.b.png.meta.json', 'outputs/u1/j2/b.png']);
  t.false(existsSync(path.join(dir, 'outputs/u1/j1')));
  await storage.delete('outputs/u1/j2/b.png');
  t.deepEqual(readdirSync(dir), []);
  t.true(existsSync(dir));
});

test('a failed put leaves no temp file behind', async (t) => {
  const { dir, storage } = makeStorage(t);
  async function* failing() {
    yield Buffer.alloc(100_000);
    throw new Error('source failed');
  }
  await t.throwsAsync(() => storage.put('outputs/u/j/x.mp4', Readable.from(failing()), { contentType: 'video/mp4' }));
  t.deepEqual(tree(dir), []);
});

// Pins: a put whose body cannot take its place (the key is a folder, holding other objects) leaves no sidecar
// behind, which a later object at that key would otherwise inherit, and which no delete of that key would remove.
test('a put refused at its last step leaves no sidecar behind', async (t) => {
  const { dir, storage } = makeStorage(t);
  await storage.put('outputs/u/j/a.png', Buffer.from('a'), { contentType: 'image/png' });
  await t.throwsAsync(() => storage.put('outputs/u/j', Buffer.from('folder'), { contentType: 'video/mp4' }));
  t.deepEqual(tree(dir), ['outputs/u/j/.a.png.meta.json', 'outputs/u/j/a.png']);
  t.is(await storage.head('outputs/u/j'), null);
  t.deepEqual(await storage.head('outputs/u/j/a.png'), { contentType: 'image/png', sizeBytes: 1 });
});

test('an object without its sidecar reads as application/octet-stream', async (t) => {
  const { dir, storage } = makeStorage(t);
  await storage.put('a/b.bin', Buffer.from('x'), { contentType: 'image/png' });
  rmSync(path.join(dir, 'a/.b.bin.meta.json'));
  t.deepEqual(await storage.head('a/b.bin'), { contentType: 'application/octet-stream', sizeBytes: 1 });
});

test('open serves byte ranges from one file handle', async (t) => {
  const { storage } = makeStorage(t);
  await storage.put('v/clip.mp4', Buffer.from('0123456789'), { contentType: 'video/mp4' });
  const opened = await storage.open('v/clip.mp4');
  t.is(opened!.sizeBytes, 10);
  t.is(opened!.contentType, 'video/mp4');
  // Overwriting after open does not change what the open handle reads.
  await storage.put('v/clip.mp4', Buffer.from('abcdefghijklmnop'), { contentType: 'video/mp4' });
  t.is((await readAll(opened!.stream({ start: 2, end: 5 }))).toString(), '2345');
  t.is(await storage.open('v/missing.mp4'), null);
  t.is(await storage.open('v'), null, 'a folder is not an object');
});

test('signedUrl has the documented shape and verifies until it expires', async (t) => {
  const { storage } = makeStorage(t);
  const url = new URL(await storage.signedUrl('outputs/u/j/My clip.mp4', { expiresInSeconds: 900, disposition: 'inline', fileName: 'My clip.mp4' }));
  t.is(url.origin + url.pathname, 'https://media.example.com/api/v1/files/outputs/u/j/My%20clip.mp4');
  t.deepEqual([...url.searchParams.keys()], ['exp', 'disp', 'name', 'sig']);
  t.is(url.searchParams.get('exp'), String(NOW_S + 900));
  t.regex(url.searchParams.get('sig')!, /^[A-Za-z0-9_-]{43}$/);

  const query = { key: 'outputs/u/j/My clip.mp4', ...Object.fromEntries(url.searchParams) };
  const verdict = storage.signer.verify(query, new Date(NOW.getTime() + 100_000));
  t.deepEqual(verdict, { ok: true, key: 'outputs/u/j/My clip.mp4', disposition: 'inline', fileName: 'My clip.mp4', contentType: null, remainingSeconds: 800 });
  t.deepEqual(storage.signer.verify(query, new Date(NOW.getTime() + 900_000)), { ok: false, reason: 'expired' });
});

test('every signed field is covered: changing any of them invalidates the URL', (t) => {
  const signer = new LocalUrlSigner(SECRET, 'http://x/api/v1/files');
  const url = new URL(signer.sign('a/b.png', { expiresInSeconds: 60, disposition: 'inline', fileName: 'b.png', contentType: 'image/png' }, NOW));
  const good = { key: 'a/b.png', ...Object.fromEntries(url.searchParams) } as Record<string, string> & { key: string };
  t.true(signer.verify(good, NOW).ok);
  t.is((signer.verify(good, NOW) as { contentType: string }).contentType, 'image/png');
  const tampered: Record<string, string>[] = [
    { key: 'a/c.png' },
    { exp: String(NOW_S + 6000) },
    { disp: 'attachment' },
    { name: 'evil.html' },
    { type: 'text/html' },
    { type: '' },
    { sig: good.sig!.slice(0, -1) + (good.sig!.endsWith('A') ? 'B' : 'A') },
    { sig: '' },
  ];
  for (const change of tampered) t.deepEqual(signer.verify({ ...good, ...change }, NOW), { ok: false, reason: 'invalid' }, JSON.stringify(change));
  const { sig: _sig, ...unsigned } = good;
  t.deepEqual(signer.verify(unsigned, NOW), { ok: false, reason: 'invalid' });
  t.deepEqual(new LocalUrlSigner(`${SECRET}-other`, 'http://x').verify(good, NOW), { ok: false, reason: 'invalid' });
});

test('fields cannot borrow characters from each other', (t) => {
  const signer = new LocalUrlSigner(SECRET, 'http://x');
  // With a plain "name|type" message, name "a|text" + type "html" would equal name "a" + type "text|html".
  const url = new URL(signer.sign('k/f.png', { expiresInSeconds: 60, disposition: 'inline', fileName: 'a|text', contentType: 'html' }, NOW));
  const sig = url.searchParams.get('sig')!;
  const shifted = { key: 'k/f.png', exp: url.searchParams.get('exp')!, disp: 'inline', name: 'a', type: 'text|html', sig };
  t.deepEqual(signer.verify(shifted, NOW), { ok: false, reason: 'invalid' });
});

test('an expired URL says so only when its signature is right', (t) => {
  const signer = new LocalUrlSigner(SECRET, 'http://x');
  const url = new URL(signer.sign('k/f.png', { expiresInSeconds: 1, disposition: 'attachment', fileName: 'f.png' }, NOW));
  const query = { key: 'k/f.png', ...Object.fromEntries(url.searchParams) };
  const later = new Date(NOW.getTime() + 1000);
  t.deepEqual(signer.verify(query, later), { ok: false, reason: 'expired' });
  t.deepEqual(signer.verify({ ...query, sig: 'x'.repeat(43) }, later), { ok: false, reason: 'invalid' });
  t.throws(() => signer.sign('k/f.png', { expiresInSeconds: 0, disposition: 'inline', fileName: 'f' }, NOW), { instanceOf: RangeError });
});

test('a folder is not an object: head says null for it, as open does', async (t) => {
  const { storage } = makeStorage(t);
  await storage.put('outputs/u/j/a.png', Buffer.from('a'), { contentType: 'image/png' });
  // Pins: only a file is an object; the folders above it are not.
  t.is(await storage.head('outputs/u/j'), null);
  t.is(await storage.head('outputs'), null);
  t.deepEqual(await storage.head('outputs/u/j/a.png'), { contentType: 'image/png', sizeBytes: 1 });
});

test('a URL signing key shorter than 16 characters is refused', (t) => {
  // Pins the minimum length of the HMAC key of signed file URLs.
  t.throws(() => new LocalUrlSigner('fifteen-chars!!', 'http://x'), { message: /at least 16 characters/ });
  t.notThrows(() => new LocalUrlSigner('sixteen-chars!!!', 'http://x'));
});

/** The signature the signer computes for these fields (as if the URL had been issued with them). */
const forged = (fields: { key: string; exp: string; disp: string; name: string; type?: string }) => ({
  ...fields,
  sig: createHmac('sha256', SECRET)
    .update([fields.key, fields.exp, fields.disp, fields.name, fields.type ?? ''].map(encodeURIComponent).join('|'))
    .digest('base64url'),
});

// Pins: verify checks the fields' shape even when the signature matches: a URL is only ever issued for a good key, a
// plain number of seconds and a known disposition, so anything else is not one of ours (or a leaked-key forgery).
test('a signed file URL with a bad key, a non-numeric expiry or an unknown disposition is invalid', (t) => {
  const signer = new LocalUrlSigner(SECRET, 'http://x');
  const exp = String(NOW_S + 600);
  t.true(signer.verify(forged({ key: 'outputs/u/j/a.png', exp, disp: 'inline', name: 'a.png' }), NOW).ok, 'the forging matches the signer');
  const bad = [
    { key: '../outside/a.png', exp, disp: 'inline', name: 'a.png' },
    { key: 'outputs/u/j/.a.png.meta.json', exp, disp: 'inline', name: 'a.png' },
    { key: 'outputs/u/j/a.png', exp: `${NOW_S + 600}.5`, disp: 'inline', name: 'a.png' },
    { key: 'outputs/u/j/a.png', exp: '1e12', disp: 'inline', name: 'a.png' },
    { key: 'outputs/u/j/a.png', exp, disp: 'render', name: 'a.png' },
  ];
  for (const fields of bad) t.deepEqual(signer.verify(forged(fields), NOW), { ok: false, reason: 'invalid' }, JSON.stringify(fields));
});

// Pins: a link signed without a file name downloads under the key's last segment, not unnamed.
test('a signed URL without a file name is named after the key', async (t) => {
  const { storage } = makeStorage(t);
  const url = new URL(await storage.signedUrl('outputs/u/j/ComfyUI_00001_.png', { expiresInSeconds: 60, disposition: 'attachment', fileName: '' }));
  t.is(url.searchParams.get('name'), 'ComfyUI_00001_.png');
  const verdict = storage.signer.verify({ key: 'outputs/u/j/ComfyUI_00001_.png', ...Object.fromEntries(url.searchParams) }, NOW);
  t.like(verdict, { ok: true, fileName: 'ComfyUI_00001_.png', disposition: 'attachment' });
});
