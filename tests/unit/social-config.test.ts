import test from 'ava';
import { Reader } from '../../bootstrap/config/reader.ts';
import { readSocial } from '../../bootstrap/config/social.ts';

const KEY = 'ab'.repeat(32);
const read = (env: Record<string, string>, appEnv: 'local' | 'production' = 'production') => {
  const reader = new Reader(env);
  const social = readSocial(reader, { appEnv, dataDir: '/nonexistent', persistLocalSecret: false });
  return { social, problems: reader.problems };
};

test('no platform by default: no key needed, the timeouts at their defaults', (t) => {
  t.deepEqual(read({}), {
    social: { youtube: null, tiktok: null, tokenEncryptionKey: '', timeoutMs: 30_000, tiktokPollTimeoutMs: 600_000, tiktokPollIntervalMs: 5_000 },
    problems: [],
  });
});

test('a platform is on with both of its values; one without the other names the missing one', (t) => {
  t.like(read({ YOUTUBE_CLIENT_ID: 'yt-id', YOUTUBE_CLIENT_SECRET: 'yt-secret', TIKTOK_CLIENT_KEY: 'tt-key', TIKTOK_CLIENT_SECRET: 'tt-secret', TOKEN_ENCRYPTION_KEY: KEY }), {
    social: { youtube: { clientId: 'yt-id', clientSecret: 'yt-secret' }, tiktok: { clientKey: 'tt-key', clientSecret: 'tt-secret' }, tokenEncryptionKey: KEY },
    problems: [],
  });
  const half = read({ YOUTUBE_CLIENT_ID: 'yt-id', TIKTOK_CLIENT_SECRET: 'tt-secret', TOKEN_ENCRYPTION_KEY: KEY });
  t.deepEqual(half.problems, ['YOUTUBE_CLIENT_SECRET is required when YOUTUBE_CLIENT_ID is set', 'TIKTOK_CLIENT_KEY is required when TIKTOK_CLIENT_SECRET is set']);
  t.like(half.social, { youtube: null, tiktok: null });
});

test('with a platform, TOKEN_ENCRYPTION_KEY is required outside APP_ENV=local, which makes one; a malformed key is reported', (t) => {
  const youtube = { YOUTUBE_CLIENT_ID: 'yt-id', YOUTUBE_CLIENT_SECRET: 'yt-secret' };
  const missing = read(youtube);
  t.is(missing.problems.length, 1);
  t.regex(missing.problems[0]!, /^TOKEN_ENCRYPTION_KEY is required when a social platform is configured and APP_ENV=production/);
  const local = read(youtube, 'local');
  t.deepEqual(local.problems, []);
  t.regex(local.social.tokenEncryptionKey, /^[0-9a-f]{64}$/, 'local makes a 32-byte key');
  t.not(read(youtube, 'local').social.tokenEncryptionKey, local.social.tokenEncryptionKey, 'not a fixed key');
  t.deepEqual(read({ TOKEN_ENCRYPTION_KEY: 'too-short' }).problems.map((p) => p.split(':')[0]), ['TOKEN_ENCRYPTION_KEY']);
  t.deepEqual(read({ TOKEN_ENCRYPTION_KEY: KEY }).problems, [], 'a key without a platform is fine');
});

test('the platform timeouts are read within their ranges', (t) => {
  t.like(read({ SOCIAL_TIMEOUT_MS: '100', TIKTOK_POLL_TIMEOUT: '2m', TIKTOK_POLL_INTERVAL_MS: '10' }).social, { timeoutMs: 100, tiktokPollTimeoutMs: 120_000, tiktokPollIntervalMs: 10 });
  t.is(read({ SOCIAL_TIMEOUT_MS: '99', TIKTOK_POLL_INTERVAL_MS: '9' }).problems.length, 2);
});
