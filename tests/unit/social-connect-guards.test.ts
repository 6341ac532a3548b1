/**
 * The guards of connecting a social platform (StartConnection, CompleteConnection) beyond
 * tests/unit/social-connect.test.ts: PKCE carried from the start to the exchange, the connection stored for
 * the user who started, callbacks that are no authorization (no state record, no single code), and an
 * unexpected failure kept apart from a platform's refusal. Platforms are nock scopes.
 */
import { createHash, randomUUID } from 'node:crypto';
import test from 'ava';
import nock from 'nock';
import { AesGcmTokenCipher } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import type { SocialPlatform } from '../../core/domain/social.ts';
import type { SocialConnectionRepository } from '../../core/ports/social-connection-repository.port.ts';
import { CompleteConnection, StartConnection } from '../../core/use-cases/social/connect-platform.use-case.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { PendingConnections } from '../../core/use-cases/social/pending-connections.service.ts';
import { addUser } from '../contract/fixtures.ts';
import { openBackend } from '../support/backends.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { formOf, GOOGLE_OAUTH, platformsOf, tiktokClient, youtubeClient, type FormBody } from '../support/social-platforms.ts';

const clock = new SystemClock();
const youtube = youtubeClient;
const tiktok = tiktokClient;

test.before(() => nock.disableNetConnect());
test.afterEach.always(() => nock.cleanAll());
test.after.always(() => nock.enableNetConnect());

async function setup(options: { connections?: (real: SocialConnectionRepository) => SocialConnectionRepository } = {}) {
  const backend = await openBackend('memory');
  const platforms = platformsOf(youtube, tiktok);
  const pending = new PendingConnections(new MemoryCache());
  const cipher = new AesGcmTokenCipher([{ id: 'k1', key: Buffer.alloc(32, 1) }]);
  const redirectUri = (platform: SocialPlatform) => `https://api.example/api/v1/connect/${platform.toLowerCase()}/callback`;
  const connections = options.connections ? options.connections(backend.repos.connections) : backend.repos.connections;
  const tokens = new ConnectionTokens({ connections, cipher, platforms, clock, logger: quietLogger });
  const start = new StartConnection({ platforms, pending, redirectUri });
  const complete = new CompleteConnection({ platforms, pending, connections, tokens, redirectUri, logger: quietLogger });
  const alice = await addUser(backend.repos.users);
  const bob = await addUser(backend.repos.users);
  return { backend, start, complete, alice, bob };
}

/** Google's token endpoint: every exchange's form is kept in `seen`. */
function googleExchange() {
  const seen: FormBody[] = [];
  const scope = nock(GOOGLE_OAUTH)
    .post('/token')
    .reply(async (request: Request) => {
      seen.push(await formOf(request));
      return [200, { access_token: 'ya29.guarded', refresh_token: '1//r', expires_in: 3599, token_type: 'Bearer' }];
    });
  return { scope, seen };
}

// Pins PKCE end to end and the user binding: the start keeps the verifier of the URL's challenge, the exchange sends it, and the connection is the starter's.
test.serial("a YouTube connection sends the start's PKCE verifier with the code and is stored for the user who started it", async (t) => {
  const s = await setup();
  const started = await s.start.execute({ userId: s.alice, platform: 'youtube' });
  if (!started.ok) return t.fail(started.message);
  const challenge = new URL(started.value.url).searchParams.get('code_challenge');
  if (!challenge) return t.fail('no PKCE challenge in the authorization URL');
  const exchange = googleExchange();
  const result = await s.complete.execute({ platform: 'youtube', query: { state: started.value.state, code: '4/code' }, browserState: started.value.state });
  t.deepEqual(result, { platform: 'YOUTUBE', userId: s.alice });
  t.is(exchange.seen.length, 1);
  t.is(exchange.seen[0]!.code, '4/code');
  t.is(typeof exchange.seen[0]!.code_verifier, 'string');
  t.is(createHash('sha256').update(exchange.seen[0]!.code_verifier ?? '').digest('base64url'), challenge);
  t.deepEqual((await s.backend.repos.connections.listForUser(s.alice)).map((connection) => connection.platform), ['YOUTUBE']);
  t.deepEqual(await s.backend.repos.connections.listForUser(s.bob), []);
});

// Pins the refusal of a state with no record (never issued, expired) as a failure value, not a crash of the callback.
test.serial('a state with no pending connection behind it is invalid_state; nothing is exchanged', async (t) => {
  const s = await setup();
  const exchange = googleExchange();
  const state = `never-issued-${randomUUID()}`;
  t.deepEqual(await s.complete.execute({ platform: 'youtube', query: { state, code: 'c' }, browserState: state }), {
    platform: 'YOUTUBE',
    failure: 'invalid_state',
    cause: 'unknown, expired or used state',
  });
  t.false(exchange.scope.isDone());
});

// Pins that only a single non-empty code string is exchanged: no code, or a repeated code parameter (an array), is a denial.
test.serial('a callback without a code, or with the code given twice, is a denial: nothing is exchanged or connected', async (t) => {
  const s = await setup();
  for (const code of [undefined, ['a', 'b']]) {
    const started = await s.start.execute({ userId: s.alice, platform: 'youtube' });
    if (!started.ok) return t.fail(started.message);
    const exchange = googleExchange();
    const query = { state: started.value.state, ...(code === undefined ? {} : { code }) };
    t.deepEqual(await s.complete.execute({ platform: 'youtube', query, browserState: started.value.state }), { platform: 'YOUTUBE', userId: s.alice, failure: 'denied', cause: 'no code' }, JSON.stringify(code));
    t.false(exchange.scope.isDone(), JSON.stringify(code));
    nock.cleanAll();
  }
  t.deepEqual(await s.backend.repos.connections.listForUser(s.alice), []);
});

// Pins that a failure of ours (the store) is an error for the caller (500 with a request id), not reported as the platform's refusal.
test.serial('a store failure after the exchange is thrown, not turned into exchange_failed', async (t) => {
  const s = await setup({
    connections: (real) =>
      new Proxy(real, {
        get: (target, property, receiver) =>
          property === 'save'
            ? async () => {
                throw new Error('database is down');
              }
            : Reflect.get(target, property, receiver),
      }),
  });
  const started = await s.start.execute({ userId: s.alice, platform: 'youtube' });
  if (!started.ok) return t.fail(started.message);
  googleExchange();
  await t.throwsAsync(s.complete.execute({ platform: 'youtube', query: { state: started.value.state, code: 'c' }, browserState: started.value.state }), { message: 'database is down' });
});
