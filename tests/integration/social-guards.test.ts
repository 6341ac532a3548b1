import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import nock from 'nock';
import { AesGcmTokenCipher } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { TikTokPlatform } from '../../adapters/social/tiktok-platform.ts';
import { YouTubePlatform } from '../../adapters/social/youtube-platform.ts';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import { publishMessage } from '../../core/domain/messages.ts';
import type { SocialPlatform } from '../../core/domain/social.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import { PlatformError, type SocialPlatformClient, type SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { PUBLICATION_ERROR_MAX_CHARS, PublicationEnds } from '../../core/use-cases/social/publication-ends.service.ts';
import { RequestPublication } from '../../core/use-cases/social/request-publication.use-case.ts';
import { FailDeadLetteredPublication, RunPublication } from '../../core/use-cases/social/run-publication.use-case.ts';
import { addUser, historyItem } from '../contract/fixtures.ts';
import { backendPerDatabase } from '../support/publication-requests.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { GOOGLE_APIS, GOOGLE_OAUTH, sessionUri, SOCIAL_ENV, TIKTOK_API, UPLOAD_PATH, youtubeVideo } from '../support/social-platforms.ts';
import { startTestApp } from '../support/test-app.ts';

/**
 * Guards of the social area that the end-to-end suites (social.test.ts, publish-faults.test.ts) leave
 * undefended: one message per publication attempt, a worker that lost its attempt posting nothing more, a
 * refused token refreshed once, and failures the user must act on ending the publication at once with a
 * reason they can read. The platforms are nock scopes; the use cases run on the real databases.
 */

const SIZE = 1000;
const clock = new SystemClock();
const KEY = { id: 'k1', key: Buffer.alloc(32, 1) };

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

/** One backend per database for the whole file: every test keeps to a user and output of its own. */
const backendFor = backendPerDatabase();

interface WorldOptions {
  /** The platform connected and published to (default YOUTUBE). */
  platform?: SocialPlatform;
  /** How long the connection's access token has left (default an hour). */
  expiresInSeconds?: number;
  /** The platforms the worker sees (default: the real client of the platform). */
  platforms?: (real: SocialPlatformClient) => SocialPlatforms;
  /** Seal the connection's tokens with this key instead of the worker's. */
  sealKey?: { id: string; key: Buffer };
  /** No connection at all. */
  connected?: boolean;
}

/** A user with a stored video, a connection (YouTube unless told; token-1 / refresh-1, an hour left) and one pending publication. */
async function world(t: ExecutionContext, db: TestDatabase, options: WorldOptions = {}) {
  const backend = await backendFor(db);
  const storage = new MemoryObjectStorage();
  const userId = await addUser(backend.repos.users);
  const item = historyItem(userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'clip.mp4', sizeBytes: SIZE });
  await backend.repos.history.add(item);
  await storage.put(item.storageKey, Buffer.alloc(SIZE, 7), { contentType: 'video/mp4' });
  const platform = options.platform ?? 'YOUTUBE';
  const real: SocialPlatformClient =
    platform === 'TIKTOK'
      ? new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 5000, pollIntervalMs: 10, pollTimeoutMs: 2000 })
      : new YouTubePlatform({ clientId: 'c', clientSecret: 's', timeoutMs: 5000 });
  const platforms = options.platforms?.(real) ?? { get: () => real, configured: () => [platform] };
  const cipher = new AesGcmTokenCipher([KEY]);
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher, platforms, clock, logger: quietLogger });
  if (options.connected !== false) {
    const sealer = options.sealKey ? new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([options.sealKey]), platforms, clock, logger: quietLogger }) : tokens;
    await backend.repos.connections.save(sealer.sealNew(userId, platform, { accessToken: 'token-1', refreshToken: 'refresh-1', expiresInSeconds: options.expiresInSeconds ?? 3600, accountId: null, scope: null }));
  }
  const attemptId = randomUUID();
  const now = clock.now();
  await backend.repos.publications.request({ outputId: item.id, userId, platform, status: 'pending', attemptId, title: 'Clip', description: '', privacy: 'private', url: null, error: null, remoteRef: null, createdAt: now, updatedAt: now });
  const body = publishMessage({ outputId: item.id, userId, platform, attemptId }, 'local').body;
  const events = new UserEventLog({ bus: new InProcessEventBus(), clock, logger: quietLogger });
  const ends = new PublicationEnds({ uow: backend.uow, events, clock, logger: quietLogger });
  const run = new RunPublication({ publications: backend.repos.publications, history: backend.repos.history, storage, platforms, tokens, ends, clock, logger: quietLogger, maxAttempts: 5, visibilitySeconds: 30 });
  const deadLetters = new FailDeadLetteredPublication({ history: backend.repos.history, ends, logger: quietLogger });
  const message = (attempt: number): DeliveredMessage => ({ id: attemptId, taskType: 'publish', environment: 'local', body, attempt, extendVisibility: async () => undefined });
  const outcome = async () => ({
    publication: (await backend.repos.publications.find(item.id, platform))!,
    events: (await backend.repos.events.listSince(userId, 0, 100)).map((stored) => stored.event),
  });
  void t;
  return { backend, storage, userId, item, cipher, run, deadLetters, message, outcome };
}

const initiation = (token = 'token-1') => nock(GOOGLE_APIS, { reqheaders: { authorization: `Bearer ${token}` } }).post(UPLOAD_PATH).query({ uploadType: 'resumable', part: 'snippet,status' });
const session = (id = 'one') => nock(GOOGLE_APIS).put(UPLOAD_PATH).query({ uploadType: 'resumable', upload_id: id });

for (const db of DATABASES) {
  // Pins one publish message per attempt: a repeated request for a publication in progress must not start a second upload of it.
  test.serial(`[${db}] a request repeated while the publication is pending or uploading puts no second message on the queue`, async (t) => {
    const backend = await backendFor(db);
    const userId = await addUser(backend.repos.users);
    const item = historyItem(userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'clip.mp4', sizeBytes: SIZE });
    await backend.repos.history.add(item);
    await backend.repos.connections.save({ userId, platform: 'YOUTUBE', accessToken: 'v1.k.a', refreshToken: null, expiresAt: null, accountId: null, scope: null, createdAt: clock.now(), updatedAt: clock.now() });
    const request = new RequestPublication({
      uow: backend.uow,
      history: backend.repos.history,
      connections: backend.repos.connections,
      platforms: { get: () => ({ platform: 'YOUTUBE' }) as SocialPlatformClient, configured: () => ['YOUTUBE'] },
      ids: { newId: () => randomUUID() },
      clock,
      environment: 'local',
    });
    const ask = () => request.execute({ userId, outputId: item.id, body: { platforms: ['YOUTUBE'] } });
    const queued = async () =>
      (await backend.outbox.lease(1000, { token: randomUUID(), until: new Date(Date.now() + 60_000) }, new Date())).filter((entry) => (entry.message.body as { outputId?: string }).outputId === item.id);
    const first = await ask();
    t.true(first.ok && first.value.started.length === 1);
    const attemptId = (await backend.repos.publications.find(item.id, 'YOUTUBE'))!.attemptId;
    t.is((await queued()).length, 1);
    const pending = await ask();
    t.true(pending.ok && pending.value.started.length === 0 && /YouTube is already in progress/.test(pending.value.message));
    t.true(await backend.repos.publications.begin(item.id, 'YOUTUBE', attemptId, clock.now()));
    const uploading = await ask();
    t.true(uploading.ok && uploading.value.started.length === 0);
    t.deepEqual(await queued(), [], 'nothing more was queued');
    t.like(await backend.repos.publications.find(item.id, 'YOUTUBE'), { attemptId, status: 'uploading' });
  });

  // Pins the publish request's limits: at most ten platforms, text fields that are strings, platforms this server has configured.
  test.serial(`[${db}] publish refuses more than ten platforms, a title that is not text, and a connected platform this server no longer configures`, async (t) => {
    const backend = await backendFor(db);
    const userId = await addUser(backend.repos.users);
    const item = historyItem(userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'clip.mp4', sizeBytes: SIZE });
    await backend.repos.history.add(item);
    for (const platform of ['YOUTUBE', 'TIKTOK'] as const) {
      await backend.repos.connections.save({ userId, platform, accessToken: 'v1.k.a', refreshToken: null, expiresAt: null, accountId: null, scope: null, createdAt: clock.now(), updatedAt: clock.now() });
    }
    // TikTok was connected while it was configured; the operator has since removed it.
    const request = new RequestPublication({
      uow: backend.uow,
      history: backend.repos.history,
      connections: backend.repos.connections,
      platforms: { get: (platform) => (platform === 'YOUTUBE' ? ({ platform: 'YOUTUBE' } as SocialPlatformClient) : null), configured: () => ['YOUTUBE'] },
      ids: { newId: () => randomUUID() },
      clock,
      environment: 'local',
    });
    const ask = (body: unknown) => request.execute({ userId, outputId: item.id, body });
    const eleven = await ask({ platforms: Array.from({ length: 11 }, () => 'YOUTUBE') });
    t.like(eleven, { ok: false, code: 'VALIDATION.FAILED' });
    t.like(await ask({ platforms: ['YOUTUBE'], title: 42 }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'title', message: 'must be a string' }] });
    t.like(await ask({ platforms: ['YOUTUBE'], description: ['x'] }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'description', message: 'must be a string' }] });
    t.like(await ask({ platforms: ['TIKTOK'] }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'platforms[0]', message: 'TikTok is not configured on this server' }] });
    t.like(await ask({ platforms: [7] }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'platforms[0]', message: 'unknown platform 7 (supported: YOUTUBE, TIKTOK)' }] });
    t.deepEqual(await backend.repos.publications.listForOutput(item.id), [], 'nothing was recorded');
  });

  // Pins the attempt fence on the upload reference: a worker whose attempt ended meanwhile sends no byte into the session it opened.
  test.serial(`[${db}] a worker whose attempt ended while it opened the upload session sends nothing into it`, async (t) => {
    const w = await world(t, db);
    initiation().reply(async () => {
      // Meanwhile the message was dead-lettered: the attempt ends as failed.
      await w.deadLetters.execute(w.message(6), 'delivered 6 times');
      return [200, '', { Location: sessionUri('one') }];
    });
    const upload = session().reply(201, youtubeVideo('second-video'));
    t.deepEqual(await w.run.execute(w.message(5)), { action: 'ack' });
    t.false(upload.isDone(), 'no byte was sent');
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'failed', remoteRef: null });
    t.deepEqual(events.map((e) => e.type), ['publish.failed']);
  });

  // Pins the refresh-once on a refused token: YouTube answers 401 to a token it revoked before its expiry; one refresh, then the upload goes on.
  test.serial(`[${db}] a token the platform refuses before its expiry is refreshed once and the upload goes on with the new one`, async (t) => {
    const w = await world(t, db);
    initiation('token-1').reply(401, { error: { code: 401, message: 'Invalid Credentials' } });
    const refreshes: string[] = [];
    nock(GOOGLE_OAUTH)
      .post('/token', (body: Record<string, string>) => body.grant_type === 'refresh_token')
      .reply(async (request: Request) => {
        refreshes.push(new URLSearchParams(await request.text()).get('refresh_token')!);
        return [200, { access_token: 'token-2', expires_in: 3599, token_type: 'Bearer' }];
      });
    initiation('token-2').reply(200, '', { Location: sessionUri('one') });
    session().reply(201, youtubeVideo('after-refresh'));
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    t.deepEqual(refreshes, ['refresh-1']);
    t.true(nock.isDone());
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'published', url: 'https://www.youtube.com/watch?v=after-refresh' });
    t.deepEqual(events.map((e) => e.type), ['publish.completed']);
    const stored = (await w.backend.repos.connections.find(w.userId, 'YOUTUBE'))!;
    t.is(w.cipher.open(stored.accessToken, `${w.userId}:YOUTUBE:access`), 'token-2', 'the new token is stored');
  });

  // Pins that what only the user can fix (a dead grant, no connection, tokens no key opens) ends the publication at the first attempt, telling them to connect again.
  test.serial(`[${db}] a grant the platform refuses, a removed connection and undecryptable tokens end the publication at once: connect again`, async (t) => {
    const cases: { name: string; options: WorldOptions; arrange?: () => void }[] = [
      {
        name: 'refresh refused',
        options: {},
        arrange: () => {
          initiation('token-1').reply(401, { error: { code: 401, message: 'Invalid Credentials' } });
          nock(GOOGLE_OAUTH).post('/token').reply(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        },
      },
      { name: 'disconnected before the worker ran', options: { connected: false } },
      { name: 'sealed with a key no longer configured', options: { sealKey: { id: 'k0', key: Buffer.alloc(32, 9) } } },
    ];
    for (const { name, options, arrange } of cases) {
      const w = await world(t, db, options);
      arrange?.();
      t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' }, `${name}: not retried`);
      const { publication, events } = await w.outcome();
      t.is(publication.status, 'failed', name);
      t.regex(publication.error ?? '', /YouTube refused the authorization .*; connect YouTube again$/, name);
      t.deepEqual(events.map((e) => e.type), ['publish.failed'], name);
      t.true(nock.isDone(), name);
      nock.cleanAll();
    }
  });

  // Pins that TikTok refusing the refresh grant (invalid_grant, even in a 200 answer) tells the user, in TikTok's own words, to connect again, while its other OAuth errors do not.
  test.serial(`[${db}] TikTok refusing the refresh grant ends the publication with its words and "connect TikTok again"; another OAuth error does not ask to connect again`, async (t) => {
    const refreshAnswer = (answer: Record<string, string>) =>
      nock(TIKTOK_API)
        .post('/v2/oauth/token/', (body: Record<string, string>) => body.grant_type === 'refresh_token' && body.refresh_token === 'refresh-1')
        .times(2)
        .reply(200, { ...answer, log_id: '202401011200000000' });

    const refused = await world(t, db, { platform: 'TIKTOK', expiresInSeconds: 10 });
    refreshAnswer({ error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.' });
    t.deepEqual(await refused.run.execute(refused.message(1)), { action: 'ack' }, 'not retried');
    const ended = await refused.outcome();
    t.like(ended.publication, { status: 'failed', error: 'TikTok refused the authorization (TikTok token refresh: invalid_grant: Refresh token is invalid or expired.); connect TikTok again' });
    t.deepEqual(ended.events.map((e) => e.type), ['publish.failed']);
    nock.cleanAll();

    const misconfigured = await world(t, db, { platform: 'TIKTOK', expiresInSeconds: 10 });
    refreshAnswer({ error: 'invalid_client', error_description: 'Client key or secret is incorrect.' });
    t.deepEqual(await misconfigured.run.execute(misconfigured.message(1)), { action: 'ack' });
    const { publication } = await misconfigured.outcome();
    t.is(publication.status, 'failed');
    t.regex(publication.error ?? '', /^TikTok token refresh: .*invalid_client: Client key or secret is incorrect\.$/);
    t.notRegex(publication.error ?? '', /connect TikTok again/, 'the user can do nothing about the server\'s client key');
  });

  // Pins that a failed publication's error text is shown, in the stored row and in the publish.failed event alike, without server file paths and cut to its limit.
  test.serial(`[${db}] a failed publication's error text keeps no server file path and at most ${PUBLICATION_ERROR_MAX_CHARS} characters, in the row and the event`, async (t) => {
    const path = '/var/lib/media-gen/storage/outputs/ab12/clip.mp4';
    const failing = {
      platform: 'YOUTUBE',
      publish: async () => {
        throw new PlatformError('rejected', `ENOENT: no such file or directory, open '${path}'; ${'the platform said more. '.repeat(200)}`);
      },
    } as unknown as SocialPlatformClient;
    const w = await world(t, db, { platforms: () => ({ get: () => failing, configured: () => ['YOUTUBE'] }) });
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    const { publication, events } = await w.outcome();
    t.is(publication.status, 'failed');
    const shown = publication.error ?? '';
    t.true(shown.startsWith("ENOENT: no such file or directory, open '…/clip.mp4'; the platform said more."), shown.slice(0, 120));
    t.false(shown.includes('/var/lib'), 'no server path');
    t.is(shown.length, PUBLICATION_ERROR_MAX_CHARS);
    t.true(shown.endsWith('…'), 'the cut is marked');
    t.deepEqual(events.map((e) => e.type), ['publish.failed']);
    t.is((events[0] as { error?: string }).error, shown, 'the event shows the same text');
  });

  // Pins clear, immediate failures for what no retry can fix: the platform no longer configured, the file no longer stored.
  test.serial(`[${db}] a platform no longer configured or a file no longer stored ends the publication at once with its reason`, async (t) => {
    const gone = await world(t, db, { platforms: () => ({ get: () => null, configured: () => [] }) });
    t.deepEqual(await gone.run.execute(gone.message(1)), { action: 'ack' });
    t.like((await gone.outcome()).publication, { status: 'failed', error: 'YouTube is no longer configured on this server' });

    const deleted = await world(t, db);
    await deleted.storage.delete(deleted.item.storageKey);
    t.deepEqual(await deleted.run.execute(deleted.message(1)), { action: 'ack' });
    t.like((await deleted.outcome()).publication, { status: 'failed', error: 'the output file is no longer stored' });
    t.deepEqual((await deleted.outcome()).events.map((e) => e.type), ['publish.failed']);
  });

  // Pins the platform's Retry-After: a rate-limited upload waits as long as the platform asks, at most an hour.
  test.serial(`[${db}] a rate-limited upload is retried after the platform's Retry-After, capped at an hour`, async (t) => {
    const w = await world(t, db);
    initiation().reply(429, { error: { code: 429, message: 'Rate Limit Exceeded' } }, { 'Retry-After': '120' });
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'retry', delaySeconds: 120 });
    initiation().reply(429, { error: { code: 429, message: 'Rate Limit Exceeded' } }, { 'Retry-After': '999999' });
    t.deepEqual(await w.run.execute(w.message(2)), { action: 'retry', delaySeconds: 3600 });
    t.like((await w.outcome()).publication, { status: 'uploading' });
  });
}

// Pins the cookie that binds a connection to the browser that started it: out of scripts' reach, sent to the API only, not on cross-site requests, gone with its pending state; and no cache keeps the redirect.
test.serial('the connect state cookie is HttpOnly, scoped to /api, SameSite=Lax and lives ten minutes; the redirect is not cached', async (t) => {
  const app = await startTestApp(DATABASES[0]!, SOCIAL_ENV);
  t.teardown(() => app.close());
  const alice = app.client();
  await alice.signUp();
  const started = await alice.get('/connect/youtube');
  t.is(started.status, 302);
  const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
  const cookie = started.headers.getSetCookie().find((header) => header.startsWith('connect_state='));
  const [pair, ...attributes] = (cookie ?? '').split(';').map((part) => part.trim());
  t.is(pair, `connect_state=${state}`);
  t.deepEqual(attributes.filter((attribute) => !attribute.startsWith('Expires=')).sort(), ['HttpOnly', 'Max-Age=600', 'Path=/api', 'SameSite=Lax']);
  t.is(started.headers.get('cache-control'), 'no-store');
});
