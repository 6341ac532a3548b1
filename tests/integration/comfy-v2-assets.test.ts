/**
 * The Comfy API v2 assets (ADR 042) driven by the official @comfyorg/sdk with one of our API keys, on SQLite and
 * MariaDB: an asset is an upload, content-addressed by blake3 as the SDK computes it, found by hash and minted again
 * from it without its bytes, read by a job that references it, downloaded, deleted; and only ever its owner's.
 */
import test, { type ExecutionContext } from 'ava';
import sharp from 'sharp';
import { Workflow } from '@comfyorg/sdk';
import { schemas } from '@comfyorg/sdk/low';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { blake3Of as blake3, makeImage } from '../support/images.ts';
import { comfyV2Callers } from '../support/comfy-v2-callers.ts';
import type { TestApp } from '../support/test-app.ts';

const ADMINS = Array.from({ length: 6 }, (_, i) => `v2-assets-admin-${i + 1}@example.com`);

/** Reads the asset (LoadImage), inverts it and saves it: the output's size and pixels prove which image the job read. */
const invertWorkflow = () => ({
  '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'asset' } },
});

const errorOf = async (t: ExecutionContext, promise: Promise<unknown>) => {
  const error = (await t.throwsAsync(promise)) as { httpStatus?: number; code?: string; message: string };
  return { status: error.httpStatus, code: error.code, message: error.message };
};

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  const { caller } = comfyV2Callers(db, ADMINS, { RAW_WORKFLOW_COST: '2' });

  const uploadRow = async (a: TestApp, userId: string, id: string) => resolve(a.app.container, TOKENS.Repositories).uploads.findForUser(id, userId);

  test(title('an uploaded asset carries the blake3 of its bytes; found by hash, minted again from it without the bytes; downloads its bytes; deleted, it is gone and the other stays'), async (t) => {
    const { a, user, comfy, low } = await caller();
    const png = await makeImage('png', 6, 4);
    const hash = await blake3(png);

    const first = comfy.assets.fromBytes(png, { filename: 'red.png', contentType: 'image/png' });
    t.false(await low.headAssetByHash(hash), 'unknown bytes before the upload');
    const id = await first.commit();
    t.true(first.createdNew, 'uploaded');
    t.is(await first.hash(), hash);
    const asset = await low.getAsset(id);
    t.notThrows(() => schemas.zAsset.parse(asset));
    t.like(asset, { id, hash, size_bytes: png.length, content_type: 'image/png', file_path: 'red.png', job_id: null, url: `${a.baseUrl}/api/v2/assets/${id}/content` });
    t.is(Date.parse(asset.expires_at!) - Date.parse(asset.created_at), 24 * 3600_000, 'unused, it expires like an upload');
    t.like(await uploadRow(a, user.id, id), { contentHash: hash, fileName: 'red.png', mimeType: 'image/png', width: 6, height: 4 }, 'it is one of our uploads');

    t.true(await low.headAssetByHash(hash), 'found by hash');
    t.true(await low.headAssetByHash(hash.toUpperCase().replace('BLAKE3', 'blake3')), 'hex in either case');
    t.false(await low.headAssetByHash(await blake3(Buffer.from('other bytes'))));

    // A second handle of the same bytes: the SDK probes by hash and mints from it; no bytes are sent.
    const second = comfy.assets.fromBytes(png, { filename: 'again.png', contentType: 'image/png' });
    const secondId = await second.commit();
    t.false(second.createdNew, 'minted from the hash');
    t.not(secondId, id);
    t.like(await low.getAsset(secondId), { hash, file_path: 'again.png', size_bytes: png.length });
    const minted = await low.assetFromHash(hash, { filePath: 'third.png' });
    t.notThrows(() => schemas.zAsset.parse(minted));
    t.like(minted, { hash, file_path: 'third.png', created_new: false });

    const content = await low.getAssetContent(id);
    t.deepEqual(Buffer.from(await content.arrayBuffer()), png, 'the downloaded bytes are the uploaded ones');

    await first.delete();
    t.like(await errorOf(t, low.getAsset(id)), { status: 404, code: 'not_found' });
    t.like(await errorOf(t, low.getAssetContent(id)), { status: 404, code: 'not_found' });
    t.like(await errorOf(t, low.deleteAsset(id)), { status: 404, code: 'not_found' }, 'deleted once');
    t.is(await uploadRow(a, user.id, id), null);
    t.deepEqual(Buffer.from(await (await low.getAssetContent(secondId)).arrayBuffer()), png, 'the minted asset keeps its own copy');
    t.true(await low.headAssetByHash(hash), 'the bytes are still known through the other assets');
  });

  test(title('the same content twice gives the same hash; a wrong expected_hash is 409 hash_mismatch and stores nothing; a non-image is 422'), async (t) => {
    const { a, user, low } = await caller();
    const png = await makeImage('png', 5, 5);
    const hash = await blake3(png);
    const one = await low.postAssets(new Blob([png]), 'image/png', 'one.png', { expectedHash: hash });
    const two = await low.postAssets(new Blob([png]), 'image/png', 'two.png');
    t.notThrows(() => schemas.zAsset.parse(one));
    t.like(one, { hash, created_new: true });
    t.like(two, { hash, created_new: true });
    t.not(one.id, two.id);

    const other = await makeImage('png', 5, 6);
    const mismatch = await errorOf(t, low.postAssets(new Blob([other]), 'image/png', 'other.png', { expectedHash: hash }));
    t.like(mismatch, { status: 409, code: 'hash_mismatch' });
    t.false(await low.headAssetByHash(await blake3(other)), 'nothing was stored');
    const rows = await resolve(a.app.container, TOKENS.Repositories).uploads.findByHashForUser(await blake3(other), user.id);
    t.is(rows, null);

    t.like(await errorOf(t, low.postAssets(new Blob(['not an image']), 'text/plain', 'notes.txt')), { status: 422, code: 'invalid_request' });
    t.like(await errorOf(t, low.postAssets(new Blob([png]), 'image/png', 'bad.png', { expectedHash: 'md5:abc' })), { status: 422, code: 'invalid_request' });
    t.like(await errorOf(t, low.assetFromHash('blake3:xyz')), { status: 400, code: 'invalid_request' });
  });

  test(title('an asset is a job input through the SDK: the job reads its pixels, the upload no longer expires; a job output cannot be deleted through v2'), async (t) => {
    const { comfy, low } = await caller();
    const png = await makeImage('png', 7, 3); // r 200, g 40, b 90
    const asset = comfy.assets.fromBytes(png, { filename: 'input.png', contentType: 'image/png' });
    const workflow = new Workflow(invertWorkflow());
    workflow.setInput('1', 'image', asset);
    const job = await comfy.run(workflow, { timeoutMs: 60_000 });
    t.is(job.status, 'succeeded');
    t.is(job.outputs.length, 1);
    const output = Buffer.from(await job.outputs[0]!.toBytes());
    const { data, info } = await sharp(output).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    t.like(info, { width: 7, height: 3 }, 'the size of the asset');
    t.deepEqual([...data.subarray(0, 3)], [255 - 200, 255 - 40, 255 - 90], 'its colour, inverted');

    const stored = await job.getWorkflow();
    t.deepEqual((stored.workflow as Record<string, { inputs: Record<string, unknown> }>)['1']!.inputs.image, asset.id, 'the job ran with the asset id in place of the reference');
    t.is((await low.getAsset(asset.id!)).expires_at, null, 'used by a job, it is kept');

    const outputId = job.outputs[0]!.id;
    t.like(await low.getAsset(outputId), { id: outputId, hash: null });
    t.like(await errorOf(t, low.deleteAsset(outputId)), { status: 403, code: 'forbidden' });
    t.like(await errorOf(t, low.postJobs({ ...invertWorkflow(), '1': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info: { hash: 'blake3:00' } } } } })), { status: 422, code: 'missing_asset' });
  });

  test(title("another user cannot see, download, delete, find by hash, mint from the hash or run a job on someone's asset; a key without generate cannot upload"), async (t) => {
    const owner = await caller();
    const png = await makeImage('webp', 4, 4);
    const hash = await blake3(png);
    const id = await owner.comfy.assets.fromBytes(png, { filename: 'mine.webp' }).commit();
    const stranger = await caller();
    for (const [what, call] of [
      ['get', stranger.low.getAsset(id)],
      ['content', stranger.low.getAssetContent(id)],
      ['delete', stranger.low.deleteAsset(id)],
    ] as const) {
      t.like(await errorOf(t, call), { status: 404, code: 'not_found' }, what);
    }
    t.false(await stranger.low.headAssetByHash(hash), 'by-hash finds only your own bytes');
    t.like(await errorOf(t, stranger.low.assetFromHash(hash)), { status: 404, code: 'blob_not_found' });
    const workflow = invertWorkflow();
    const job = await errorOf(t, stranger.low.postJobs({ ...workflow, '1': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info: { id, hash } } } } }));
    t.like(job, { status: 422, code: 'missing_asset' });
    t.is((await stranger.session.get('/generate')).body.total, 0, 'no job was created');

    // The stranger's own upload of the same bytes is theirs alone: the owner's asset is unaffected by its deletion.
    const theirs = await stranger.comfy.assets.fromBytes(png, { filename: 'theirs.webp' }).commit();
    t.true(await stranger.low.headAssetByHash(hash));
    await stranger.low.deleteAsset(theirs);
    t.like(await owner.low.getAsset(id), { id, hash });
    t.deepEqual(Buffer.from(await (await owner.low.getAssetContent(id)).arrayBuffer()), png);

    const reader = await caller(['history'], true);
    t.like(await errorOf(t, reader.low.postAssets(new Blob([png]), 'image/webp', 'x.webp')), { status: 403, code: 'forbidden' });
    t.like(await errorOf(t, reader.low.assetFromHash(hash)), { status: 403, code: 'forbidden' });
  });
}

for (const db of DATABASES) suite(db);
