import test from 'ava';
import nock from 'nock';
import { TikTokPlatform } from '../../adapters/social/tiktok-platform.ts';

const MIB = 1024 * 1024;

test.before(() => nock.disableNetConnect());
test.after.always(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

/** Zero bytes from `start` to `size`, without holding the file in memory. */
const zeros = (size: number) => async (start: number) =>
  (async function* () {
    for (let at = start; at < size; at += MIB) yield new Uint8Array(Math.min(MIB, size - at));
  })();

test.serial('a file over 64 MiB goes in 10 MiB chunks, the last one holding the rest, each with its Content-Range', async (t) => {
  const size = 75 * MIB + 123;
  const api = nock('https://open.tiktokapis.com');
  api.post('/v2/post/publish/creator_info/query/').reply(200, { data: { privacy_level_options: ['SELF_ONLY'] }, error: { code: 'ok' } });
  let source: Record<string, number | string> = {};
  api.post('/v2/post/publish/video/init/').reply(async (request: Request) => {
    source = ((await request.json()) as { source_info: Record<string, number | string> }).source_info;
    return [200, { data: { publish_id: 'p', upload_url: 'https://open-upload.tiktokapis.com/video/?upload_id=9' }, error: { code: 'ok' } }];
  });
  const chunks: { range: string; bytes: number }[] = [];
  nock('https://open-upload.tiktokapis.com')
    .put('/video/')
    .query(true)
    .times(7)
    .reply(async (request: Request) => {
      chunks.push({ range: request.headers.get('content-range')!, bytes: (await request.arrayBuffer()).byteLength });
      return [chunks.length === 7 ? 201 : 206, ''];
    });
  api.post('/v2/post/publish/status/fetch/').reply(200, { data: { status: 'SEND_TO_USER_INBOX' }, error: { code: 'ok' } });
  api.post('/v2/post/publish/status/fetch/').reply(200, { data: { status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [] }, error: { code: 'ok' } });
  const tiktok = new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 10_000, pollIntervalMs: 5, pollTimeoutMs: 5000 });
  const refs: string[] = [];
  const result = await tiktok.publish({
    accessToken: 'a',
    file: { sizeBytes: size, contentType: 'video/mp4', fileName: 'big.mp4', read: zeros(size) },
    title: 'Big',
    description: '',
    privacy: 'private',
    remoteRef: null,
    saveRemoteRef: async (ref) => void refs.push(ref),
  });
  t.deepEqual(result, { url: null }, 'a private post has no public id');
  t.deepEqual(source, { source: 'FILE_UPLOAD', video_size: size, chunk_size: 10 * MIB, total_chunk_count: 7 });
  t.is(chunks.length, 7);
  t.deepEqual(chunks[0], { range: `bytes 0-${10 * MIB - 1}/${size}`, bytes: 10 * MIB });
  t.deepEqual(chunks[6], { range: `bytes ${60 * MIB}-${size - 1}/${size}`, bytes: size - 60 * MIB });
  t.is(chunks.reduce((sum, chunk) => sum + chunk.bytes, 0), size);
  t.deepEqual(refs, [JSON.stringify({ publishId: 'p', uploadUrl: 'https://open-upload.tiktokapis.com/video/?upload_id=9' })]);
});

test.serial('unlisted posts and privacy levels the account does not allow are refused before anything is sent', async (t) => {
  const tiktok = new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 1000, pollIntervalMs: 5, pollTimeoutMs: 100 });
  const request = { accessToken: 'a', file: { sizeBytes: 10, contentType: 'video/mp4', fileName: 'a.mp4', read: zeros(10) }, title: '', description: '', remoteRef: null, saveRemoteRef: async () => undefined };
  await t.throwsAsync(tiktok.publish({ ...request, privacy: 'unlisted' }), { message: /no unlisted posts/ });
  nock('https://open.tiktokapis.com').post('/v2/post/publish/creator_info/query/').reply(200, { data: { privacy_level_options: ['SELF_ONLY'] }, error: { code: 'ok' } });
  const refused = await t.throwsAsync(tiktok.publish({ ...request, privacy: 'public' }));
  t.regex(refused!.message, /cannot post with privacy PUBLIC_TO_EVERYONE/);
  t.is((refused as { kind?: string }).kind, 'rejected');
  t.true(nock.isDone());
});

test.serial('a saved post whose upload URL expired before the file arrived is replaced by a new one (the old can never be posted)', async (t) => {
  const tiktok = new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 1000, pollIntervalMs: 5, pollTimeoutMs: 1000 });
  const api = nock('https://open.tiktokapis.com');
  const ok = (data: object) => ({ data, error: { code: 'ok' } });
  api.post('/v2/post/publish/status/fetch/', { publish_id: 'old' }).reply(200, ok({ status: 'PROCESSING_UPLOAD' }));
  nock('https://open-upload.tiktokapis.com').put('/video/').query({ upload_id: 'old' }).reply(403, { error: { code: 'upload_url_expired', message: 'expired' } });
  api.post('/v2/post/publish/creator_info/query/').reply(200, ok({ privacy_level_options: ['SELF_ONLY'] }));
  api.post('/v2/post/publish/video/init/').reply(200, ok({ publish_id: 'new', upload_url: 'https://open-upload.tiktokapis.com/video/?upload_id=new' }));
  nock('https://open-upload.tiktokapis.com').put('/video/').query({ upload_id: 'new' }).reply(201, '');
  api.post('/v2/post/publish/status/fetch/', { publish_id: 'new' }).reply(200, ok({ status: 'PUBLISH_COMPLETE' }));
  const refs: string[] = [];
  const result = await tiktok.publish({
    accessToken: 'a',
    file: { sizeBytes: 10, contentType: 'video/mp4', fileName: 'a.mp4', read: zeros(10) },
    title: '',
    description: '',
    privacy: 'private',
    remoteRef: JSON.stringify({ publishId: 'old', uploadUrl: 'https://open-upload.tiktokapis.com/video/?upload_id=old' }),
    saveRemoteRef: async (ref) => void refs.push(ref),
  });
  t.deepEqual(result, { url: null });
  t.deepEqual(refs.map((ref) => JSON.parse(ref).publishId), ['new']);
  t.true(nock.isDone());
});
