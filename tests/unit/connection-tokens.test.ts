import test from 'ava';
import { AesGcmTokenCipher } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import type { PlatformTokens, SocialPlatformClient } from '../../core/ports/social-platform.port.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { addUser } from '../contract/fixtures.ts';
import { openBackend } from '../support/backends.ts';
import { quietLogger } from '../support/generation-harness.ts';

const OLD = { id: 'k1', key: Buffer.alloc(32, 1) };
const NEW = { id: 'k2', key: Buffer.alloc(32, 2) };
const clock = new SystemClock();

function platform(refresh: (token: string) => Promise<PlatformTokens>) {
  const client = { platform: 'YOUTUBE', refresh } as unknown as SocialPlatformClient;
  return { get: () => client, configured: () => ['YOUTUBE' as const] };
}

test('key rotation: resealStale seals every connection again with the current key; an unknown key is left and logged', async (t) => {
  const backend = await openBackend('memory');
  const before = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  const users = await Promise.all([1, 2, 3].map(() => addUser(backend.repos.users)));
  for (const userId of users) {
    await backend.repos.connections.save(before.sealNew(userId, 'YOUTUBE', { accessToken: `access-${userId}`, refreshToken: `refresh-${userId}`, expiresInSeconds: 3600, accountId: null, scope: null }));
  }
  const rotated = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([NEW, OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  t.is(await rotated.resealStale(2), 3);
  t.is(await rotated.resealStale(2), 0, 'nothing stale is left');
  const onlyNew = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([NEW]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  for (const userId of users) {
    t.is(await onlyNew.accessToken(userId, 'YOUTUBE'), `access-${userId}`);
    const row = (await backend.repos.connections.find(userId, 'YOUTUBE'))!;
    t.true(row.accessToken.startsWith('v1.k2.') && row.refreshToken!.startsWith('v1.k2.'));
    t.is(row.version, 2);
  }
});

test('two workers refreshing an expiring token at once: one refresh is stored, both get a working token', async (t) => {
  const backend = await openBackend('memory');
  const cipher = new AesGcmTokenCipher([NEW]);
  let issued = 0;
  const refresh = async (token: string) => {
    t.is(token, 'refresh-0');
    await new Promise((resolve) => setTimeout(resolve, 20));
    issued += 1;
    return { accessToken: `access-${issued}`, refreshToken: null, expiresInSeconds: 3600, accountId: null, scope: null };
  };
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher, platforms: platform(refresh), clock, logger: quietLogger });
  const userId = await addUser(backend.repos.users);
  await backend.repos.connections.save(tokens.sealNew(userId, 'YOUTUBE', { accessToken: 'access-0', refreshToken: 'refresh-0', expiresInSeconds: 10, accountId: null, scope: null }));
  const [a, b] = await Promise.all([tokens.accessToken(userId, 'YOUTUBE'), tokens.accessToken(userId, 'YOUTUBE')]);
  const row = (await backend.repos.connections.find(userId, 'YOUTUBE'))!;
  t.is(row.version, 2, 'one refresh stored');
  const stored = cipher.open(row.accessToken, `${userId}:YOUTUBE:access`);
  // Pins that the loser of the race uses the stored token, not the one its own refresh got.
  t.is(a, stored);
  t.is(b, stored);
  t.is(cipher.open(row.refreshToken!, `${userId}:YOUTUBE:refresh`), 'refresh-0', 'the refresh token is kept when the platform sends none');
  t.is(await tokens.accessToken(userId, 'YOUTUBE'), stored, 'fresh now: no third refresh');
  t.true(issued <= 2);
});

// Pins that a token without an expiry (the platform gave none) is used as it is, never refreshed.
test('a token the platform gave no expiry is used as it is', async (t) => {
  const backend = await openBackend('memory');
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([NEW]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  const userId = await addUser(backend.repos.users);
  await backend.repos.connections.save(tokens.sealNew(userId, 'YOUTUBE', { accessToken: 'forever', refreshToken: 'refresh', expiresInSeconds: null, accountId: null, scope: null }));
  t.is(await tokens.accessToken(userId, 'YOUTUBE'), 'forever');
  t.is((await backend.repos.connections.find(userId, 'YOUTUBE'))!.version, 1, 'nothing rewritten');
});

// Pins key rotation on use: a connection sealed with an older key is sealed again with the current one when its token is used.
test('key rotation: a token sealed with an older key is sealed again with the current key when it is used', async (t) => {
  const backend = await openBackend('memory');
  const before = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  const userId = await addUser(backend.repos.users);
  await backend.repos.connections.save(before.sealNew(userId, 'YOUTUBE', { accessToken: 'access', refreshToken: 'refresh', expiresInSeconds: 3600, accountId: null, scope: null }));
  const rotated = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([NEW, OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  t.is(await rotated.accessToken(userId, 'YOUTUBE'), 'access');
  const row = (await backend.repos.connections.find(userId, 'YOUTUBE'))!;
  t.true(row.accessToken.startsWith('v1.k2.') && row.refreshToken!.startsWith('v1.k2.'), 'sealed with the current key');
  const onlyNew = new AesGcmTokenCipher([NEW]);
  t.is(onlyNew.open(row.accessToken, `${userId}:YOUTUBE:access`), 'access');
  t.is(onlyNew.open(row.refreshToken!, `${userId}:YOUTUBE:refresh`), 'refresh');
});

// Pins that one connection sealed with a key no longer configured does not stop the rotation of the others.
test('key rotation: a connection sealed with a removed key is left, and the others are still sealed again', async (t) => {
  const backend = await openBackend('memory');
  const GONE = { id: 'k0', key: Buffer.alloc(32, 3) };
  const users = await Promise.all([1, 2, 3].map(() => addUser(backend.repos.users)));
  for (const [index, userId] of users.entries()) {
    const sealer = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([index === 0 ? GONE : OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
    await backend.repos.connections.save(sealer.sealNew(userId, 'YOUTUBE', { accessToken: `access-${index}`, refreshToken: null, expiresInSeconds: 3600, accountId: null, scope: null }));
  }
  const rotated = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([NEW, OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  t.is(await rotated.resealStale(1), 2);
  t.true((await backend.repos.connections.find(users[0]!, 'YOUTUBE'))!.accessToken.startsWith('v1.k0.'), 'left as it was');
  for (const userId of users.slice(1)) t.true((await backend.repos.connections.find(userId, 'YOUTUBE'))!.accessToken.startsWith('v1.k2.'));
});

// Pins that a key rotation sealing the same tokens again while a refresh is on its way to the platform does not
// make the refresh look like another process's: the platform retired the refresh token that was used, so
// dropping its answer would leave the connection with a dead refresh token and a refused access token.
test('a refresh that races a key rotation is stored on the new version, not dropped', async (t) => {
  const backend = await openBackend('memory');
  const before = new ConnectionTokens({ connections: backend.repos.connections, cipher: new AesGcmTokenCipher([OLD]), platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  const userId = await addUser(backend.repos.users);
  await backend.repos.connections.save(before.sealNew(userId, 'YOUTUBE', { accessToken: 'access-0', refreshToken: 'refresh-0', expiresInSeconds: 3600, accountId: null, scope: null }));
  const rotatedCipher = new AesGcmTokenCipher([NEW, OLD]);
  const rotation = new ConnectionTokens({ connections: backend.repos.connections, cipher: rotatedCipher, platforms: platform(async () => t.fail() as never), clock, logger: quietLogger });
  let refreshes = 0;
  const refresh = async (token: string) => {
    refreshes += 1;
    t.is(token, 'refresh-0');
    // The hourly rotation runs while the platform answers.
    t.is(await rotation.resealStale(), 1);
    return { accessToken: 'access-1', refreshToken: 'refresh-1', expiresInSeconds: 3600, accountId: null, scope: null };
  };
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher: rotatedCipher, platforms: platform(refresh), clock, logger: quietLogger });
  t.is(await tokens.accessToken(userId, 'YOUTUBE', { forceRefresh: true }), 'access-1', 'the refreshed token, not the refused one');
  t.is(refreshes, 1);
  const row = (await backend.repos.connections.find(userId, 'YOUTUBE'))!;
  t.is(row.version, 3, 'the reseal, then the refresh');
  t.is(rotatedCipher.open(row.accessToken, `${userId}:YOUTUBE:access`), 'access-1');
  t.is(rotatedCipher.open(row.refreshToken!, `${userId}:YOUTUBE:refresh`), 'refresh-1', 'the refresh token the platform issued is kept');
  t.true(row.accessToken.startsWith('v1.k2.'));
});

// Pins that "the same tokens" means both of them: a refresh that stored the same access token with another refresh
// token is another process's refresh, and the loser does not overwrite it.
test('two refreshes that got the same access token but different refresh tokens: the first one stored stays', async (t) => {
  const backend = await openBackend('memory');
  const cipher = new AesGcmTokenCipher([NEW]);
  let issued = 0;
  const refresh = async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    issued += 1;
    return { accessToken: 'access-same', refreshToken: `refresh-${issued}`, expiresInSeconds: 3600, accountId: null, scope: null };
  };
  const tokens = new ConnectionTokens({ connections: backend.repos.connections, cipher, platforms: platform(refresh), clock, logger: quietLogger });
  const userId = await addUser(backend.repos.users);
  await backend.repos.connections.save(tokens.sealNew(userId, 'YOUTUBE', { accessToken: 'access-same', refreshToken: 'refresh-0', expiresInSeconds: 10, accountId: null, scope: null }));
  await Promise.all([tokens.accessToken(userId, 'YOUTUBE'), tokens.accessToken(userId, 'YOUTUBE')]);
  const row = (await backend.repos.connections.find(userId, 'YOUTUBE'))!;
  t.is(issued, 2);
  t.is(row.version, 2, 'one refresh stored, not overwritten by the other');
  t.is(cipher.open(row.refreshToken!, `${userId}:YOUTUBE:refresh`), 'refresh-1');
});
