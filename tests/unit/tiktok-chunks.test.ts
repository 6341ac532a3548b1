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

const resumable = () => new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 1000, pollIntervalMs: 5, pollTimeoutMs: 300 });
const savedPost = (refs: string[]) => ({
  accessToken: 'a',
  file: { sizeBytes: 10, contentType: 'video/mp4', fileName: 'a.mp4', read: zeros(10) },
  title: '',
  description: '',
  privacy: 'private' as const,
  remoteRef: JSON.stringify({ publishId: 'old', uploadUrl: 'https://open-upload.tiktokapis.com/video/?upload_id=old' }),
  saveRemoteRef: async (ref: string) => void refs.push(ref),
});
const tiktokOk = (data: object) => ({ data, error: { code: 'ok' } });

// Pins resuming without posting twice: a saved post TikTok already posted, or is still processing, gets neither a new init nor its file again.
test.serial('a saved post that TikTok posted or is processing is awaited: no file is sent again and no second post starts', async (t) => {
  for (const first of ['PUBLISH_COMPLETE', 'SEND_TO_USER_INBOX']) {
    const api = nock('https://open.tiktokapis.com');
    api.post('/v2/post/publish/status/fetch/', { publish_id: 'old' }).reply(200, tiktokOk({ status: first }));
    if (first !== 'PUBLISH_COMPLETE') api.post('/v2/post/publish/status/fetch/', { publish_id: 'old' }).reply(200, '{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7000000000000000001]},"error":{"code":"ok"}}');
    const upload = nock('https://open-upload.tiktokapis.com').put('/video/').query(true).reply(201, '');
    const init = api.post('/v2/post/publish/video/init/').reply(200, tiktokOk({ publish_id: 'new', upload_url: 'https://open-upload.tiktokapis.com/video/?upload_id=new' }));
    const refs: string[] = [];
    const result = await resumable().publish(savedPost(refs));
    t.false(upload.isDone(), `${first}: no file sent`);
    t.false(init.isDone(), `${first}: no second post`);
    t.deepEqual(refs, [], first);
    if (first !== 'PUBLISH_COMPLETE') t.deepEqual(result, { url: 'https://www.tiktok.com/player/v1/7000000000000000001' });
    nock.cleanAll();
  }
});

// Pins that a saved post TikTok reports as failed is replaced by a new one (its upload URL is never used again).
test.serial('a saved post that TikTok failed starts a new post', async (t) => {
  const api = nock('https://open.tiktokapis.com');
  api.post('/v2/post/publish/status/fetch/', { publish_id: 'old' }).reply(200, tiktokOk({ status: 'FAILED', fail_reason: 'file_format_check_failed' }));
  api.post('/v2/post/publish/creator_info/query/').reply(200, tiktokOk({ privacy_level_options: ['SELF_ONLY'] }));
  api.post('/v2/post/publish/video/init/').reply(200, tiktokOk({ publish_id: 'new', upload_url: 'https://open-upload.tiktokapis.com/video/?upload_id=new' }));
  nock('https://open-upload.tiktokapis.com').put('/video/').query({ upload_id: 'new' }).reply(201, '');
  api.post('/v2/post/publish/status/fetch/', { publish_id: 'new' }).reply(200, tiktokOk({ status: 'PUBLISH_COMPLETE' }));
  const refs: string[] = [];
  t.deepEqual(await resumable().publish(savedPost(refs)), { url: null });
  t.deepEqual(refs.map((ref) => JSON.parse(ref).publishId), ['new']);
  t.true(nock.isDone());
});

// Pins TikTok's in-body errors: a 200 answer whose error code is not "ok" is the platform refusing, in its own words.
test.serial('an API answer with an error code is a refusal with TikTok\'s words, not a success', async (t) => {
  const api = nock('https://open.tiktokapis.com');
  api.post('/v2/post/publish/creator_info/query/').reply(200, tiktokOk({ privacy_level_options: ['SELF_ONLY'] }));
  api.post('/v2/post/publish/video/init/').reply(200, { data: {}, error: { code: 'spam_risk_too_many_posts', message: 'The user has posted too many times today' } });
  const refs: string[] = [];
  const refused = await t.throwsAsync(resumable().publish({ ...savedPost(refs), remoteRef: null }));
  t.is((refused as { kind?: string }).kind, 'rejected');
  t.regex(refused!.message, /spam_risk_too_many_posts: The user has posted too many times today/);
  t.deepEqual(refs, []);
});

// Pins the bound on waiting for TikTok: a post still processing at the deadline leaves the attempt as a transient failure (a retry resumes it).
test.serial('a post TikTok keeps processing is left to a retry after the poll timeout', async (t) => {
  nock('https://open.tiktokapis.com').post('/v2/post/publish/status/fetch/').times(1000).reply(200, tiktokOk({ status: 'PROCESSING_DOWNLOAD' }));
  const slow = await t.throwsAsync(resumable().publish(savedPost([])));
  t.is((slow as { kind?: string }).kind, 'transient');
  t.is(slow!.message, 'TikTok is still processing the post');
});
