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
import type { PublishRequest, SocialPlatformClient, SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { PublicationEnds } from '../../core/use-cases/social/publication-ends.service.ts';
import { FailDeadLetteredPublication, RunPublication } from '../../core/use-cases/social/run-publication.use-case.ts';
import { addUser, historyItem } from '../contract/fixtures.ts';
import { openBackend, type Backend } from '../support/backends.ts';
import { DATABASES } from '../support/databases.ts';
import { GOOGLE_APIS, headersOf, sessionUri, TIKTOK_API, UPLOAD_PATH, youtubeVideo } from '../support/social-platforms.ts';
import { quietLogger } from '../support/generation-harness.ts';

/**
 * A worker that dies at each step of a publication: the process is gone (modelled by a switch after which
 * the dead attempt can touch neither the platform nor the database), the message comes back, and a new
 * worker takes it over. The platform must end up with exactly one post, the owner with one event.
 */
class Killed extends Error {}

const SIZE = 1000;
const clock = new SystemClock();

async function world(t: ExecutionContext, db: (typeof DATABASES)[number], platform: SocialPlatform) {
  const backend: Backend = await openBackend(db);
  t.teardown(() => backend.dispose());
  const storage = new MemoryObjectStorage();
  const userId = await addUser(backend.repos.users);
  const item = historyItem(userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'clip.mp4', sizeBytes: SIZE });
  await backend.repos.history.add(item);
  await storage.put(item.storageKey, Buffer.alloc(SIZE, 7), { contentType: 'video/mp4' });
  const real: SocialPlatformClient =
    platform === 'YOUTUBE'
      ? new YouTubePlatform({ clientId: 'c', clientSecret: 's', timeoutMs: 5000 })
      : new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 5000, pollIntervalMs: 10, pollTimeoutMs: 2000 });
  const cipher = new AesGcmTokenCipher([{ id: 'k1', key: Buffer.alloc(32, 1) }]);
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher, platforms: { get: () => real, configured: () => [platform] }, clock, logger: quietLogger });
  await backend.repos.connections.save(tokens.sealNew(userId, platform, { accessToken: 'token-1', refreshToken: 'refresh-1', expiresInSeconds: 3600, accountId: null, scope: null }));
  const attemptId = randomUUID();
  const now = clock.now();
  await backend.repos.publications.request({ outputId: item.id, userId, platform, status: 'pending', attemptId, title: 'Clip', description: '', privacy: 'private', url: null, error: null, remoteRef: null, createdAt: now, updatedAt: now });
  const body = publishMessage({ outputId: item.id, userId, platform, attemptId }, 'local').body;
  const events = new UserEventLog({ bus: new InProcessEventBus(), clock, logger: quietLogger });
  /** Calls that reached the platform client, whichever worker made them. */
  const calls = { publish: 0 };

  /** One worker process: `kill` arms the switch; `dies` says where it trips. */
  function worker(fault: { afterRemoteRef?: boolean; beforeEnd?: boolean; killed?: () => boolean } = {}) {
    let dead = false;
    const check = () => {
      if (dead || fault.killed?.()) {
        dead = true;
        throw new Killed('this worker is dead');
      }
    };
    const client: SocialPlatformClient = {
      ...real,
      platform,
      begin: (input) => real.begin(input),
      exchangeCode: (input) => real.exchangeCode(input),
      refresh: (token) => real.refresh(token),
      revoke: (token) => real.revoke(token),
      publish: (request: PublishRequest) => {
        calls.publish += 1;
        return real.publish({
          ...request,
          file: { ...request.file, read: async (start) => (check(), request.file.read(start)) },
          saveRemoteRef: async (ref) => {
            check();
            await request.saveRemoteRef(ref);
            if (fault.afterRemoteRef) dead = true;
          },
        });
      },
    };
    const platforms: SocialPlatforms = { get: () => client, configured: () => [platform] };
    const ends = new PublicationEnds({ uow: backend.uow, events, clock, logger: quietLogger });
    const guardedEnds = {
      end: async (...args: Parameters<PublicationEnds['end']>) => {
        check();
        if (fault.beforeEnd) {
          dead = true;
          check();
        }
        return ends.end(...args);
      },
    } as PublicationEnds;
    const run = new RunPublication({
      publications: backend.repos.publications,
      history: backend.repos.history,
      storage,
      platforms,
      tokens: new ConnectionTokens({ connections: backend.repos.connections, cipher, platforms, clock, logger: quietLogger }),
      ends: guardedEnds,
      clock,
      logger: quietLogger,
      maxAttempts: 5,
      visibilitySeconds: 30,
    });
    return { run, deadLetters: new FailDeadLetteredPublication({ history: backend.repos.history, ends, logger: quietLogger }) };
  }
  const message = (attempt: number): DeliveredMessage => ({ id: attemptId, taskType: 'publish', environment: 'local', body, attempt, extendVisibility: async () => undefined });
  const outcome = async () => ({
    publication: (await backend.repos.publications.find(item.id, platform))!,
    events: (await backend.repos.events.listSince(userId, 0, 100)).map((stored) => stored.event),
  });
  return { backend, item, worker, message, outcome, calls };
}

test.before(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

const initiations = () => nock(GOOGLE_APIS).post(UPLOAD_PATH).query({ uploadType: 'resumable', part: 'snippet,status' });
const session = () => nock(GOOGLE_APIS).put(UPLOAD_PATH).query({ uploadType: 'resumable', upload_id: 'one' });

for (const db of DATABASES) {
  test.serial(`[${db}] YouTube: a worker dies after saving the upload session: the next one asks the session and uploads into it, one video`, async (t) => {
    const w = await world(t, db, 'YOUTUBE');
    const init = initiations().once().reply(200, '', { Location: sessionUri('one') });
    t.deepEqual(await w.worker({ afterRemoteRef: true }).run.execute(w.message(1)), { action: 'retry', delaySeconds: 1 });
    t.like((await w.outcome()).publication, { status: 'uploading', remoteRef: JSON.stringify({ session: sessionUri('one') }) });
    const ranges: Record<string, string>[] = [];
    session().reply(308, '');
    session().reply(async (request: Request) => (ranges.push(headersOf(request)), [201, youtubeVideo('only-one')]));
    t.deepEqual(await w.worker().run.execute(w.message(2)), { action: 'ack' });
    t.true(init.isDone());
    t.is(ranges.length, 1);
    t.is(ranges[0]!['content-length'], String(SIZE));
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'published', url: 'https://www.youtube.com/watch?v=only-one' });
    t.deepEqual(events.map((e) => e.type), ['publish.completed']);
  });

  test.serial(`[${db}] YouTube: a worker dies mid-upload: the next one sends only the bytes the session lacks`, async (t) => {
    const w = await world(t, db, 'YOUTUBE');
    let cut = false;
    initiations().once().reply(200, '', { Location: sessionUri('one') });
    session().replyWithError('socket hang up');
    session().reply(() => ((cut = true), [308, '', { Range: 'bytes=0-399' }]));
    t.is((await w.worker({ killed: () => cut }).run.execute(w.message(1))).action, 'retry');
    const sent: Record<string, string>[] = [];
    session().reply(308, '', { Range: 'bytes=0-399' });
    session().reply(async (request: Request) => {
      sent.push({ ...headersOf(request), bytes: String((await request.arrayBuffer()).byteLength) });
      return [200, youtubeVideo('resumed')];
    });
    t.deepEqual(await w.worker().run.execute(w.message(2)), { action: 'ack' });
    t.is(sent.length, 1);
    t.is(sent[0]!['content-range'], `bytes 400-${SIZE - 1}/${SIZE}`);
    t.is(sent[0]!.bytes, String(SIZE - 400));
    t.true(nock.isDone(), 'one initiation, nothing left unused');
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'published', url: 'https://www.youtube.com/watch?v=resumed' });
    t.is(events.length, 1);
  });

  test.serial(`[${db}] YouTube: a worker dies after the video was created but before recording it: the next one finds the video, uploads nothing`, async (t) => {
    const w = await world(t, db, 'YOUTUBE');
    initiations().once().reply(200, '', { Location: sessionUri('one') });
    session().once().reply(201, youtubeVideo('created-once'));
    t.is((await w.worker({ beforeEnd: true }).run.execute(w.message(1))).action, 'retry');
    t.is((await w.outcome()).publication.status, 'uploading');
    // Asked where the upload stands, the finished session answers the video.
    const status: Record<string, string>[] = [];
    session().reply(async (request: Request) => (status.push(headersOf(request)), [200, youtubeVideo('created-once')]));
    t.deepEqual(await w.worker().run.execute(w.message(2)), { action: 'ack' });
    t.is(status[0]!['content-range'], `bytes */${SIZE}`);
    t.true(nock.isDone());
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'published', url: 'https://www.youtube.com/watch?v=created-once' });
    t.deepEqual(events.map((e) => e.type), ['publish.completed']);
    // A late dead-letter of the same message changes nothing and tells nobody again.
    await w.worker().deadLetters.execute(w.message(3), 'late');
    t.is((await w.outcome()).events.length, 1);
    t.is((await w.outcome()).publication.status, 'published');
  });

  test.serial(`[${db}] TikTok: a worker dies after init: the next one asks TikTok, sends the file to the saved URL, never inits again`, async (t) => {
    const w = await world(t, db, 'TIKTOK');
    const api = nock(TIKTOK_API);
    api.post('/v2/post/publish/creator_info/query/').once().reply(200, { data: { privacy_level_options: ['SELF_ONLY'] }, error: { code: 'ok' } });
    api.post('/v2/post/publish/video/init/').once().reply(200, { data: { publish_id: 'p-1', upload_url: 'https://open-upload.tiktokapis.com/video/?upload_id=1' }, error: { code: 'ok' } });
    t.is((await w.worker({ afterRemoteRef: true }).run.execute(w.message(1))).action, 'retry');
    const status = (state: string) => ({ data: { status: state }, error: { code: 'ok' } });
    api.post('/v2/post/publish/status/fetch/', { publish_id: 'p-1' }).reply(200, status('PROCESSING_UPLOAD'));
    const upload = nock('https://open-upload.tiktokapis.com').put('/video/').query({ upload_id: '1' }).once().reply(201, '');
    api.post('/v2/post/publish/status/fetch/', { publish_id: 'p-1' }).reply(200, status('PUBLISH_COMPLETE'));
    t.deepEqual(await w.worker().run.execute(w.message(2)), { action: 'ack' });
    t.true(upload.isDone());
    t.true(nock.isDone());
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'published', url: null });
    t.deepEqual(events.map((e) => e.type), ['publish.completed']);
  });

  test.serial(`[${db}] a dead-lettered publication ends failed once, and its late worker cannot end it again`, async (t) => {
    const w = await world(t, db, 'YOUTUBE');
    await w.backend.repos.publications.begin(w.item.id, 'YOUTUBE', (await w.outcome()).publication.attemptId, clock.now());
    await w.worker().deadLetters.execute(w.message(6), 'delivered 6 times');
    await w.worker().deadLetters.execute(w.message(6), 'delivered 6 times');
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'failed' });
    t.regex(publication.error!, /Gave up on this publication: delivered 6 times/);
    t.deepEqual(events.map((e) => e.type), ['publish.failed']);
    t.deepEqual(await w.worker().run.execute(w.message(7)), { action: 'ack' });
    t.is(w.calls.publish, 0, 'the ended attempt is not posted');
    t.true(nock.isDone());
  });
}

for (const db of DATABASES) {
  for (const step of ['publications.request', 'outbox.add', 'events.appendAll', 'publications.end'] as const) {
    test.serial(`[${db}] a failure at ${step} leaves no half-done publication: the request or the end is whole or absent, and a retry completes it once`, async (t) => {
      const { interceptTransactions, failOnce } = await import('../support/faults.ts');
      const { RequestPublication } = await import('../../core/use-cases/social/request-publication.use-case.ts');
      const w = await world(t, db, 'YOUTUBE');
      // A second output, requested through the use case (the world's publication was recorded directly).
      const item = historyItem(w.item.userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'second.mp4', sizeBytes: SIZE });
      await w.backend.repos.history.add(item);
      const fault = failOnce((call) => `${call.repo}.${call.method}` === step);
      const uow = interceptTransactions(w.backend.uow, fault.interceptor);
      const request = new RequestPublication({
        uow,
        history: w.backend.repos.history,
        connections: w.backend.repos.connections,
        platforms: { get: () => ({ platform: 'YOUTUBE' }) as SocialPlatformClient, configured: () => ['YOUTUBE'] },
        ids: { newId: () => randomUUID() },
        clock,
        environment: 'local',
      });
      const queued = async () => (await w.backend.outbox.lease(100, { token: randomUUID(), until: new Date(Date.now() + 1000) }, new Date())).filter((entry) => (entry.message.body as { outputId?: string }).outputId === item.id);
      const ask = () => request.execute({ userId: item.userId, outputId: item.id, body: { platforms: ['YOUTUBE'] } });
      if (step === 'publications.request' || step === 'outbox.add') {
        await t.throwsAsync(ask(), { message: 'injected fault' });
        t.is(await w.backend.repos.publications.find(item.id, 'YOUTUBE'), null, 'no publication without its message');
        t.deepEqual(await queued(), [], 'no message without its publication');
        const answered = await ask();
        t.true(answered.ok && answered.value.started.length === 1);
        const publication = (await w.backend.repos.publications.find(item.id, 'YOUTUBE'))!;
        t.is(publication.status, 'pending');
        const messages = await queued();
        t.is(messages.length, 1);
        t.like(messages[0]!.message, { taskType: 'publish', messageId: publication.attemptId, body: { outputId: item.id, platforms: ['YOUTUBE'], attemptId: publication.attemptId } });
        return;
      }
      // The end (and its event) of the world's publication: a failing write ends nothing and tells nobody; the retry does both once.
      const ends = new PublicationEnds({ uow, events: new UserEventLog({ bus: new InProcessEventBus(), clock, logger: quietLogger }), clock, logger: quietLogger });
      const publication = (await w.outcome()).publication;
      await w.backend.repos.publications.begin(w.item.id, 'YOUTUBE', publication.attemptId, clock.now());
      const target = { outputId: w.item.id, userId: w.item.userId, platform: 'YOUTUBE' as const, attemptId: publication.attemptId };
      await t.throwsAsync(ends.end(target, w.item.jobId, { status: 'published', url: 'https://www.youtube.com/watch?v=x' }), { message: 'injected fault' });
      t.is((await w.outcome()).publication.status, 'uploading');
      t.deepEqual((await w.outcome()).events, []);
      t.true(await ends.end(target, w.item.jobId, { status: 'published', url: 'https://www.youtube.com/watch?v=x' }));
      t.false(await ends.end(target, w.item.jobId, { status: 'published', url: 'https://www.youtube.com/watch?v=x' }));
      t.deepEqual((await w.outcome()).events.map((e) => e.type), ['publish.completed']);
    });
  }
}
