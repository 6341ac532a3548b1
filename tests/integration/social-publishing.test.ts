import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import test from 'ava';
import { AesGcmTokenCipher } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import { publishMessage } from '../../core/domain/messages.ts';
import type { HistoryRepository } from '../../core/ports/history-repository.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { PublicationRepository } from '../../core/ports/publication-repository.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import { PlatformError, type PublishRequest, type SocialPlatformClient } from '../../core/ports/social-platform.port.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { PublicationEnds } from '../../core/use-cases/social/publication-ends.service.ts';
import { FailDeadLetteredPublication, publicationView, RunPublication } from '../../core/use-cases/social/run-publication.use-case.ts';
import { addUser, historyItem } from '../contract/fixtures.ts';
import { backendPerDatabase, publicationRequester } from '../support/publication-requests.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { quietLogger } from '../support/generation-harness.ts';

/**
 * Guards of the publish request and of the worker's publish handler that the other social suites leave
 * undefended. The platform is a stand-in client (what it is asked, what it answers); the use cases run on
 * the real databases.
 */

const SIZE = 1000;
const FILE = Buffer.from(Array.from({ length: SIZE }, (_, i) => i % 251));
const clock = new SystemClock();

/** Every interval started in this file is cleared at its end: a leaked heartbeat fails its test instead of keeping the worker alive. */
const intervals: ReturnType<typeof setInterval>[] = [];
const setIntervalOf = globalThis.setInterval;
test.before(() => {
  globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
    const timer = setIntervalOf(...args);
    intervals.push(timer);
    return timer;
  }) as typeof setInterval;
});
test.after.always(() => {
  globalThis.setInterval = setIntervalOf;
  for (const timer of intervals) clearInterval(timer);
});

const backendFor = backendPerDatabase();

interface WorldOptions {
  /** What the platform does with a publish call (default: answers a URL). */
  publish?: (request: PublishRequest) => Promise<{ url: string | null }>;
  /** Wraps the storage the worker reads the file from. */
  storage?: (real: MemoryObjectStorage) => ObjectStorage;
  /** Wraps the history the worker reads the output from. */
  history?: (real: HistoryRepository) => HistoryRepository;
  /** Wraps the publications the worker reads and moves. */
  publications?: (real: PublicationRepository) => PublicationRepository;
  visibilitySeconds?: number;
  /** What extending the message's visibility does (default: succeeds). */
  extendVisibility?: () => Promise<void>;
  logger?: Logger;
}

/** A user with a stored video, a YouTube connection and one pending publication; the worker's handlers on it. */
async function world(db: TestDatabase, options: WorldOptions = {}) {
  const backend = await backendFor(db);
  const storage = new MemoryObjectStorage();
  const userId = await addUser(backend.repos.users);
  const item = historyItem(userId, randomUUID(), { mimeType: 'video/mp4', fileName: 'clip.mp4', sizeBytes: SIZE });
  await backend.repos.history.add(item);
  await storage.put(item.storageKey, FILE, { contentType: 'video/mp4' });
  const calls = { publish: 0 };
  const client = {
    platform: 'YOUTUBE',
    publish: async (request: PublishRequest) => {
      calls.publish += 1;
      return (options.publish ?? (async () => ({ url: 'https://www.youtube.com/watch?v=v' })))(request);
    },
  } as unknown as SocialPlatformClient;
  const platforms = { get: () => client, configured: () => ['YOUTUBE' as const] };
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([{ id: 'k1', key: Buffer.alloc(32, 1) }]), platforms, clock, logger: quietLogger });
  await backend.repos.connections.save(tokens.sealNew(userId, 'YOUTUBE', { accessToken: 'token-1', refreshToken: 'refresh-1', expiresInSeconds: 3600, accountId: null, scope: null }));
  const attemptId = randomUUID();
  const now = clock.now();
  await backend.repos.publications.request({ outputId: item.id, userId, platform: 'YOUTUBE', status: 'pending', attemptId, title: 'Clip', description: '', privacy: 'private', url: null, error: null, remoteRef: null, createdAt: now, updatedAt: now });
  const body = publishMessage({ outputId: item.id, userId, platform: 'YOUTUBE', attemptId }, 'local').body;
  const ends = new PublicationEnds({ uow: backend.uow, events: new UserEventLog({ bus: new InProcessEventBus(), clock, logger: quietLogger }), clock, logger: quietLogger });
  const history = options.history?.(backend.repos.history) ?? backend.repos.history;
  const run = new RunPublication({
    publications: options.publications?.(backend.repos.publications) ?? backend.repos.publications,
    history,
    storage: options.storage?.(storage) ?? storage,
    platforms,
    tokens,
    ends,
    clock,
    logger: options.logger ?? quietLogger,
    maxAttempts: 5,
    visibilitySeconds: options.visibilitySeconds ?? 30,
  });
  const deadLetters = new FailDeadLetteredPublication({ history, ends, logger: quietLogger });
  const extended = { count: 0 };
  const message = (attempt: number, messageBody: unknown = body): DeliveredMessage => ({
    id: attemptId,
    taskType: 'publish',
    environment: 'local',
    body: messageBody,
    attempt,
    extendVisibility: async () => {
      extended.count += 1;
      await options.extendVisibility?.();
    },
  });
  const outcome = async () => ({
    publication: (await backend.repos.publications.find(item.id, 'YOUTUBE'))!,
    events: (await backend.repos.events.listSince(userId, 0, 100)).map((stored) => stored.event),
  });
  return { backend, storage, userId, item, run, deadLetters, message, outcome, calls, extended };
}

const bytesOf = async (source: AsyncIterable<Uint8Array>): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
};

/** A request use case over the backend, for a user with YouTube and TikTok connected. */
const requester = async (db: TestDatabase, fileName = 'clip.mp4') => publicationRequester(await backendFor(db), { fileName, sizeBytes: SIZE });

for (const db of DATABASES) {
  // Pins that a malformed message goes to the dead letters (where an operator sees it) instead of crashing the handler on every redelivery.
  test.serial(`[${db}] a message that is no publish body is dead-lettered; its dead letter ends nothing`, async (t) => {
    const w = await world(db);
    t.deepEqual(await w.run.execute(w.message(1, { nonsense: true })), { action: 'dead', reason: 'not a publish message body' });
    await t.notThrowsAsync(w.deadLetters.execute(w.message(1, { nonsense: true }), 'not a publish message body'));
    t.is(w.calls.publish, 0);
    t.like((await w.outcome()).publication, { status: 'pending' });
  });

  // Pins that a publish message whose output was deleted meanwhile is dropped, not retried until it fails on a file that is gone; and its dead letter does not crash.
  test.serial(`[${db}] a publication whose output is gone by the time the worker reads it is acknowledged, posts nothing and tells nobody`, async (t) => {
    const w = await world(db, { history: (real) => ({ ...real, findForUser: async () => null }) as HistoryRepository });
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    t.is(w.calls.publish, 0);
    await t.notThrowsAsync(w.deadLetters.execute(w.message(6), 'delivered 6 times'));
    t.deepEqual((await w.outcome()).events, []);
  });

  // Pins that a worker whose attempt was ended (dead-lettered, replaced) stops at once: it is not retried to post an attempt that is no longer its own.
  test.serial(`[${db}] a worker that loses its attempt while saving the upload reference is acknowledged at its first delivery, not retried`, async (t) => {
    let deadLetters: FailDeadLetteredPublication | null = null;
    let message: ((attempt: number) => DeliveredMessage) | null = null;
    const w = await world(db, {
      publish: async (request) => {
        await deadLetters!.execute(message!(6), 'delivered 6 times');
        await request.saveRemoteRef('{"session":"s"}');
        return { url: 'https://www.youtube.com/watch?v=never' };
      },
    });
    deadLetters = w.deadLetters;
    message = w.message;
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'failed', remoteRef: null });
    t.deepEqual(events.map((e) => e.type), ['publish.failed']);
  });

  // Pins that a file deleted while the upload starts fails the publication at once with a reason the user can read, instead of five retries ending in a TypeError.
  test.serial(`[${db}] a file gone between its size check and its reading ends the publication at once: the output file is no longer stored`, async (t) => {
    const w = await world(db, {
      storage: (real) => ({ head: (key: string) => real.head(key), get: async () => null }) as unknown as ObjectStorage,
      publish: async (request) => {
        await bytesOf(await request.file.read(0));
        return { url: 'https://www.youtube.com/watch?v=never' };
      },
    });
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    t.like((await w.outcome()).publication, { status: 'failed', error: 'the output file is no longer stored' });
  });

  // Pins the resume offset across chunks: a resumed upload sends exactly the bytes from the offset on, whatever chunks storage delivers (else the posted video is corrupt).
  test.serial(`[${db}] a resumed upload reads the file from its offset across many stored chunks`, async (t) => {
    const read: Record<number, Buffer> = {};
    const w = await world(db, {
      storage: (real) =>
        ({
          head: (key: string) => real.head(key),
          get: async (key: string) => {
            const object = await real.get(key);
            if (!object) return null;
            const chunks = Array.from({ length: SIZE / 100 }, (_, i) => FILE.subarray(i * 100, (i + 1) * 100));
            return { ...object, body: Readable.from(chunks) };
          },
        }) as unknown as ObjectStorage,
      publish: async (request) => {
        for (const start of [0, 450, 500, 999]) read[start] = await bytesOf(await request.file.read(start));
        return { url: 'https://www.youtube.com/watch?v=v' };
      },
    });
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    for (const start of [0, 450, 500, 999]) t.true(read[start]!.equals(FILE.subarray(start)), `from ${start}`);
  });

  // Pins the heartbeat's floor: a tiny visibility timeout must not turn the heartbeat into a busy loop against the queue.
  test.serial(`[${db}] the visibility heartbeat is never more often than once a second`, async (t) => {
    const w = await world(db, {
      visibilitySeconds: 0.003,
      publish: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { url: 'https://www.youtube.com/watch?v=v' };
      },
    });
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    t.is(w.extended.count, 0);
  });

  // Pins the begin fence: an attempt that ends (dead-lettered) between the worker's read and its start is not posted.
  test.serial(`[${db}] an attempt that ends between the worker's read of it and its start posts nothing`, async (t) => {
    let end: (() => Promise<void>) | null = null;
    const w = await world(db, {
      publications: (real) =>
        Object.assign(Object.create(real) as PublicationRepository, {
          find: async (...args: Parameters<PublicationRepository['find']>) => {
            const read = await real.find(...args);
            await end!();
            return read;
          },
        }),
    });
    end = () => w.deadLetters.execute(w.message(6), 'delivered 6 times');
    t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
    t.is(w.calls.publish, 0, 'nothing was posted');
    const { publication, events } = await w.outcome();
    t.like(publication, { status: 'failed' });
    t.deepEqual(events.map((e) => e.type), ['publish.failed']);
  });

  // Pins the publications list clients read: a link only once published, an error only once failed (no "url": null to follow).
  test.serial(`[${db}] the publications view has a url only when published and an error only when failed`, async (t) => {
    const failing = await world(db, {
      publish: async () => {
        throw new PlatformError('rejected', 'Media type not supported');
      },
    });
    await failing.run.execute(failing.message(1));
    const failed = (await failing.outcome()).publication;
    t.deepEqual(Object.keys(publicationView(failed)).sort(), ['error', 'platform', 'status', 'updatedAt']);
    t.like(publicationView(failed), { status: 'failed', error: 'Media type not supported' });
    const published = await world(db);
    await published.run.execute(published.message(1));
    const view = publicationView((await published.outcome()).publication);
    t.deepEqual(Object.keys(view).sort(), ['platform', 'status', 'updatedAt', 'url']);
    t.like(view, { status: 'published', url: 'https://www.youtube.com/watch?v=v' });
  });

  // Pins the request's parsing of what clients send: a body that is not an object, null text fields, a platform named twice.
  test.serial(`[${db}] publish answers a body that is no object with a validation failure, takes null text fields, and counts a platform named twice once`, async (t) => {
    const r = await requester(db);
    for (const body of [null, undefined, 'YOUTUBE', 7]) t.like(await r.ask(body), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'platforms' }] }, JSON.stringify(body));
    const started = await r.ask({ platforms: ['YOUTUBE', 'youtube'], title: null, description: null });
    t.deepEqual(started, { ok: true, value: { message: 'Publishing to YouTube has started', started: ['YOUTUBE'] } });
    t.like(await r.backend.repos.publications.find(r.item.id, 'YOUTUBE'), { title: 'clip', description: '' });
    t.is((await r.queued()).length, 1);
  });

  // Pins the field limits with every platform connected (so no other refusal hides them): text over its length, an unknown privacy, an unlisted TikTok post.
  test.serial(`[${db}] publish refuses a title or description over its limit, an unknown privacy and TikTok unlisted, and records nothing`, async (t) => {
    const r = await requester(db);
    t.like(await r.ask({ platforms: ['YOUTUBE'], title: 'x'.repeat(101) }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'title', message: 'must be at most 100 characters' }] });
    t.like(await r.ask({ platforms: ['YOUTUBE'], description: 'x'.repeat(5001) }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'description', message: 'must be at most 5000 characters' }] });
    t.like(await r.ask({ platforms: ['YOUTUBE'], privacy: 'secret' }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'privacy', message: 'must be one of private, unlisted, public' }] });
    t.like(await r.ask({ platforms: ['YOUTUBE', 'TIKTOK'], privacy: 'unlisted' }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'privacy', message: 'TIKTOK has no unlisted posts (use private or public)' }] });
    t.deepEqual(await r.backend.repos.publications.listForOutput(r.item.id), [], 'nothing was recorded');
    t.deepEqual(await r.queued(), []);
  });

  // Pins the answer when nothing new started: it says what is already there, without an empty "Publishing to  has started".
  test.serial(`[${db}] a repeated request answers only what is already in progress or published`, async (t) => {
    const r = await requester(db);
    t.true((await r.ask({ platforms: ['YOUTUBE', 'TIKTOK'] })).ok);
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE', 'TIKTOK'] }), { ok: true, value: { message: 'YouTube is already in progress; TikTok is already in progress', started: [] } });
    const youtube = (await r.backend.repos.publications.find(r.item.id, 'YOUTUBE'))!;
    t.true(await r.backend.repos.publications.begin(r.item.id, 'YOUTUBE', youtube.attemptId, clock.now()));
    t.true(await r.backend.repos.publications.end(r.item.id, 'YOUTUBE', youtube.attemptId, { status: 'published', url: 'https://www.youtube.com/watch?v=v' }, clock.now()));
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }), { ok: true, value: { message: 'Already published to YouTube', started: [] } });
  });

  // Pins the default title: a file named only by its extension still gets a title, and a long file name is cut to the platforms' limit (else YouTube refuses the upload).
  test.serial(`[${db}] the default title of a file without a name is Untitled; of a long name, its first 100 characters`, async (t) => {
    const bare = await requester(db, '.mp4');
    t.true((await bare.ask({ platforms: ['YOUTUBE'] })).ok);
    t.like(await bare.backend.repos.publications.find(bare.item.id, 'YOUTUBE'), { title: 'Untitled' });
    const long = await requester(db, `${'n'.repeat(150)}.mp4`);
    t.true((await long.ask({ platforms: ['YOUTUBE'] })).ok);
    t.like(await long.backend.repos.publications.find(long.item.id, 'YOUTUBE'), { title: 'n'.repeat(100) });
  });
}

// Pins that the heartbeat stops with the handler: a finished publication's message is not kept extended forever (one timer leaked per publication).
test.serial('the visibility heartbeat stops when the handler returns', async (t) => {
  const w = await world(DATABASES[0]!, { visibilitySeconds: 0.003 });
  t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
  await new Promise((resolve) => setTimeout(resolve, 1300));
  t.is(w.extended.count, 0);
});

// Pins that a heartbeat the queue refuses is logged, not left as an unhandled rejection (which ends the worker process).
test.serial('a heartbeat the queue refuses is logged and the publication goes on', async (t) => {
  const warnings: string[] = [];
  const logger: Logger = { ...quietLogger, warn: (message) => void warnings.push(message), child: () => logger };
  const w = await world(DATABASES[0]!, {
    visibilitySeconds: 0.003,
    logger,
    extendVisibility: async () => {
      throw new Error('channel closed');
    },
    publish: async () => {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      return { url: 'https://www.youtube.com/watch?v=v' };
    },
  });
  t.deepEqual(await w.run.execute(w.message(1)), { action: 'ack' });
  t.is(w.extended.count, 1);
  t.deepEqual(warnings, ['publish heartbeat: visibility not extended']);
  t.like((await w.outcome()).publication, { status: 'published' });
});
