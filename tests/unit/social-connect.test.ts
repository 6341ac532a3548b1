import type { AddressInfo } from 'node:net';
import test from 'ava';
import express from 'express';
import nock from 'nock';
import { AesGcmTokenCipher } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { connectPagesRouter } from '../../adapters/http/connect-pages.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import type { SocialPlatform } from '../../core/domain/social.ts';
import type { SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import { CompleteConnection, StartConnection } from '../../core/use-cases/social/connect-platform.use-case.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { ManageConnections } from '../../core/use-cases/social/manage-connections.service.ts';
import { PendingConnections } from '../../core/use-cases/social/pending-connections.service.ts';
import { addUser } from '../contract/fixtures.ts';
import { openBackend } from '../support/backends.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { GOOGLE_OAUTH, platformsOf, TIKTOK_API, tiktokClient, youtubeClient } from '../support/social-platforms.ts';

/**
 * Connecting and disconnecting a platform through the use cases (the routes only pass the query and the
 * state cookie), and the pages the callback lands on. Platforms are nock scopes.
 */

const clock = new SystemClock();
const youtube = youtubeClient;
const tiktok = tiktokClient;

test.before(() => nock.disableNetConnect());
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

async function setup(platforms: SocialPlatforms = platformsOf(youtube, tiktok)) {
  const backend = await openBackend('memory');
  const cache = new MemoryCache();
  const pending = new PendingConnections(cache);
  const cipher = new AesGcmTokenCipher([{ id: 'k1', key: Buffer.alloc(32, 1) }]);
  const redirectUri = (platform: SocialPlatform) => `https://api.example/api/v1/connect/${platform.toLowerCase()}/callback`;
  const tokensFor = (p: SocialPlatforms) => new ConnectionTokens({ connections: backend.repos.connections, cipher, platforms: p, clock, logger: quietLogger });
  const start = new StartConnection({ platforms, pending, redirectUri });
  /** The callback as a server configured with `p` handles it. */
  const complete = (p: SocialPlatforms = platforms) =>
    new CompleteConnection({ platforms: p, pending, connections: backend.repos.connections, tokens: tokensFor(p), redirectUri, logger: quietLogger });
  const manage = (p: SocialPlatforms = platforms) => new ManageConnections({ platforms: p, connections: backend.repos.connections, tokens: tokensFor(p), logger: quietLogger });
  const userId = await addUser(backend.repos.users);
  const begin = async (platform: string) => {
    const started = await start.execute({ userId, platform });
    if (!started.ok) throw new Error(started.message);
    return started.value.state;
  };
  return { backend, cipher, start, complete, manage, userId, begin, tokensFor };
}

/** Any authorization-code exchange at Google or TikTok answers tokens; `isDone()` says whether one was asked. */
const anyExchange = () => ({
  google: nock(GOOGLE_OAUTH).post('/token').reply(200, { access_token: 'ya29.x', refresh_token: 'r', expires_in: 3599 }),
  tiktok: nock(TIKTOK_API).post('/v2/oauth/token/').reply(200, { access_token: 'act.x', refresh_token: 'r', expires_in: 86400, open_id: 'o' }),
});

// Pins the platform binding of a state: a state issued for TikTok completes no YouTube callback, and connects nothing.
test.serial('a state issued for one platform does not complete the callback of another', async (t) => {
  const s = await setup();
  const state = await s.begin('tiktok');
  const exchange = anyExchange();
  const result = await s.complete().execute({ platform: 'youtube', query: { state, code: 'c' }, browserState: state });
  t.like(result, { platform: 'YOUTUBE', failure: 'invalid_state' });
  t.false(exchange.google.isDone() || exchange.tiktok.isDone(), 'no code was exchanged');
  t.deepEqual(await s.backend.repos.connections.listForUser(s.userId), []);
});

// Pins that a platform's error (or an empty code) is a denial: nothing is exchanged, nothing connected.
test.serial('a callback carrying an error, or an empty code, is a denial: nothing is exchanged', async (t) => {
  const s = await setup();
  for (const query of [{ error: 'access_denied', code: 'c' }, { code: '' }]) {
    const state = await s.begin('youtube');
    const exchange = anyExchange();
    t.like(await s.complete().execute({ platform: 'youtube', query: { state, ...query }, browserState: state }), { platform: 'YOUTUBE', failure: 'denied' }, JSON.stringify(query));
    t.false(exchange.google.isDone(), JSON.stringify(query));
    nock.cleanAll();
  }
  t.deepEqual(await s.backend.repos.connections.listForUser(s.userId), []);
});

// Pins a clear failure when the operator removed the platform between the user's start and the callback.
test.serial('a platform no longer configured when its callback arrives fails the callback as exchange_failed', async (t) => {
  const s = await setup();
  const state = await s.begin('youtube');
  const result = await s.complete(platformsOf(tiktok)).execute({ platform: 'youtube', query: { state, code: 'c' }, browserState: state });
  t.like(result, { platform: 'YOUTUBE', userId: s.userId, failure: 'exchange_failed' });
  t.deepEqual(await s.backend.repos.connections.listForUser(s.userId), []);
});

// Pins that a token answer without a usable access token connects nothing (the user is told the exchange failed).
test.serial('a token answer without an access token connects nothing', async (t) => {
  const s = await setup();
  for (const answer of [{ token_type: 'Bearer', expires_in: 3599 }, { access_token: '', refresh_token: 'r', expires_in: 3599 }]) {
    const state = await s.begin('youtube');
    nock(GOOGLE_OAUTH).post('/token').reply(200, answer);
    t.like(await s.complete().execute({ platform: 'youtube', query: { state, code: 'c' }, browserState: state }), { failure: 'exchange_failed' }, JSON.stringify(answer));
  }
  t.deepEqual(await s.backend.repos.connections.listForUser(s.userId), []);
});

// Pins the start's answers: an unknown platform is not found, a known one this server has not configured is not configured.
test.serial('starting a connection: an unknown platform is NOT_FOUND, a platform not configured here is INTEGRATION.NOT_CONFIGURED', async (t) => {
  const s = await setup(platformsOf(youtube));
  t.like(await s.start.execute({ userId: s.userId, platform: 'myspace' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await s.start.execute({ userId: s.userId, platform: 'tiktok' }), { ok: false, code: 'INTEGRATION.NOT_CONFIGURED', message: 'TikTok is not configured on this server' });
  t.like(await s.start.execute({ userId: s.userId, platform: 'YouTube' }), { ok: true });
});

// Pins that disconnecting never fails on the platform's side: a failed revocation, tokens no key opens, a platform removed from the configuration.
test.serial('disconnect deletes the tokens even when the platform cannot revoke them, they cannot be decrypted, or the platform is no longer configured', async (t) => {
  const s = await setup();
  const connect = (platform: SocialPlatform, cipher = s.cipher) =>
    s.backend.repos.connections.save(
      new ConnectionTokens({ connections: s.backend.repos.connections, cipher, platforms: platformsOf(youtube, tiktok), clock, logger: quietLogger }).sealNew(s.userId, platform, {
        accessToken: 'a',
        refreshToken: 'r',
        expiresInSeconds: 3600,
        accountId: null,
        scope: null,
      }),
    );

  await connect('YOUTUBE');
  const revoke = nock(GOOGLE_OAUTH).post('/revoke').reply(503, { error: 'backend_error' });
  t.deepEqual(await s.manage().disconnect({ userId: s.userId, platform: 'youtube' }), { ok: true, value: undefined });
  t.true(revoke.isDone(), 'revocation was asked');
  t.is(await s.backend.repos.connections.find(s.userId, 'YOUTUBE'), null);

  await connect('YOUTUBE', new AesGcmTokenCipher([{ id: 'k0', key: Buffer.alloc(32, 9) }]));
  t.deepEqual(await s.manage().disconnect({ userId: s.userId, platform: 'youtube' }), { ok: true, value: undefined });
  t.is(await s.backend.repos.connections.find(s.userId, 'YOUTUBE'), null);

  await connect('TIKTOK');
  t.deepEqual(await s.manage(platformsOf(youtube)).disconnect({ userId: s.userId, platform: 'tiktok' }), { ok: true, value: undefined });
  t.deepEqual(await s.backend.repos.connections.listForUser(s.userId), []);
});

async function pages(t: import('ava').ExecutionContext) {
  const app = express();
  app.use(connectPagesRouter('https://app.example'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// Pins the landing pages against script injection: only a platform name of letters is shown, the rest is escaped, and no script may run.
test.serial('the connect pages show no markup from the query and forbid scripts', async (t) => {
  const base = await pages(t);
  nock.enableNetConnect(/127\.0\.0\.1/);
  const evil = encodeURIComponent('<script>alert(1)</script>');
  const success = await fetch(`${base}/connect/success.html?platform=${evil}`);
  const html = await success.text();
  t.false(html.includes('<script'), 'no markup from the query');
  t.regex(html, /The platform is connected/);
  t.regex(success.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const failure = await (await fetch(`${base}/connect/failure.html?platform=tiktok&error=${evil}`)).text();
  t.false(failure.includes('<script'));
  t.regex(failure, /TikTok was not connected\. Something went wrong\./);
});
