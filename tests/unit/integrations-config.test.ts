import test from 'ava';
import { load, problemsOf } from '../support/config-env.ts';

test('no OIDC provider and no chat by default', (t) => {
  const config = load({});
  t.deepEqual(config.oidc, { providers: [], timeoutMs: 10_000 });
  t.deepEqual(config.llm, { provider: null, url: '', model: '', apiKey: null, timeoutMs: 60_000, perMinute: 10, dailyPrompts: 200 });
});

test('google needs only its client id and secret; other providers name their issuer, scopes default to openid email profile', (t) => {
  const config = load({
    OIDC_PROVIDERS: 'Google, acme-id',
    OIDC_GOOGLE_CLIENT_ID: 'gid',
    OIDC_GOOGLE_CLIENT_SECRET: 'gsecret',
    OIDC_ACME_ID_ISSUER: 'https://login.acme.example/realms/main',
    OIDC_ACME_ID_CLIENT_ID: 'aid',
    OIDC_ACME_ID_CLIENT_SECRET: 'asecret',
    OIDC_ACME_ID_SCOPES: 'openid email',
  });
  t.deepEqual(config.oidc.providers, [
    { name: 'google', issuer: 'https://accounts.google.com', clientId: 'gid', clientSecret: 'gsecret', scopes: ['openid', 'email', 'profile'] },
    { name: 'acme-id', issuer: 'https://login.acme.example/realms/main', clientId: 'aid', clientSecret: 'asecret', scopes: ['openid', 'email'] },
  ]);
});

test('a provider missing its issuer, id or secret, a reserved or odd name, scopes without openid and an http issuer in production are all reported', (t) => {
  const problems = problemsOf({ OIDC_PROVIDERS: 'acme,profile,9x', OIDC_ACME_SCOPES: 'email', OIDC_9X_ISSUER: 'https://x.example' });
  for (const expected of [/OIDC_ACME_ISSUER is required/, /OIDC_ACME_CLIENT_ID is required/, /OIDC_ACME_CLIENT_SECRET is required/, /OIDC_ACME_SCOPES must include openid/, /"profile" is not a usable provider name/, /"9x" is not a usable provider name/]) {
    t.true(problems.some((problem) => expected.test(problem)), `${expected}: ${problems.join(' | ')}`);
  }
  const production = problemsOf({ APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40), OIDC_PROVIDERS: 'acme', OIDC_ACME_ISSUER: 'http://idp.example', OIDC_ACME_CLIENT_ID: 'a', OIDC_ACME_CLIENT_SECRET: 'b' });
  t.deepEqual(production, ['OIDC_ACME_ISSUER must use https: when APP_ENV=production']);
});

test('LLM_PROVIDER needs LLM_URL and LLM_MODEL; the limits are read', (t) => {
  t.deepEqual(problemsOf({ LLM_PROVIDER: 'ollama' }), ['LLM_URL is required when LLM_PROVIDER is set', 'LLM_MODEL is required when LLM_PROVIDER is set']);
  t.true(problemsOf({ LLM_PROVIDER: 'claude', LLM_URL: 'http://x', LLM_MODEL: 'm' }).some((p) => p.startsWith('LLM_PROVIDER must be one of ollama, openai')));
  // The chat posts prompts to LLM_URL: a URL the HTTP client cannot reach is refused at start, not at the first prompt.
  t.deepEqual(problemsOf({ LLM_PROVIDER: 'ollama', LLM_URL: 'ftp://llm.internal', LLM_MODEL: 'm' }), ['LLM_URL must use http: or https: (got "ftp:")']);
  t.deepEqual(problemsOf({ LLM_PROVIDER: 'ollama', LLM_URL: 'llm.internal:11434', LLM_MODEL: 'm' }), ['LLM_URL must use http: or https: (got "llm.internal:")']);
  t.deepEqual(problemsOf({ LLM_PROVIDER: 'ollama', LLM_URL: 'not a url', LLM_MODEL: 'm' }), ['LLM_URL is not a valid URL']);
  const config = load({ LLM_PROVIDER: 'openai', LLM_URL: 'https://api.example/v1/', LLM_MODEL: 'm', LLM_API_KEY: 'k', LLM_TIMEOUT_MS: '5000', LLM_RATE_LIMIT_PER_MINUTE: '2', LLM_DAILY_PROMPTS: '7' });
  t.deepEqual(config.llm, { provider: 'openai', url: 'https://api.example/v1', model: 'm', apiKey: 'k', timeoutMs: 5000, perMinute: 2, dailyPrompts: 7 });
});

test('mail: none by default; SMTP_URL needs MAIL_FROM, smtp: or smtps:, and a From that names an address', (t) => {
  t.deepEqual(load({}).mail, { smtpUrl: null, from: '', timeoutMs: 15_000, requireTls: true, resetRequestsPerEmail: 3, resetRequestsPerAddress: 10, emailChangeTtlSeconds: 86_400 });
  t.deepEqual(problemsOf({ SMTP_URL: 'smtp://mail.example.com:587' }), ['MAIL_FROM is required when SMTP_URL is set']);
  t.deepEqual(problemsOf({ SMTP_URL: 'https://mail.example.com', MAIL_FROM: 'a@example.com' }), ['SMTP_URL must use smtp: or smtps: (got "https:")']);
  t.deepEqual(problemsOf({ SMTP_URL: 'not a url', MAIL_FROM: 'a@example.com' }), ['SMTP_URL is not a valid URL']);
  for (const from of ['no-reply', 'Service <no-reply>', 'two words@example.com', '<a@example.com', 'a@example.com>']) {
    t.deepEqual(problemsOf({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: from }), [`MAIL_FROM must be an address or "Name <address>" (got "${from}")`], from);
  }
  t.deepEqual(problemsOf({ SMTP_TIMEOUT_MS: '99', PASSWORD_RESET_REQUESTS_PER_EMAIL: '0', PASSWORD_RESET_REQUESTS_PER_ADDRESS: '0' }), [
    'SMTP_TIMEOUT_MS must be an integer from 100 to 300000 (got "99")',
    'PASSWORD_RESET_REQUESTS_PER_EMAIL must be an integer from 1 to 1000 (got "0")',
    'PASSWORD_RESET_REQUESTS_PER_ADDRESS must be an integer from 1 to 100000 (got "0")',
  ]);
  for (const from of ['no-reply@example.com', 'Media service <no-reply@example.com>', '"Media, Inc." <no-reply@example.com>']) {
    const config = load({ SMTP_URL: 'smtps://u:p@mail.example.com:465', MAIL_FROM: from, SMTP_TIMEOUT_MS: '500', PASSWORD_RESET_REQUESTS_PER_EMAIL: '1', PASSWORD_RESET_REQUESTS_PER_ADDRESS: '2', EMAIL_CHANGE_TTL: '2h' });
    t.deepEqual(config.mail, { smtpUrl: 'smtps://u:p@mail.example.com:465', from, timeoutMs: 500, requireTls: true, resetRequestsPerEmail: 1, resetRequestsPerAddress: 2, emailChangeTtlSeconds: 7200 });
  }
});

test('mail: TLS is required of a relay elsewhere, not of one on this machine, unless SMTP_REQUIRE_TLS says otherwise', (t) => {
  const requireTls = (env: Record<string, string>) => load({ MAIL_FROM: 'a@example.com', ...env }).mail.requireTls;
  t.true(requireTls({ SMTP_URL: 'smtp://mail.example.com:587' }));
  t.true(requireTls({ SMTP_URL: 'smtp://10.0.0.5:25' }));
  for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]']) t.false(requireTls({ SMTP_URL: `smtp://${host}:25` }), host);
  t.false(requireTls({ SMTP_URL: 'smtp://mail.example.com:587', SMTP_REQUIRE_TLS: 'false' }));
  t.true(requireTls({ SMTP_URL: 'smtp://127.0.0.1:25', SMTP_REQUIRE_TLS: 'true' }));
});
