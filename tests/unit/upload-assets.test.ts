/**
 * Uploads as Comfy API v2 assets (ADR 042) on the memory adapters with the real builtin engine: a core/ASSET
 * reference at a template's image input is the job's input image (its owner's only), an upload a queued job reads
 * cannot be deleted, and from-hash copies the caller's own bytes only.
 */
import test, { type ExecutionContext } from 'ava';
import { Blake3ContentHasher } from '../../adapters/crypto/blake3-content-hasher.ts';
import { SharpImageInspector } from '../../adapters/sharp/sharp-image-inspector.ts';
import type { ParameterMap } from '../../core/domain/parameter-map.ts';
import { StoreUpload } from '../../core/use-cases/uploads/store-upload.use-case.ts';
import { GetUploadForUser } from '../../core/use-cases/uploads/get-upload-for-user.use-case.ts';
import { DeleteUpload, FindUploadByHash, MintUploadFromHash, UploadDownloadUrl } from '../../core/use-cases/uploads/upload-assets.use-case.ts';
import { readAll } from '../contract/object-storage.contract.ts';
import { generationHarness } from '../support/generation-harness.ts';
import { makeImage } from '../support/images.ts';

const PRICE = 3;
/** A template that inverts the image its `image` parameter names; its file name prefix is a string parameter. */
const invertTemplate = {
  '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'inverted' } },
};
const invertMap = {
  image: { key: 'image', type: 'image', node_id: '1', input_name: 'image', required: true },
  prefix: { key: 'prefix', type: 'string', node_id: '3', input_name: 'filename_prefix' },
} as unknown as ParameterMap;
const reference = (id: string) => ({ __type: 'core/ASSET', info: { id, hash: 'blake3:ignored', file_path: 'in.png' } });
const withInput = (nodeId: '1' | '3', input: string, value: unknown) => {
  const workflow = structuredClone(invertTemplate) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  workflow[nodeId]!.inputs[input] = value;
  return workflow;
};

async function setup(t: ExecutionContext) {
  const h = await generationHarness();
  t.teardown(() => h.dispose());
  const store = new StoreUpload({ uploads: h.repos.uploads, storage: h.storage, inspector: new SharpImageInspector(), hasher: new Blake3ContentHasher(), ids: { newId: () => crypto.randomUUID() }, clock: h.clock, maxBytes: 1 << 20, maxImagePixels: 1 << 20 });
  const upload = async (userId: string, width = 5, height = 2) => {
    const stored = await store.execute({ userId, body: await makeImage('png', width, height), fileName: 'in.png' });
    if (!stored.ok) throw new Error(`upload refused: ${stored.code}`);
    return stored.value;
  };
  const owner = await h.newUser(20);
  const stranger = await h.newUser(20);
  const templateId = await h.addTemplate(PRICE, invertTemplate as never, invertMap);
  return { h, upload, owner, stranger, templateId };
}

test('a core/ASSET reference at an image input of a template is the job input: the job reads that upload, which is then kept', async (t) => {
  const { h, upload, owner } = await setup(t);
  const asset = await upload(owner, 5, 2);
  const submitted = await h.submit.execute({ userId: owner, role: 'user', workflow: withInput('1', 'image', reference(asset.id)) });
  if (!submitted.ok) return t.fail(JSON.stringify(submitted));
  const { job } = submitted.value;
  t.deepEqual(job.imageRefs, [{ key: 'image', id: asset.id, nodeId: '1', inputName: 'image' }]);
  t.is(job.workflow['1']!.inputs.image, asset.id, 'the reference became the asset id');
  t.is(job.paidCoins, PRICE, 'priced as the template');
  t.truthy((await h.repos.uploads.findForUser(asset.id, owner))!.usedAt, 'used: it no longer expires');
  t.deepEqual(await h.run.execute(h.delivery(job.id)), { action: 'ack' });
  const [output] = await h.repos.history.listForJob(job.id);
  t.like(output, { width: 5, height: 2 }, 'the output has the size of the asset: the job read it');
});

test("a reference to another user's upload, an unknown id or at an input that takes no image is missing_asset; nothing is charged", async (t) => {
  const { h, upload, owner, stranger } = await setup(t);
  const theirs = await upload(stranger);
  const mine = await upload(owner);
  for (const [what, workflow, field] of [
    ["another user's", withInput('1', 'image', reference(theirs.id)), 'workflow.1.inputs.image'],
    ['unknown', withInput('1', 'image', reference(crypto.randomUUID())), 'workflow.1.inputs.image'],
    ['without an id', withInput('1', 'image', { __type: 'core/ASSET', info: { hash: 'blake3:00' } }), 'workflow.1.inputs.image'],
    ['at a string input', withInput('3', 'filename_prefix', reference(mine.id)), 'workflow.3.inputs.filename_prefix'],
  ] as const) {
    const refused = await h.submit.execute({ userId: owner, role: 'user', workflow });
    t.like(refused, { ok: false, code: 'ASSET.MISSING' }, what);
    t.is(!refused.ok && refused.details?.[0]?.field, field, what);
  }
  t.is(await h.balance(owner), 20);
  t.is((await h.repos.uploads.findForUser(theirs.id, stranger))!.usedAt, null, "the other user's upload was not touched");
});

test('an upload a queued job reads is ASSET.IN_USE; once the job has ended it is deleted with its file', async (t) => {
  const { h, upload, owner } = await setup(t);
  const remove = new DeleteUpload({ uploads: h.repos.uploads, jobs: h.repos.jobs, storage: h.storage });
  const asset = await upload(owner);
  const submitted = await h.submit.execute({ userId: owner, role: 'user', workflow: withInput('1', 'image', reference(asset.id)) });
  if (!submitted.ok) return t.fail(submitted.code);
  t.like(await remove.execute({ userId: owner, uploadId: asset.id }), { ok: false, code: 'ASSET.IN_USE' });
  t.truthy(await h.storage.head(asset.storageKey), 'still stored');
  t.true((await h.cancel.execute({ userId: owner, jobId: submitted.value.job.id })).ok);
  t.deepEqual(await remove.execute({ userId: owner, uploadId: asset.id }), { ok: true, value: undefined });
  t.is(await h.repos.uploads.findForUser(asset.id, owner), null);
  t.is(await h.storage.head(asset.storageKey), null, 'its file is gone');
});

test("from-hash copies the caller's own bytes into a new upload; another user's hash is NOT_FOUND", async (t) => {
  const { h, upload, owner, stranger } = await setup(t);
  const mint = new MintUploadFromHash({ uploads: h.repos.uploads, storage: h.storage, ids: { newId: () => crypto.randomUUID() }, clock: h.clock });
  const asset = await upload(owner);
  const minted = await mint.execute({ userId: owner, hash: asset.contentHash!.toUpperCase().replace('BLAKE3', 'blake3'), fileName: 'copy.png' });
  if (!minted.ok) return t.fail(minted.code);
  t.like(minted.value, { userId: owner, contentHash: asset.contentHash, fileName: 'copy.png', sizeBytes: asset.sizeBytes, usedAt: null });
  t.not(minted.value.storageKey, asset.storageKey, 'its own file');
  t.deepEqual(await readAll((await h.storage.get(minted.value.storageKey))!.body), await readAll((await h.storage.get(asset.storageKey))!.body));
  t.like(await mint.execute({ userId: stranger, hash: asset.contentHash }), { ok: false, code: 'NOT_FOUND' });
  t.like(await mint.execute({ userId: owner, hash: 'sha256:abc' }), { ok: false, code: 'VALIDATION.FAILED' });
});

test('a malformed hash is VALIDATION.FAILED for by-hash and from-hash, even when the caller has uploads without a hash', async (t) => {
  const { h, owner } = await setup(t);
  // An upload from before content hashes (ADR 042): its content_hash is null.
  const id = crypto.randomUUID();
  const legacy = { id, userId: owner, storageKey: `uploads/${owner}/${id}.png`, mimeType: 'image/png', width: 5, height: 2, sizeBytes: 3, createdAt: h.clock.now(), contentHash: null, fileName: 'old.png' };
  await h.storage.put(legacy.storageKey, Buffer.from('png'), { contentType: 'image/png' });
  await h.repos.uploads.create(legacy);
  const find = new FindUploadByHash({ uploads: h.repos.uploads });
  const mint = new MintUploadFromHash({ uploads: h.repos.uploads, storage: h.storage, ids: { newId: () => crypto.randomUUID() }, clock: h.clock });
  // Pins: a hash that does not parse is refused before any lookup; it never matches the hashless upload.
  for (const hash of ['garbage', '', null, 42]) {
    t.like(await find.execute({ userId: owner, hash }), { ok: false, code: 'VALIDATION.FAILED' }, `by-hash ${String(hash)}`);
    t.like(await mint.execute({ userId: owner, hash }), { ok: false, code: 'VALIDATION.FAILED' }, `from-hash ${String(hash)}`);
  }
  t.deepEqual((h.storage as unknown as { keys(): string[] }).keys(), [legacy.storageKey], 'nothing was copied');
});

test('from-hash refuses a file name that is not a string or longer than 255 characters, and says NOT_FOUND when the file is gone', async (t) => {
  const { h, upload, owner } = await setup(t);
  const mint = new MintUploadFromHash({ uploads: h.repos.uploads, storage: h.storage, ids: { newId: () => crypto.randomUUID() }, clock: h.clock });
  const asset = await upload(owner);
  const keysOf = () => (h.storage as unknown as { keys(): string[] }).keys();
  const keys = keysOf();
  // Pins the file_path rule (a string of at most 255 characters) and that nothing is copied when it is broken.
  for (const fileName of ['a'.repeat(256), 42, { name: 'x' }]) {
    const refused = await mint.execute({ userId: owner, hash: asset.contentHash, fileName });
    t.like(refused, { ok: false, code: 'VALIDATION.FAILED' }, JSON.stringify(fileName).slice(0, 20));
    t.is(!refused.ok && refused.details?.[0]?.field, 'file_path');
  }
  t.deepEqual(keysOf(), keys);
  t.like(await mint.execute({ userId: owner, hash: asset.contentHash, fileName: 'b'.repeat(255) }), { ok: true, value: { fileName: 'b'.repeat(255) } });
  // The row is there but its file is not: no bytes to copy.
  const other = await upload(owner, 7, 3);
  await h.storage.delete(other.storageKey);
  t.like(await mint.execute({ userId: owner, hash: other.contentHash }), { ok: false, code: 'NOT_FOUND' });
});

test('an upload no active job reads can be deleted while a queued job reads another one', async (t) => {
  const { h, upload, owner } = await setup(t);
  const remove = new DeleteUpload({ uploads: h.repos.uploads, jobs: h.repos.jobs, storage: h.storage });
  const read = await upload(owner);
  const spare = await upload(owner, 7, 3);
  const submitted = await h.submit.execute({ userId: owner, role: 'user', workflow: withInput('1', 'image', reference(read.id)) });
  if (!submitted.ok) return t.fail(submitted.code);
  // Pins: only the uploads a queued or running job reads are held back, not every upload of its user.
  t.deepEqual(await remove.execute({ userId: owner, uploadId: spare.id }), { ok: true, value: undefined });
  t.is(await h.storage.head(spare.storageKey), null);
  t.like(await remove.execute({ userId: owner, uploadId: read.id }), { ok: false, code: 'ASSET.IN_USE' });
});

// Pins that an upload is only its owner's to sign a download link for, and to delete: another user's, an unknown id or
// a text that is no id is NOT_FOUND, and the file stays.
test("another user's upload, an unknown id or a malformed one is NOT_FOUND for a download link and for a delete; the file stays", async (t) => {
  const { h, upload, owner, stranger } = await setup(t);
  const link = new UploadDownloadUrl({ uploads: h.repos.uploads, storage: h.storage, ttlSeconds: 60 });
  const remove = new DeleteUpload({ uploads: h.repos.uploads, jobs: h.repos.jobs, storage: h.storage });
  const mine = await upload(owner);
  for (const uploadId of [mine.id, crypto.randomUUID(), 'not-an-id']) {
    t.like(await link.execute({ userId: stranger, uploadId }), { ok: false, code: 'NOT_FOUND' }, uploadId);
    t.like(await remove.execute({ userId: stranger, uploadId }), { ok: false, code: 'NOT_FOUND' }, uploadId);
  }
  t.truthy(await h.storage.head(mine.storageKey));
  t.like(await link.execute({ userId: owner, uploadId: mine.id.toUpperCase() }), { ok: true });
});

// Pins that an upload id that is no UUID is NOT_FOUND without a read (the id column is a UUID).
test('GetUploadForUser: a malformed id is NOT_FOUND without a read; a UUID in any case finds the own upload', async (t) => {
  const { h, upload, owner } = await setup(t);
  const mine = await upload(owner);
  const reads: string[] = [];
  const uploads = Object.assign(Object.create(h.repos.uploads) as typeof h.repos.uploads, { findForUser: async (id: string, userId: string) => (reads.push(id), h.repos.uploads.findForUser(id, userId)) });
  const get = new GetUploadForUser({ uploads });
  t.like(await get.execute({ userId: owner, uploadId: 'not-an-id' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await get.execute({ userId: owner, uploadId: 42 }), { ok: false, code: 'NOT_FOUND' });
  t.deepEqual(reads, []);
  t.like(await get.execute({ userId: owner, uploadId: mine.id.toUpperCase() }), { ok: true, value: { id: mine.id } });
});
