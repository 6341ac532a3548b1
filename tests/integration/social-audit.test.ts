import { randomUUID } from 'node:crypto';
import test from 'ava';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import { addUser } from '../contract/fixtures.ts';
import { backendPerDatabase, publicationRequester, type RequesterOptions } from '../support/publication-requests.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';

/**
 * Guards of the publish request (who may publish what, to which connected platforms) that
 * social-publishing.test.ts and social.test.ts leave undefended. The use case runs on the real databases.
 */

const clock = new SystemClock();
const backendFor = backendPerDatabase();
const requester = async (db: TestDatabase, options: RequesterOptions = {}) => publicationRequester(await backendFor(db), options);

for (const db of DATABASES) {
  // Pins ownership: another user's output (or one that does not exist) answers NOT_FOUND and records nothing.
  test.serial(`[${db}] publishing another user's output answers NOT_FOUND and records nothing`, async (t) => {
    const r = await requester(db);
    const stranger = await addUser(r.backend.repos.users);
    for (const platform of ['YOUTUBE', 'TIKTOK'] as const) {
      await r.backend.repos.connections.save({ userId: stranger, platform, accessToken: 'v1.k.a', refreshToken: null, expiresAt: null, accountId: null, scope: null, createdAt: clock.now(), updatedAt: clock.now() });
    }
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }, { userId: stranger }), { ok: false, code: 'NOT_FOUND', message: 'No such output' });
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }, { outputId: randomUUID() }), { ok: false, code: 'NOT_FOUND', message: 'No such output' });
    t.deepEqual(await r.backend.repos.publications.listForOutput(r.item.id), []);
    t.deepEqual(await r.queued(), []);
  });

  // Pins that an output id in capitals (as some clients send UUIDs) is the same output, and the publication is recorded on its stored id.
  test.serial(`[${db}] an output id in capitals publishes that output`, async (t) => {
    const r = await requester(db);
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }, { outputId: r.item.id.toUpperCase() }), { ok: true, value: { message: 'Publishing to YouTube has started', started: ['YOUTUBE'] } });
    t.like(await r.backend.repos.publications.find(r.item.id, 'YOUTUBE'), { outputId: r.item.id, status: 'pending' });
    t.is((await r.queued()).length, 1);
  });

  // Pins that only videos are published: an image answers a validation failure naming its type, and nothing is recorded or queued.
  test.serial(`[${db}] an image output is refused and nothing is recorded`, async (t) => {
    const r = await requester(db, { mimeType: 'image/png' });
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }), {
      ok: false,
      code: 'VALIDATION.FAILED',
      message: 'YouTube accepts videos only; this output is image/png',
      details: [{ field: 'platforms', message: 'YouTube accepts videos only; this output is image/png' }],
    });
    t.deepEqual(await r.backend.repos.publications.listForOutput(r.item.id), []);
    t.deepEqual(await r.queued(), []);
  });

  // Pins that a platform the user has not connected is refused (for every platform named), and that nothing is recorded for the connected one either.
  test.serial(`[${db}] a platform that is not connected is refused and nothing is recorded`, async (t) => {
    const r = await requester(db, { connected: ['YOUTUBE'] });
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE', 'TIKTOK'] }), {
      ok: false,
      code: 'VALIDATION.FAILED',
      message: 'TikTok is not connected: connect it first (GET /connect/tiktok)',
      details: [{ field: 'platforms', message: 'TikTok is not connected: connect it first (GET /connect/tiktok)' }],
    });
    t.deepEqual(await r.backend.repos.publications.listForOutput(r.item.id), []);
    t.deepEqual(await r.queued(), []);
  });

  // Pins that an unknown platform name is refused by name (not taken as a platform the server happens to answer for).
  test.serial(`[${db}] an unknown platform is refused by name`, async (t) => {
    const r = await requester(db);
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE', 'FACEBOOK'] }), {
      ok: false,
      code: 'VALIDATION.FAILED',
      message: 'Validation failed',
      details: [{ field: 'platforms[1]', message: 'unknown platform "FACEBOOK" (supported: YOUTUBE, TIKTOK)' }],
    });
    t.deepEqual(await r.backend.repos.publications.listForOutput(r.item.id), []);
  });

  // Pins the defaults of what is published: private unless asked, the file's name as title, an empty description; given text is trimmed.
  test.serial(`[${db}] a publication is private by default, titled after the file, and its given text trimmed`, async (t) => {
    const r = await requester(db);
    t.true((await r.ask({ platforms: ['YOUTUBE'] })).ok);
    t.like(await r.backend.repos.publications.find(r.item.id, 'YOUTUBE'), { privacy: 'private', title: 'clip', description: '' });
    t.true((await r.ask({ platforms: ['TIKTOK'], title: '  My clip  ', description: '\tAbout it \n', privacy: 'public' })).ok);
    t.like(await r.backend.repos.publications.find(r.item.id, 'TIKTOK'), { privacy: 'public', title: 'My clip', description: 'About it' });
    const queued = (await r.queued()).map((entry) => entry.message.body as { platforms?: string[] });
    t.deepEqual(queued.flatMap((body) => body.platforms ?? []).sort(), ['TIKTOK', 'YOUTUBE']);
  });

  // Pins that an empty or blank title (YouTube refuses a video without a title, after the request was accepted) is published under the file's name.
  test.serial(`[${db}] an empty or blank title is replaced by the file's name`, async (t) => {
    const r = await requester(db);
    t.true((await r.ask({ platforms: ['YOUTUBE'], title: '   ' })).ok);
    t.like(await r.backend.repos.publications.find(r.item.id, 'YOUTUBE'), { title: 'clip' });
    t.true((await r.ask({ platforms: ['TIKTOK'], title: '' })).ok);
    t.like(await r.backend.repos.publications.find(r.item.id, 'TIKTOK'), { title: 'clip' });
  });

  // Pins the answer's first letter in capitals when only kept publications are named.
  test.serial(`[${db}] a repeated request's answer starts with a capital`, async (t) => {
    const r = await requester(db);
    t.true((await r.ask({ platforms: ['YOUTUBE'] })).ok);
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }), { ok: true, value: { message: 'YouTube is already in progress', started: [] } });
    const youtube = (await r.backend.repos.publications.find(r.item.id, 'YOUTUBE'))!;
    t.true(await r.backend.repos.publications.begin(r.item.id, 'YOUTUBE', youtube.attemptId, clock.now()));
    t.true(await r.backend.repos.publications.end(r.item.id, 'YOUTUBE', youtube.attemptId, { status: 'published', url: 'https://www.youtube.com/watch?v=v' }, clock.now()));
    t.deepEqual(await r.ask({ platforms: ['YOUTUBE'] }), { ok: true, value: { message: 'Already published to YouTube', started: [] } });
  });
}
