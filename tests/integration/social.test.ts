import { QueryTypes } from 'sequelize';
import test from 'ava';
import nock from 'nock';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { DATABASES } from '../support/databases.ts';
import { openSocket } from '../support/socket-client.ts';
import {
  connect,
  GOOGLE_APIS,
  GOOGLE_OAUTH,
  googleTokenExchange,
  SOCIAL_ENV,
  TIKTOK_API,
  tiktokTokenExchange,
  UPLOAD_PATH,
  youtubeInitiation,
  youtubeUpload,
  type FormBody,
  formOf,
  headersOf,
} from '../support/social-platforms.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

/** A short video of the caller's, made by the ready "Solid colour video" template through the real worker. */
async function videoOutput(client: TestClient): Promise<{ id: string; sizeBytes: number; jobId: string }> {
  const templates = await client.get('/templates');
  const video = templates.body.find((tpl: { name: string }) => tpl.name === 'Solid colour video');
  const image = templates.body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await client.post('/generate', { templateId: video.id, parameters: { prompt: 'clip', duration: 1 } });
  if (submitted.status !== 202) throw new Error(`generate: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  void image;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const job = await client.get(`/generate/${submitted.body.id}`);
    if (job.body.status === 'succeeded') return { id: job.body.outputs[0].id, sizeBytes: job.body.outputs[0].sizeBytes, jobId: job.body.id };
    if (job.body.status === 'failed') throw new Error(`video job failed: ${JSON.stringify(job.body.error)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('video job did not finish');
}

async function imageOutput(client: TestClient): Promise<string> {
  const templates = await client.get('/templates');
  const image = templates.body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await client.post('/generate', { templateId: image.id, parameters: { prompt: 'still', width: 64, height: 64, color: 0x00ff00 } });
  for (let i = 0; i < 300; i += 1) {
    const job = await client.get(`/generate/${submitted.body.id}`);
    if (job.body.status === 'succeeded') return job.body.outputs[0].id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('image job did not finish');
}

async function publications(client: TestClient, outputId: string, until: (list: any[]) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.get(`/my-outputs/${outputId}/publications`);
    if (until(res.body) || Date.now() > deadline) return res.body as any[];
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rawConnections = (app: TestApp) =>
  resolve(app.app.container, TOKENS.Database).autocommit.sequelize.query<{ access_token: string; refresh_token: string | null }>('SELECT access_token, refresh_token FROM social_connections', { type: QueryTypes.SELECT });

async function connectYouTube(client: TestClient, tokens = { access: 'ya29.access-1', refresh: '1//refresh-1' }) {
  let challenge: string | null = null;
  const exchange = googleTokenExchange(tokens, () => challenge);
  const started = await client.get('/connect/youtube');
  const authorization = new URL(started.headers.get('location')!);
  challenge = authorization.searchParams.get('code_challenge');
  const state = authorization.searchParams.get('state')!;
  const callback = await client.get(`/connect/youtube/callback?state=${encodeURIComponent(state)}&code=4/0AX-code`);
  return { authorization, callback, exchange };
}

for (const db of DATABASES) {
  test.serial(`[${db}] connect YouTube (PKCE), tokens sealed at rest, publish a video by resumable upload, event and publication recorded, a repeat does not post twice`, async (t) => {
    const app = await startTestApp(db, SOCIAL_ENV);
    t.teardown(() => app.close());
    const alice = app.client();
    await alice.signUp();
    t.deepEqual((await alice.get('/features')).body.socialPlatforms.sort(), ['TIKTOK', 'YOUTUBE']);

    const { authorization, callback, exchange } = await connectYouTube(alice);
    t.is(authorization.origin + authorization.pathname, 'https://accounts.google.com/o/oauth2/v2/auth');
    t.is(authorization.searchParams.get('client_id'), SOCIAL_ENV.YOUTUBE_CLIENT_ID);
    t.is(authorization.searchParams.get('redirect_uri'), `${app.app.config.publicUrl}/api/v1/connect/youtube/callback`);
    t.is(authorization.searchParams.get('scope'), 'https://www.googleapis.com/auth/youtube.upload');
    t.is(authorization.searchParams.get('access_type'), 'offline');
    t.is(authorization.searchParams.get('code_challenge_method'), 'S256');
    t.is(callback.status, 302);
    t.is(callback.headers.get('location'), `${app.app.config.publicUrl}/connect/success.html?platform=YOUTUBE`);
    t.true(exchange.scope.isDone());
    t.is(exchange.seen[0]!.code, '4/0AX-code');
    t.is(exchange.seen[0]!.client_secret, SOCIAL_ENV.YOUTUBE_CLIENT_SECRET);
    t.deepEqual((await alice.get('/connections')).body, ['YOUTUBE']);
    const landing = await fetch(callback.headers.get('location')!);
    t.is(landing.status, 200);
    t.regex(await landing.text(), /YouTube is connected/);

    // At rest the tokens are ciphertext bound to their key id.
    const rows = await rawConnections(app);
    t.is(rows.length, 1);
    t.false(JSON.stringify(rows).includes('ya29.access-1'));
    t.false(JSON.stringify(rows).includes('1//refresh-1'));
    t.regex(rows[0]!.access_token, /^v1\.k2\./);

    const output = await videoOutput(alice);
    const socket = await openSocket(alice);
    t.teardown(() => socket.close());
    const init = youtubeInitiation('session-1', { metadata: (body) => body.snippet.title === 'My clip' && body.status.privacyStatus === 'unlisted' });
    const puts: Record<string, string>[] = [];
    const upload = youtubeUpload('session-1', 'dQw4w9WgXcQ', puts);
    const published = await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['youtube'], title: 'My clip', privacy: 'unlisted' });
    t.is(published.status, 202, JSON.stringify(published.body));
    t.is(published.body.message, 'Publishing to YouTube has started');
    const event = await socket.waitFor((m) => m.type === 'publish.completed', 20_000);
    t.like(event, { outputId: output.id, platform: 'YOUTUBE', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', jobId: output.jobId });
    t.true(init.isDone() && upload.isDone());
    t.is(puts.length, 1);
    t.is(Number(puts[0]!['content-length']), output.sizeBytes);
    t.is(puts[0]!['content-type'], 'video/mp4');
    const list = (await alice.get(`/my-outputs/${output.id}/publications`)).body;
    t.is(list.length, 1);
    t.like(list[0], { platform: 'YOUTUBE', status: 'published', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' });

    // Again: already published, nothing is posted (no interceptor would answer a second upload).
    const again = await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['YOUTUBE'] });
    t.is(again.status, 202);
    t.regex(again.body.message, /lready published to YouTube/);
    await new Promise((r) => setTimeout(r, 300));
    t.is(socket.messages.filter((m) => m.type.startsWith('publish.')).length, 1);
  });
}

test.serial('[rabbitmq] publishing goes through the broker queue like generation: connect, publish, published', async (t) => {
  const prefix = `social-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const app = await startTestApp(DATABASES[DATABASES.length - 1]!, {
    ...SOCIAL_ENV,
    QUEUE_DRIVER: 'rabbitmq',
    AMQP_URL: process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    AMQP_PREFIX: prefix,
  });
  t.teardown(() => app.close());
  const alice = app.client();
  await alice.signUp();
  await connectYouTube(alice);
  const output = await videoOutput(alice);
  youtubeInitiation('session-rabbit');
  youtubeUpload('session-rabbit', 'via-rabbit');
  t.is((await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['YOUTUBE'] })).status, 202);
  const [record] = await publications(alice, output.id, (list) => ['published', 'failed'].includes(list[0]?.status));
  t.like(record, { platform: 'YOUTUBE', status: 'published', url: 'https://www.youtube.com/watch?v=via-rabbit' });
});

const DB = DATABASES[0]!;
let shared: TestApp;
test.before(async () => {
  shared = await startTestApp(DB, { ...SOCIAL_ENV, MAX_ATTEMPTS: '3' });
});
test.after.always(async () => shared?.close());

test.serial('publish refuses what cannot be published: unknown or unconnected platform, an image, bad fields; another user sees 404', async (t) => {
  const alice = shared.client();
  await alice.signUp();
  const bob = shared.client();
  await bob.signUp();
  const video = await videoOutput(alice);
  const image = await imageOutput(alice);
  const unknown = await alice.post(`/my-outputs/${video.id}/publish`, { platforms: ['MYSPACE'] });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body.details, [{ field: 'platforms[0]', message: 'unknown platform "MYSPACE" (supported: YOUTUBE, TIKTOK)' }]);
  const notConnected = await alice.post(`/my-outputs/${video.id}/publish`, { platforms: ['TIKTOK'] });
  t.is(notConnected.status, 400);
  t.regex(notConnected.body.message, /TikTok is not connected/);
  for (const body of [{}, { platforms: [] }, { platforms: 'YOUTUBE' }, { platforms: ['YOUTUBE'], title: 'x'.repeat(101) }, { platforms: ['YOUTUBE'], privacy: 'secret' }, { platforms: ['TIKTOK'], privacy: 'unlisted' }]) {
    t.is((await alice.post(`/my-outputs/${video.id}/publish`, body)).status, 400, JSON.stringify(body));
  }
  await connectYouTube(alice);
  const still = await alice.post(`/my-outputs/${image}/publish`, { platforms: ['YOUTUBE'] });
  t.is(still.status, 400);
  t.regex(still.body.message, /videos only/);
  t.is((await bob.post(`/my-outputs/${video.id}/publish`, { platforms: ['YOUTUBE'] })).status, 404);
  t.is((await bob.get(`/my-outputs/${video.id}/publications`)).status, 404);
  t.is((await alice.post('/my-outputs/00000000-0000-4000-8000-000000000000/publish', { platforms: ['YOUTUBE'] })).status, 404);
  t.deepEqual((await alice.get(`/my-outputs/${video.id}/publications`)).body, []);
  t.is((await alice.get('/connect/myspace')).status, 404);
  t.is((await alice.post('/disconnect/myspace')).status, 404);
  t.is((await shared.client().get('/connect/youtube')).status, 401);
});

test.serial('the callback refuses a tampered state, a replayed callback, another browser, a denial and a failed exchange', async (t) => {
  const alice = shared.client();
  await alice.signUp();
  const failure = (reason: string) => `${shared.app.config.publicUrl}/connect/failure.html?platform=YOUTUBE&error=${reason}`;

  const start = await alice.get('/connect/youtube');
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  const tampered = await alice.get(`/connect/youtube/callback?state=${state}x&code=c`);
  t.is(tampered.headers.get('location'), failure('invalid_state'));

  // The cookie went with the refused callback: a fresh start, then the real callback, then its replay.
  const again = await alice.get('/connect/youtube');
  const url = new URL(again.headers.get('location')!);
  let challenge: string | null = url.searchParams.get('code_challenge');
  const exchange = googleTokenExchange({ access: 'ya29.a', refresh: 'r' }, () => challenge);
  const callbackUrl = `/connect/youtube/callback?state=${url.searchParams.get('state')}&code=c`;
  const cookie = alice.cookies.get('connect_state')!;
  t.is((await alice.get(callbackUrl)).headers.get('location'), `${shared.app.config.publicUrl}/connect/success.html?platform=YOUTUBE`);
  alice.cookies.set('connect_state', cookie);
  t.is((await alice.get(callbackUrl)).headers.get('location'), failure('invalid_state'));
  t.is(exchange.seen.length, 1, 'the code is exchanged once');
  challenge = null;

  // A callback link opened in another browser (no state cookie of this user's start) does not connect anything.
  const mallory = shared.client();
  await mallory.signUp();
  const started = await mallory.get('/connect/youtube');
  const malloryState = new URL(started.headers.get('location')!).searchParams.get('state')!;
  const victim = shared.client();
  await victim.signUp();
  t.is((await victim.get(`/connect/youtube/callback?state=${malloryState}&code=c`)).headers.get('location'), failure('invalid_state'));
  t.deepEqual((await victim.get('/connections')).body, []);

  const denied = await mallory.get('/connect/youtube');
  const deniedState = new URL(denied.headers.get('location')!).searchParams.get('state')!;
  t.is((await mallory.get(`/connect/youtube/callback?state=${deniedState}&error=access_denied`)).headers.get('location'), failure('denied'));

  nock(GOOGLE_OAUTH).post('/token').reply(400, { error: 'invalid_grant', error_description: 'Bad Request' });
  const bad = await mallory.get('/connect/youtube');
  const badState = new URL(bad.headers.get('location')!).searchParams.get('state')!;
  t.is((await mallory.get(`/connect/youtube/callback?state=${badState}&code=c`)).headers.get('location'), failure('exchange_failed'));
  t.deepEqual((await mallory.get('/connections')).body, []);
  const page = await fetch(failure('exchange_failed'));
  t.is(page.status, 200);
  t.regex(await page.text(), /YouTube was not connected/);
});


test.serial('an expiring token is refreshed before the upload; disconnect deletes the tokens and revokes the grant', async (t) => {
  const alice = shared.client();
  await alice.signUp();
  await connectYouTube(alice, { access: 'ya29.old', refresh: '1//refresh-old' });
  // Google said the token lives 60 s: less than the refresh margin.
  await resolve(shared.app.container, TOKENS.Database).autocommit.sequelize.query("UPDATE social_connections SET expires_at = '2000-01-01 00:00:00.000'");
  const output = await videoOutput(alice);
  const refreshed: FormBody[] = [];
  nock(GOOGLE_OAUTH)
    .post('/token', (body: FormBody) => body.grant_type === 'refresh_token')
    .reply(async (request: Request) => {
      const body = await formOf(request);
      refreshed.push(body);
      return [200, { access_token: 'ya29.new', expires_in: 3599, scope: 'https://www.googleapis.com/auth/youtube.upload', token_type: 'Bearer' }];
    });
  youtubeInitiation('session-r', { token: 'ya29.new' });
  youtubeUpload('session-r', 'vid-refreshed');
  t.is((await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['YOUTUBE'] })).status, 202);
  const [publication] = await publications(alice, output.id, (list) => list[0]?.status === 'published');
  t.is(publication.url, 'https://www.youtube.com/watch?v=vid-refreshed');
  t.is(refreshed.length, 1);
  t.is(refreshed[0]!.refresh_token, '1//refresh-old');

  const revoked: FormBody[] = [];
  nock(GOOGLE_OAUTH)
    .post('/revoke')
    .reply(async (request: Request) => {
      const body = await formOf(request);
      revoked.push(body);
      return [200, {}];
    });
  t.is((await alice.post('/disconnect/YouTube')).status, 204);
  t.deepEqual(revoked, [{ token: '1//refresh-old' }], 'the refresh token (kept across the refresh) is revoked');
  t.deepEqual((await alice.get('/connections')).body, []);
  t.is((await alice.post('/disconnect/youtube')).status, 204, 'disconnecting again is harmless');
});

test.serial('a transient platform failure is retried; a refusal is reported as publish.failed and a new request starts again', async (t) => {
  const alice = shared.client();
  await alice.signUp();
  await connectYouTube(alice);
  const output = await videoOutput(alice);
  const socket = await openSocket(alice);
  t.teardown(() => socket.close());
  nock(GOOGLE_APIS).post(UPLOAD_PATH).query(true).reply(503, { error: { code: 503, message: 'Backend Error' } });
  const init = youtubeInitiation('session-t');
  youtubeUpload('session-t', 'vid-after-retry');
  t.is((await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['YOUTUBE'] })).status, 202);
  const done = await socket.waitFor((m) => m.type === 'publish.completed', 20_000);
  t.is(done.url, 'https://www.youtube.com/watch?v=vid-after-retry');
  t.true(init.isDone());

  const second = await videoOutput(alice);
  nock(GOOGLE_APIS)
    .post(UPLOAD_PATH)
    .query(true)
    .reply(403, { error: { code: 403, message: 'The request cannot be completed because you have exceeded your quota.', errors: [{ reason: 'quotaExceeded' }] } });
  t.is((await alice.post(`/my-outputs/${second.id}/publish`, { platforms: ['YOUTUBE'] })).status, 202);
  const failed = await socket.waitFor((m) => m.type === 'publish.failed' && m.outputId === second.id, 20_000);
  t.regex(String(failed.error), /exceeded your quota/);
  const [record] = (await alice.get(`/my-outputs/${second.id}/publications`)).body;
  t.like(record, { platform: 'YOUTUBE', status: 'failed' });
  t.regex(record.error, /quota/);

  youtubeInitiation('session-2');
  youtubeUpload('session-2', 'vid-second-try');
  const retried = await alice.post(`/my-outputs/${second.id}/publish`, { platforms: ['YOUTUBE'] });
  t.regex(retried.body.message, /has started/);
  const [after] = await publications(alice, second.id, (list) => list[0]?.status === 'published');
  t.like(after, { status: 'published', url: 'https://www.youtube.com/watch?v=vid-second-try' });
  t.false('error' in after);
});

test.serial('transient failures on every attempt end the publication as failed after MAX_ATTEMPTS', async (t) => {
  const alice = shared.client();
  await alice.signUp();
  await connectYouTube(alice);
  const output = await videoOutput(alice);
  const calls = nock(GOOGLE_APIS).post(UPLOAD_PATH).query(true).times(3).reply(500, { error: { code: 500, message: 'Internal error' } });
  t.is((await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['YOUTUBE'] })).status, 202);
  const [record] = await publications(alice, output.id, (list) => list[0]?.status === 'failed', 30_000);
  t.like(record, { status: 'failed' });
  t.regex(record.error, /gave up after 3 attempts/);
  t.true(calls.isDone());
});

test.serial('TikTok: connect, then direct post with FILE_UPLOAD, status polled until PUBLISH_COMPLETE', async (t) => {
  const alice = shared.client();
  await alice.signUp();
  tiktokTokenExchange({ access: 'act.tt-1', refresh: 'rft.tt-1' });
  const { authorization, landing } = await connect(alice, 'tiktok');
  t.is(authorization.origin + authorization.pathname, 'https://www.tiktok.com/v2/auth/authorize/');
  t.is(authorization.searchParams.get('client_key'), SOCIAL_ENV.TIKTOK_CLIENT_KEY);
  t.is(authorization.searchParams.get('scope'), 'user.info.basic,video.publish');
  t.regex(landing, /success\.html\?platform=TIKTOK$/);
  const output = await videoOutput(alice);
  const api = { reqheaders: { authorization: 'Bearer act.tt-1' } };
  nock(TIKTOK_API, api).post('/v2/post/publish/creator_info/query/').reply(200, {
    data: { creator_username: 'alice', privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'], max_video_post_duration_sec: 600 },
    error: { code: 'ok', message: '', log_id: 'log-1' },
  });
  let init: any = null;
  nock(TIKTOK_API, api)
    .post('/v2/post/publish/video/init/')
    .reply(async (request: Request) => {
      init = await request.json();
      return [200, { data: { publish_id: 'v_pub_file~v2-1.7', upload_url: 'https://open-upload.tiktokapis.com/video/?upload_id=67890&upload_token=Xza123' }, error: { code: 'ok', message: '', log_id: 'log-2' } }];
    });
  const uploads: Record<string, string>[] = [];
  nock('https://open-upload.tiktokapis.com')
    .put('/video/')
    .query({ upload_id: '67890', upload_token: 'Xza123' })
    .reply(async (request: Request) => {
      uploads.push(headersOf(request));
      return [201, ''];
    });
  nock(TIKTOK_API, api)
    .post('/v2/post/publish/status/fetch/', { publish_id: 'v_pub_file~v2-1.7' })
    .reply(200, { data: { status: 'PROCESSING_UPLOAD', uploaded_bytes: 0 }, error: { code: 'ok', message: '', log_id: 'l' } })
    .post('/v2/post/publish/status/fetch/', { publish_id: 'v_pub_file~v2-1.7' })
    .reply(200, '{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7234567890123456789]},"error":{"code":"ok","message":"","log_id":"l"}}', { 'content-type': 'application/json' });
  t.is((await alice.post(`/my-outputs/${output.id}/publish`, { platforms: ['TIKTOK'], title: 'Hello', privacy: 'public' })).status, 202);
  const [record] = await publications(alice, output.id, (list) => ['published', 'failed'].includes(list[0]?.status));
  t.like(record, { platform: 'TIKTOK', status: 'published', url: 'https://www.tiktok.com/player/v1/7234567890123456789' });
  t.is(init.post_info.privacy_level, 'PUBLIC_TO_EVERYONE');
  t.is(init.post_info.title, 'Hello');
  t.deepEqual(init.source_info, { source: 'FILE_UPLOAD', video_size: output.sizeBytes, chunk_size: output.sizeBytes, total_chunk_count: 1 });
  t.is(uploads.length, 1);
  t.is(uploads[0]!['content-range'], `bytes 0-${output.sizeBytes - 1}/${output.sizeBytes}`);

  nock(TIKTOK_API).post('/v2/oauth/revoke/', (body: FormBody) => body.token === 'rft.tt-1' && body.client_key === SOCIAL_ENV.TIKTOK_CLIENT_KEY).reply(200, {});
  t.is((await alice.post('/disconnect/tiktok')).status, 204);
  t.true(nock.isDone());
});
