import test from 'ava';
import { Reader } from '../../bootstrap/config/reader.ts';
import { readSocial } from '../../bootstrap/config/social.ts';

// Guards of bootstrap/config/social.ts beyond tests/unit/social-config.test.ts.

const read = (env: Record<string, string>) => {
  const reader = new Reader(env);
  const social = readSocial(reader, { appEnv: 'production', dataDir: '/nonexistent', persistLocalSecret: false });
  return { social, problems: reader.problems };
};

// Pins: TikTok alone (no YouTube) also needs TOKEN_ENCRYPTION_KEY outside APP_ENV=local: its tokens are sealed too.
test('TikTok alone needs TOKEN_ENCRYPTION_KEY in production', (t) => {
  const { problems, social } = read({ TIKTOK_CLIENT_KEY: 'tt-key', TIKTOK_CLIENT_SECRET: 'tt-secret' });
  t.is(problems.length, 1);
  t.regex(problems[0]!, /^TOKEN_ENCRYPTION_KEY is required when a social platform is configured and APP_ENV=production/);
  t.deepEqual(social.tiktok, { clientKey: 'tt-key', clientSecret: 'tt-secret' });
});

// Pins: the upper bounds of SOCIAL_TIMEOUT_MS and TIKTOK_POLL_INTERVAL_MS (600000 ms each).
test('the platform timeouts have an upper bound of 600000 ms', (t) => {
  t.like(read({ SOCIAL_TIMEOUT_MS: '600000', TIKTOK_POLL_INTERVAL_MS: '600000' }), { social: { timeoutMs: 600_000, tiktokPollIntervalMs: 600_000 }, problems: [] });
  t.deepEqual(read({ SOCIAL_TIMEOUT_MS: '600001' }).problems.map((p) => p.split(' ')[0]), ['SOCIAL_TIMEOUT_MS']);
  t.deepEqual(read({ TIKTOK_POLL_INTERVAL_MS: '600001' }).problems.map((p) => p.split(' ')[0]), ['TIKTOK_POLL_INTERVAL_MS']);
});
