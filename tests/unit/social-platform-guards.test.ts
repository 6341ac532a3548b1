import test from 'ava';
import nock from 'nock';
import { TikTokPlatform } from '../../adapters/social/tiktok-platform.ts';
import { YouTubePlatform } from '../../adapters/social/youtube-platform.ts';
import { GOOGLE_OAUTH, sessionUri, TIKTOK_API, youtubeVideo, errorKind as kindOf, savedYoutubeSession as savedSession, tenBytePublishRequest as request, youtubeSession as session, youtubeStart as initiation } from '../support/social-platforms.ts';

/**
 * Guards of the YouTube and TikTok adapters that the other suites leave undefended: how each platform's
 * answers are judged (done, resumable, expired, refused, worth a retry) and what is sent. The platforms are
 * nock scopes (they cannot run here).
 */

test.before(() => nock.disableNetConnect());
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

const SIZE = 10;
const youtube = new YouTubePlatform({ clientId: 'c', clientSecret: 's', timeoutMs: 2000 });
const tiktok = new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 2000, pollIntervalMs: 5, pollTimeoutMs: 300 });


// --- YouTube ---


// Pins the resume after a partial upload: YouTube's 308 means "send the rest", which goes into the same session, never a second video.
test.serial('YouTube: an upload answered 308 asks the session where it stands and sends the rest into it', async (t) => {
  initiation().once().reply(200, '', { Location: sessionUri('s') });
  session('s').reply(308, '', { Range: 'bytes=0-3' });
  session('s').reply(308, '', { Range: 'bytes=0-3' });
  const rest: { range: string | null; body: string }[] = [];
  session('s').reply(async (req: Request) => (rest.push({ range: req.headers.get('content-range'), body: await req.text() }), [201, youtubeVideo('whole')]));
  const refs: string[] = [];
  t.deepEqual(await youtube.publish(request(refs)), { url: 'https://www.youtube.com/watch?v=whole' });
  t.deepEqual(rest, [{ range: `bytes 4-9/${SIZE}`, body: '456789' }]);
  t.deepEqual(refs, [savedSession('s')]);
  t.true(nock.isDone());
});

// Pins that a refusal of the upload itself is reported at once as a refusal (the user reads why), not taken for a broken connection and resumed.
test.serial('YouTube: an upload the platform refuses ends the attempt as refused, without asking the session again', async (t) => {
  initiation().reply(200, '', { Location: sessionUri('r') });
  session('r').once().reply(400, { error: { code: 400, message: 'Media type not supported' } });
  const refused = await t.throwsAsync(youtube.publish(request([])));
  t.is(kindOf(refused), 'rejected');
  t.regex(refused!.message, /^YouTube upload: HTTP 400 .*Media type not supported/);
});

// Pins that a session that expires mid-upload (404 or 410) is replaced by a new one within the attempt: the video is posted, not failed for good.
test.serial('YouTube: a session gone mid-upload (404 or 410) is replaced by a new session: one video', async (t) => {
  for (const gone of [404, 410]) {
    initiation().reply(200, '', { Location: sessionUri('first') });
    session('first').reply(gone, 'Not Found');
    session('first').reply(gone, 'Not Found');
    initiation().reply(200, '', { Location: sessionUri('second') });
    session('second').reply(201, youtubeVideo(`after-${gone}`));
    const refs: string[] = [];
    t.deepEqual(await youtube.publish(request(refs)), { url: `https://www.youtube.com/watch?v=after-${gone}` }, String(gone));
    t.deepEqual(refs, [savedSession('first'), savedSession('second')], String(gone));
    t.true(nock.isDone(), String(gone));
    nock.cleanAll();
  }
});

// Pins that a saved session YouTube answers 410 Gone for is treated as expired (a new session), not as a failure of the publication.
test.serial('YouTube: a saved session answered 410 is replaced by a new one', async (t) => {
  session('old').reply(410, 'Gone');
  initiation().reply(200, '', { Location: sessionUri('new') });
  session('new').reply(201, youtubeVideo('fresh'));
  const refs: string[] = [];
  t.deepEqual(await youtube.publish(request(refs, { remoteRef: savedSession('old') })), { url: 'https://www.youtube.com/watch?v=fresh' });
  t.deepEqual(refs, [savedSession('new')]);
});

// Pins that a saved session whose upload completed (201 Created) is read as the video: nothing is uploaded again.
test.serial('YouTube: a saved session answering 201 is the finished video: nothing is sent again', async (t) => {
  session('done').once().reply(201, youtubeVideo('created'));
  t.deepEqual(await youtube.publish(request([], { remoteRef: savedSession('done') })), { url: 'https://www.youtube.com/watch?v=created' });
  t.true(nock.isDone());
});

// Pins that the published URL names a real video: an answer without a video id is a failure to retry, never a "published" link to nothing.
test.serial('YouTube: an upload answered without a video id (none, empty, not text) is a transient failure, not a URL', async (t) => {
  for (const id of [undefined, '', 42]) {
    initiation().reply(200, '', { Location: sessionUri('x') });
    session('x').reply(201, { kind: 'youtube#video', ...(id === undefined ? {} : { id }) });
    const failed = await t.throwsAsync(youtube.publish(request([])), undefined, JSON.stringify(id));
    t.is(kindOf(failed), 'transient', JSON.stringify(id));
    t.is(failed!.message, 'YouTube answered the upload without a video id', JSON.stringify(id));
    nock.cleanAll();
  }
});

// Pins that only a 200 with an https Location opens a session: a redirect or an answer without Location is a failure, and nothing is saved or sent.
test.serial('YouTube: an initiation answered by a redirect or without a Location opens no session', async (t) => {
  for (const [status, headers] of [
    [302, { Location: 'https://www.google.com/sorry/index' }],
    [200, {}],
  ] as const) {
    initiation().reply(status, '', headers);
    const sorry = nock('https://www.google.com').put('/sorry/index').reply(201, youtubeVideo('wrong'));
    const refs: string[] = [];
    const failed = await t.throwsAsync(youtube.publish(request(refs)));
    t.is(kindOf(failed), 'rejected', String(status));
    t.regex(failed!.message, new RegExp(`^YouTube upload session: HTTP ${status}`));
    t.deepEqual(refs, [], String(status));
    t.false(sorry.isDone(), String(status));
    nock.cleanAll();
  }
});

// Pins what disconnecting reports: a token Google says is already invalid counts as revoked; a Google failure is reported (and logged by the caller).
test.serial('YouTube: revocation answered 400 (already invalid) is done; a 503 is reported as a failure', async (t) => {
  nock(GOOGLE_OAUTH).post('/revoke').reply(400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
  await t.notThrowsAsync(youtube.revoke('r'));
  nock(GOOGLE_OAUTH).post('/revoke').reply(503, { error: 'backend_error' });
  const failed = await t.throwsAsync(youtube.revoke('r'));
  t.is(kindOf(failed), 'transient');
});

// --- TikTok ---

const ok = (data: object) => ({ data, error: { code: 'ok', message: '' } });
const api = () => nock(TIKTOK_API);
const UPLOAD_HOST = 'https://open-upload.tiktokapis.com';
const savedPost = JSON.stringify({ publishId: 'old', uploadUrl: `${UPLOAD_HOST}/video/?upload_id=old` });
const creatorInfo = () => api().post('/v2/post/publish/creator_info/query/').reply(200, ok({ privacy_level_options: ['SELF_ONLY', 'PUBLIC_TO_EVERYONE'] }));

// Pins no second post: a saved post whose file upload fails for a moment is retried later, not replaced by a new post (only an expired upload URL is).
test.serial('TikTok: a transient failure sending the file of a saved post is left to a retry; no second post starts', async (t) => {
  api().post('/v2/post/publish/status/fetch/', { publish_id: 'old' }).reply(200, ok({ status: 'PROCESSING_UPLOAD' }));
  nock(UPLOAD_HOST).put('/video/').query({ upload_id: 'old' }).reply(503, { error: { code: 'internal_error', message: 'try later' } });
  const init = api().post('/v2/post/publish/video/init/').reply(200, ok({ publish_id: 'new', upload_url: `${UPLOAD_HOST}/video/?upload_id=new` }));
  const info = creatorInfo();
  const refs: string[] = [];
  const failed = await t.throwsAsync(tiktok.publish(request(refs, { remoteRef: savedPost })));
  t.is(kindOf(failed), 'transient');
  t.regex(failed!.message, /^TikTok file upload: HTTP 503/);
  t.false(init.isDone(), 'no second post');
  t.false(info.isDone());
  t.deepEqual(refs, []);
});

// Pins that a post TikTok fails while the worker waits is reported at once, with TikTok's reason, instead of being polled until the deadline and retried.
test.serial('TikTok: a post that fails while awaited ends the attempt as refused with TikTok\'s reason (or "unknown")', async (t) => {
  for (const [reason, shown] of [['file_format_check_failed', 'file_format_check_failed'], [undefined, 'unknown']] as const) {
    creatorInfo();
    api().post('/v2/post/publish/video/init/').reply(200, ok({ publish_id: 'p', upload_url: `${UPLOAD_HOST}/video/?upload_id=p` }));
    nock(UPLOAD_HOST).put('/video/').query({ upload_id: 'p' }).reply(201, '');
    api().post('/v2/post/publish/status/fetch/').times(200).reply(200, ok({ status: 'FAILED', ...(reason ? { fail_reason: reason } : {}) }));
    const failed = await t.throwsAsync(tiktok.publish(request([])));
    t.is(kindOf(failed), 'rejected', shown);
    t.is(failed!.message, `TikTok did not post the video: ${shown}`);
    nock.cleanAll();
  }
});

// Pins that an init answer without its publish id or upload URL saves nothing and sends the file nowhere (a retry starts cleanly).
test.serial('TikTok: an init answer without publish id or upload URL is a transient failure; nothing is saved or sent', async (t) => {
  for (const data of [{ publish_id: 'p' }, { upload_url: `${UPLOAD_HOST}/video/?upload_id=p` }]) {
    creatorInfo();
    api().post('/v2/post/publish/video/init/').reply(200, ok(data));
    const upload = nock(UPLOAD_HOST).put('/video/').query(true).reply(201, '');
    const refs: string[] = [];
    const failed = await t.throwsAsync(tiktok.publish(request(refs)));
    t.is(kindOf(failed), 'transient', JSON.stringify(data));
    t.is(failed!.message, 'TikTok post init: no publish id or upload URL in the answer');
    t.deepEqual(refs, []);
    t.false(upload.isDone());
    nock.cleanAll();
  }
});

// Pins the creator info TikTok may answer without privacy options: the post is refused with a reason, not crashed on.
test.serial('TikTok: creator info without privacy options refuses the post: the account allows none', async (t) => {
  api().post('/v2/post/publish/creator_info/query/').reply(200, ok({ creator_username: 'a' }));
  const refused = await t.throwsAsync(tiktok.publish(request([])));
  t.is(kindOf(refused), 'rejected');
  t.is(refused!.message, 'this TikTok account cannot post with privacy SELF_ONLY (it allows none)');
});

// Pins TikTok's 2200-character caption limit: a long title and description are cut, not refused by TikTok.
test.serial('TikTok: the caption (title and description) is cut to 2200 characters', async (t) => {
  creatorInfo();
  let title = '';
  api()
    .post('/v2/post/publish/video/init/')
    .reply(async (req: Request) => {
      title = ((await req.json()) as { post_info: { title: string } }).post_info.title;
      return [200, ok({ publish_id: 'p', upload_url: `${UPLOAD_HOST}/video/?upload_id=p` })];
    });
  nock(UPLOAD_HOST).put('/video/').query(true).reply(201, '');
  api().post('/v2/post/publish/status/fetch/').reply(200, ok({ status: 'PUBLISH_COMPLETE' }));
  t.deepEqual(await tiktok.publish(request([], { title: 't'.repeat(100), description: 'd'.repeat(5000) })), { url: null });
  t.is(title, `${'t'.repeat(100)}\n\n${'d'.repeat(2098)}`);
});

// Pins the upload answers TikTok counts as received: 200 as well as 201 and 206; anything else fails with the upload's own words.
test.serial('TikTok: a file upload answered 200 is received; one answered 500 fails as the upload', async (t) => {
  creatorInfo();
  api().post('/v2/post/publish/video/init/').reply(200, ok({ publish_id: 'p', upload_url: `${UPLOAD_HOST}/video/?upload_id=p` }));
  nock(UPLOAD_HOST).put('/video/').query(true).reply(200, '');
  api().post('/v2/post/publish/status/fetch/').reply(200, ok({ status: 'PUBLISH_COMPLETE' }));
  t.deepEqual(await tiktok.publish(request([])), { url: null });

  creatorInfo();
  api().post('/v2/post/publish/video/init/').reply(200, ok({ publish_id: 'q', upload_url: `${UPLOAD_HOST}/video/?upload_id=q` }));
  nock(UPLOAD_HOST).put('/video/').query(true).reply(500, 'upstream error');
  api().post('/v2/post/publish/status/fetch/').times(100).reply(200, ok({ status: 'PROCESSING_UPLOAD' }));
  const failed = await t.throwsAsync(tiktok.publish(request([])));
  t.is(kindOf(failed), 'transient');
  t.regex(failed!.message, /^TikTok file upload: HTTP 500/);
});

// Pins how TikTok's API errors are judged, by code or by HTTP status: a dead token is "connect again" (after one refresh), a rate limit or an outage is retried, the rest is a refusal.
test.serial('TikTok: API errors are unauthorized, transient or refused by their code or their status', async (t) => {
  const cases: [number, string, string][] = [
    [400, 'access_token_invalid', 'unauthorized'],
    [403, 'scope_not_authorized', 'unauthorized'],
    [401, 'something_else', 'unauthorized'],
    [400, 'rate_limit_exceeded', 'transient'],
    [400, 'internal_error', 'transient'],
    [429, 'something_else', 'transient'],
    [503, 'something_else', 'transient'],
    [400, 'invalid_params', 'rejected'],
  ];
  for (const [status, code, kind] of cases) {
    api().post('/v2/post/publish/creator_info/query/').reply(status, { data: {}, error: { code, message: 'm' } });
    const failed = await t.throwsAsync(tiktok.publish(request([])));
    t.is(kindOf(failed), kind, `${status} ${code}`);
    nock.cleanAll();
  }
});

// Pins that an outage answered without TikTok's JSON (a proxy's 503 page) is a failure worth a retry, not a success with no data.
test.serial('TikTok: an API answer that is not 200 is a failure even without an error code', async (t) => {
  api().post('/v2/post/publish/creator_info/query/').reply(503, '<html>Service Unavailable</html>');
  const failed = await t.throwsAsync(tiktok.publish(request([])));
  t.is(kindOf(failed), 'transient');
  t.regex(failed!.message, /^TikTok creator info: /);
});

// Pins the chunks of a file over 64 MiB whatever pieces the stored file is read in: each PUT carries exactly its range, and each reads no further than it needs.
test.serial('TikTok: chunks of a large file read in pieces that straddle them carry exactly their bytes', async (t) => {
  const MIB = 1024 * 1024;
  const size = 65 * MIB;
  const piece = 3 * MIB;
  let read = 0;
  const file = {
    sizeBytes: size,
    contentType: 'video/mp4',
    fileName: 'big.mp4',
    read: async (start: number) =>
      (async function* () {
        for (let at = start; at < size; at += piece) {
          const bytes = new Uint8Array(Math.min(piece, size - at)).fill((at / MIB) & 0xff);
          read += bytes.length;
          yield bytes;
        }
      })(),
  };
  creatorInfo();
  api().post('/v2/post/publish/video/init/').reply(200, ok({ publish_id: 'big', upload_url: `${UPLOAD_HOST}/video/?upload_id=big` }));
  const chunks: { range: string; bytes: number }[] = [];
  nock(UPLOAD_HOST)
    .put('/video/')
    .query(true)
    .times(6)
    .reply(async (req: Request) => (chunks.push({ range: req.headers.get('content-range')!, bytes: (await req.arrayBuffer()).byteLength }), [chunks.length === 6 ? 201 : 206, '']));
  api().post('/v2/post/publish/status/fetch/').reply(200, ok({ status: 'PUBLISH_COMPLETE' }));
  t.deepEqual(await tiktok.publish(request([], { file })), { url: null });
  t.deepEqual(
    chunks.map((chunk) => chunk.bytes),
    [10, 10, 10, 10, 10, 15].map((mib) => mib * MIB),
  );
  t.is(chunks[5]!.range, `bytes ${50 * MIB}-${size - 1}/${size}`);
  t.true(read < 2 * size, `${read / MIB} MiB read for a ${size / MIB} MiB file`);
});

// Pins that an API answer without an error object (no code at all) is taken as the success its status says.
test.serial('TikTok: an API answer with no error object is a success', async (t) => {
  api().post('/v2/post/publish/creator_info/query/').reply(200, { data: { privacy_level_options: ['SELF_ONLY'] } });
  api().post('/v2/post/publish/video/init/').reply(200, { data: { publish_id: 'p', upload_url: `${UPLOAD_HOST}/video/?upload_id=p` } });
  nock(UPLOAD_HOST).put('/video/').query(true).reply(201, '');
  api().post('/v2/post/publish/status/fetch/').reply(200, { data: { status: 'PUBLISH_COMPLETE' } });
  t.deepEqual(await tiktok.publish(request([])), { url: null });
});

// Pins TikTok's token endpoint outages: a 5xx without an OAuth error field is worth a retry, not read as an answer without a token.
test.serial('TikTok: a token refresh answered 503 is transient', async (t) => {
  api().post('/v2/oauth/token/').reply(503, 'Service Unavailable');
  const failed = await t.throwsAsync(tiktok.refresh('r'));
  t.is(kindOf(failed), 'transient');
  t.regex(failed!.message, /^TikTok token refresh: HTTP 503/);
});

// Pins disconnecting from TikTok: TikTok answers a refused revocation with 200 and an error field, which is reported, not taken as done.
test.serial('TikTok: a revocation answered 200 with an error is a failure; a plain 200 is done', async (t) => {
  api().post('/v2/oauth/revoke/').reply(200, { error: 'invalid_request', error_description: 'token is invalid' });
  const failed = await t.throwsAsync(tiktok.revoke('r'));
  t.regex(failed!.message, /invalid_request/);
  api().post('/v2/oauth/revoke/').reply(200, {});
  await t.notThrowsAsync(tiktok.revoke('r'));
});
