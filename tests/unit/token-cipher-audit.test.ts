import test from 'ava';
import { AesGcmTokenCipher, parseTokenKeys } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { SystemClock } from '../../adapters/system/system-clock.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { SocialConnectionRepository } from '../../core/ports/social-connection-repository.port.ts';
import { PlatformError, type PlatformTokens, type SocialPlatformClient, type SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { addUser } from '../contract/fixtures.ts';
import { openBackend } from '../support/backends.ts';
import { quietLogger } from '../support/generation-harness.ts';

/** Guards of the token cipher and of ConnectionTokens that token-cipher.test.ts and connection-tokens.test.ts leave undefended. */

const OLD = { id: 'k1', key: Buffer.alloc(32, 1) };
const NEW = { id: 'k2', key: Buffer.alloc(32, 2) };
const HEX = 'ab'.repeat(32);
const clock = new SystemClock();

// Pins that GCM authentication is checked (decipher.final): altered ciphertext, a wrong context or another key under the same id never opens.
test('a tampered, wrongly bound or wrong-key ciphertext never decrypts', (t) => {
  const cipher = new AesGcmTokenCipher([NEW]);
  const sealed = cipher.seal('ya29.secret-token', 'u1:YOUTUBE:access');
  const parts = sealed.split('.');
  const body = Buffer.from(parts[4]!, 'base64url');
  body[body.length - 1] = body[body.length - 1]! ^ 0x20;
  t.throws(() => cipher.open([...parts.slice(0, 4), body.toString('base64url')].join('.'), 'u1:YOUTUBE:access'), undefined, 'altered ciphertext');
  t.throws(() => cipher.open(sealed, 'u2:YOUTUBE:access'), undefined, 'another row');
  t.throws(() => new AesGcmTokenCipher([{ id: 'k2', key: Buffer.alloc(32, 7) }]).open(sealed, 'u1:YOUTUBE:access'), undefined, 'another key under the same id');
  t.is(cipher.open(sealed, 'u1:YOUTUBE:access'), 'ya29.secret-token');
});

// Pins that the first configured key seals and that only tokens sealed by an older key are stale.
test('the first key seals; a token of the current key is not stale, one of an older key is', (t) => {
  const rotated = new AesGcmTokenCipher([NEW, OLD]);
  const sealed = rotated.seal('token', 'c');
  t.true(sealed.startsWith('v1.k2.'));
  t.false(rotated.isStale(sealed));
  t.true(rotated.isStale(new AesGcmTokenCipher([OLD]).seal('token', 'c')));
});

// Pins TOKEN_ENCRYPTION_KEY parsing: a derived id is stable across deploys (literal), a trailing comma is harmless, spaces are trimmed,
// an empty or over-long id and a key that is not a key are refused.
test('TOKEN_ENCRYPTION_KEY: stable derived ids, lenient separators, strict ids and keys', (t) => {
  const base64 = Buffer.alloc(32, 9).toString('base64');
  t.deepEqual(parseTokenKeys(`  ${base64} ,`), { keys: [{ id: '8c0cc17a', key: Buffer.alloc(32, 9) }] });
  t.deepEqual(parseTokenKeys(`k2:${HEX}`), { keys: [{ id: 'k2', key: Buffer.from(HEX, 'hex') }] });
  t.deepEqual(parseTokenKeys(`:${HEX}`), { problem: `entry 1 has a key id that is not 1 to 32 letters, digits, '-' or '_'` });
  t.deepEqual(parseTokenKeys(`${'a'.repeat(33)}:${HEX}`), { problem: `entry 1 has a key id that is not 1 to 32 letters, digits, '-' or '_'` });
  t.deepEqual(parseTokenKeys(`k2:${HEX},k3:not-a-key`), { problem: 'entry 2 is not 32 bytes as 64 hex characters or base64' });
});

function platforms(refresh: (token: string) => Promise<PlatformTokens>): SocialPlatforms {
  const client = { platform: 'YOUTUBE', refresh } as unknown as SocialPlatformClient;
  return { get: () => client, configured: () => ['YOUTUBE'] };
}
const noRefresh = (t: { fail: () => void }) => platforms(async () => (t.fail(), null as never));
const tokensOf = (access: string, refresh: string | null, expiresInSeconds: number | null): PlatformTokens => ({ accessToken: access, refreshToken: refresh, expiresInSeconds, accountId: null, scope: null });

async function setup(options: { cipher?: AesGcmTokenCipher; platforms: SocialPlatforms; connections?: (real: SocialConnectionRepository) => SocialConnectionRepository; logger?: Logger }) {
  const backend = await openBackend('memory');
  const cipher = options.cipher ?? new AesGcmTokenCipher([NEW]);
  const connections = options.connections ? options.connections(backend.repos.connections) : backend.repos.connections;
  const tokens = new ConnectionTokens({ connections, cipher, platforms: options.platforms, clock, logger: options.logger ?? quietLogger });
  const userId = await addUser(backend.repos.users);
  return { backend, cipher, tokens, userId, row: async () => (await backend.repos.connections.find(userId, 'YOUTUBE'))! };
}

// Pins what revocation takes: the refresh token when there is one (revoking it ends the grant), else the access token.
test('revocable: the refresh token when there is one, else the access token', async (t) => {
  const s = await setup({ platforms: noRefresh(t) });
  await s.backend.repos.connections.save(s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('access-1', 'refresh-1', 3600)));
  t.is(s.tokens.revocable(await s.row()), 'refresh-1');
  const other = await addUser(s.backend.repos.users);
  await s.backend.repos.connections.save(s.tokens.sealNew(other, 'YOUTUBE', tokensOf('access-2', null, 3600)));
  t.is(s.tokens.revocable((await s.backend.repos.connections.find(other, 'YOUTUBE'))!), 'access-2');
});

// Pins the expiry stored from expiresInSeconds (seconds, not milliseconds): a one-hour token is used as it is, not refreshed at once.
test('a new connection expires expiresInSeconds from now and is used without a refresh', async (t) => {
  const s = await setup({ platforms: noRefresh(t) });
  const before = Date.now();
  await s.backend.repos.connections.save(s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('access', 'refresh', 3600)));
  const expires = (await s.row()).expiresAt!.getTime();
  t.true(expires >= before + 3_600_000 && expires <= Date.now() + 3_600_000, String(expires - before));
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE'), 'access');
});

// Pins the user-facing refusal of an expired token without a refresh token: it says to connect again (and calls no platform).
test('an expired token without a refresh token asks the user to connect again', async (t) => {
  const s = await setup({ platforms: noRefresh(t) });
  await s.backend.repos.connections.save(s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('access', null, 10)));
  const error = await t.throwsAsync(s.tokens.accessToken(s.userId, 'YOUTUBE'));
  t.true(error instanceof PlatformError);
  t.like(error, { kind: 'unauthorized', message: 'the YouTube authorization expired; connect YouTube again' });
});

// Pins that an expiring token of a platform no longer configured is an `unauthorized` PlatformError, not a TypeError.
test('an expiring token of a platform that is no longer configured is unauthorized', async (t) => {
  const s = await setup({ platforms: { get: () => null, configured: () => [] } });
  await s.backend.repos.connections.save(s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('access', 'refresh', 10)));
  const error = await t.throwsAsync(s.tokens.accessToken(s.userId, 'YOUTUBE'));
  t.true(error instanceof PlatformError);
  t.like(error, { kind: 'unauthorized', message: 'YouTube is not configured' });
});

// Pins that a refresh which sends no new refresh token keeps the old one (else the connection dies at the next expiry).
test('a refresh without a new refresh token keeps the old one, and stores the new expiry', async (t) => {
  let calls = 0;
  const s = await setup({ platforms: platforms(async (token) => (calls++, t.is(token, 'refresh-0'), tokensOf('access-1', null, 3600))) });
  await s.backend.repos.connections.save(s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('access-0', 'refresh-0', 10)));
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE'), 'access-1');
  const row = await s.row();
  t.is(s.cipher.open(row.refreshToken!, `${s.userId}:YOUTUBE:refresh`), 'refresh-0');
  t.true(row.expiresAt!.getTime() > Date.now() + 3_500_000);
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE'), 'access-1');
  t.is(calls, 1);
});

// Pins a forced refresh that loses the race to another process: it uses the tokens the other stored, and does not refresh a second time.
test('a forced refresh that another process beat uses the stored tokens and refreshes once', async (t) => {
  let calls = 0;
  let sneak: (() => Promise<void>) | null = null;
  const s = await setup({
    platforms: platforms(async () => {
      calls += 1;
      await sneak?.();
      return tokensOf(`mine-${calls}`, `mine-refresh-${calls}`, 3600);
    }),
  });
  await s.backend.repos.connections.save(s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('access-0', 'refresh-0', 3600)));
  sneak = async () => {
    sneak = null;
    const row = await s.row();
    const other = s.tokens.sealNew(s.userId, 'YOUTUBE', tokensOf('theirs', 'their-refresh', 3600));
    t.true(await s.backend.repos.connections.replaceTokens(s.userId, 'YOUTUBE', row.version, { accessToken: other.accessToken, refreshToken: other.refreshToken, expiresAt: other.expiresAt, updatedAt: clock.now() }));
  };
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE', { forceRefresh: true }), 'theirs');
  t.is(calls, 1);
});

// Pins rotation on use: sealing again keeps the token's expiry (else a rotated token is never refreshed, or refreshed at every use).
test('a token sealed again with the current key keeps its expiry', async (t) => {
  const s = await setup({ cipher: new AesGcmTokenCipher([NEW, OLD]), platforms: noRefresh(t) });
  const before = new ConnectionTokens({ connections: s.backend.repos.connections, cipher: new AesGcmTokenCipher([OLD]), platforms: noRefresh(t), clock, logger: quietLogger });
  await s.backend.repos.connections.save(before.sealNew(s.userId, 'YOUTUBE', tokensOf('access', 'refresh', 3600)));
  const expiresAt = (await s.row()).expiresAt;
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE'), 'access');
  const row = await s.row();
  t.true(row.accessToken.startsWith('v1.k2.'));
  t.deepEqual(row.expiresAt, expiresAt);
});

// Pins that a failed write of the resealed tokens is logged and the token is still used (rotation is best effort, the upload goes on).
test('a reseal the database refuses is logged; the token is still returned', async (t) => {
  const warnings: string[] = [];
  const logger: Logger = { ...quietLogger, warn: (message: string) => void warnings.push(message), child: () => logger };
  const s = await setup({
    cipher: new AesGcmTokenCipher([NEW, OLD]),
    platforms: noRefresh(t),
    logger,
    connections: (real) =>
      ({
        find: (userId: string, platform: 'YOUTUBE') => real.find(userId, platform),
        replaceTokens: async () => {
          throw new Error('database gone');
        },
      }) as unknown as SocialConnectionRepository,
  });
  const before = new ConnectionTokens({ connections: s.backend.repos.connections, cipher: new AesGcmTokenCipher([OLD]), platforms: noRefresh(t), clock, logger: quietLogger });
  await s.backend.repos.connections.save(before.sealNew(s.userId, 'YOUTUBE', tokensOf('access', 'refresh', 3600)));
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE'), 'access');
  t.deepEqual(warnings, ['tokens not sealed again with the current key; the next use retries']);
});

// Pins rotation on use of a connection the platform gave no refresh token: its access token is sealed again and used (no refresh token is invented or demanded).
test('a connection without a refresh token is sealed again with the current key and used', async (t) => {
  const s = await setup({ cipher: new AesGcmTokenCipher([NEW, OLD]), platforms: noRefresh(t) });
  const before = new ConnectionTokens({ connections: s.backend.repos.connections, cipher: new AesGcmTokenCipher([OLD]), platforms: noRefresh(t), clock, logger: quietLogger });
  await s.backend.repos.connections.save(before.sealNew(s.userId, 'YOUTUBE', tokensOf('access', null, 3600)));
  t.is((await s.row()).refreshToken, null);
  t.is(await s.tokens.accessToken(s.userId, 'YOUTUBE'), 'access');
  const row = await s.row();
  t.true(row.accessToken.startsWith('v1.k2.'));
  t.is(row.refreshToken, null);
  t.is(row.version, 2);
});
