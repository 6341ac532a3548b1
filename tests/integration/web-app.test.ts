import test from 'ava';
import { TOKENS } from '../../bootstrap/tokens.ts';
import { startS3StandIn } from '../support/s3-stand-in.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// How the service serves the web client (web/dist) next to the API. Independent of the database: SQLite only.
let app: TestApp;
test.before(async () => {
  app = await startTestApp('sqlite', {}, {
    beforeStart({ container }) {
      container.bind(TOKENS.FeatureContribution).toConstantValue({ oidcProviders: ['google'] });
      container.bind(TOKENS.FeatureContribution).toConstantValue({ socialPlatforms: ['YOUTUBE'], chat: true });
    },
  });
});
test.after.always(async () => {
  await app?.close();
});

const html = { accept: 'text/html,application/xhtml+xml' };

test('GET / is the client, under a strict Content-Security-Policy that allows signed media from PUBLIC_URL', async (t) => {
  const res = await fetch(`${app.baseUrl}/`, { headers: html });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /text\/html/);
  t.regex(await res.text(), /<script type="module" src="\/app.js">/);
  const csp = Object.fromEntries((res.headers.get('content-security-policy') ?? '').split(';').map((part) => {
    const [name, ...values] = part.trim().split(/\s+/);
    return [name, values];
  }));
  t.deepEqual(csp['default-src'], ["'self'"]);
  t.deepEqual(csp['script-src'], ["'self'"]);
  t.deepEqual(csp['style-src'], ["'self'"]);
  t.deepEqual(csp['connect-src'], ["'self'"]);
  t.deepEqual(csp['img-src'], ["'self'", 'blob:', 'data:', app.app.config.publicUrl]);
  t.deepEqual(csp['media-src'], ["'self'", 'blob:', app.app.config.publicUrl]);
  t.false(JSON.stringify(csp).includes('unsafe'));
  // Pins: no upgrade of requests to https: signed media may come from an object store served over plain http.
  t.false('upgrade-insecure-requests' in csp);
});

test('client routes reload into the client; assets are served; unknown assets and API paths stay 404 JSON', async (t) => {
  for (const route of ['/history', '/admin/templates', '/login']) {
    const res = await fetch(`${app.baseUrl}${route}`, { headers: html });
    t.is(res.status, 200, route);
    t.regex(await res.text(), /<div id="app">/, route);
  }
  const script = await fetch(`${app.baseUrl}/app.js`);
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /javascript/);
  t.is((await fetch(`${app.baseUrl}/missing.png`, { headers: html })).status, 404);
  for (const path of ['/api/v1/no-such-route', '/api/no-such-route', '/api/v1/generate/x/y']) {
    const res = await fetch(`${app.baseUrl}${path}`, { headers: html });
    t.is(res.status, 404, path);
    t.like(await res.json(), { statusCode: 404, error: 'Not Found' }, path);
  }
  const json = await fetch(`${app.baseUrl}/history`, { headers: { accept: 'application/json' } });
  t.is(json.status, 404, 'only a browser asking for a page gets the client');
});

test('GET /features merges what the optional modules contribute', async (t) => {
  const res = await app.client().get('/features');
  t.is(res.status, 200);
  t.deepEqual(res.body, { oidcProviders: ['google'], socialPlatforms: ['YOUTUBE'], chat: true, passwordResetByMail: false, emailChange: false });
  const legacy = await app.client().get('/api/features');
  t.deepEqual(legacy.body, res.body);
});

test('the features come from the configuration: OIDC providers and chat; with S3 the CSP allows the store’s media', async (t) => {
  const configured = await startTestApp('sqlite', {
    OIDC_PROVIDERS: 'acme',
    OIDC_ACME_ISSUER: 'http://127.0.0.1:9/',
    OIDC_ACME_CLIENT_ID: 'client',
    OIDC_ACME_CLIENT_SECRET: 'secret',
    LLM_PROVIDER: 'ollama',
    LLM_URL: 'http://127.0.0.1:9',
    LLM_MODEL: 'llama3.2',
  });
  t.teardown(() => configured.close());
  t.deepEqual((await configured.client().get('/features')).body, { oidcProviders: ['acme'], socialPlatforms: [], chat: true, passwordResetByMail: false, emailChange: false });

  const s3 = await startS3StandIn();
  t.teardown(() => s3.stop());
  const onS3 = await startTestApp('sqlite', { ...s3.env, S3_PUBLIC_ENDPOINT: 'http://media.example.test:9000' });
  t.teardown(() => onS3.close());
  t.deepEqual((await onS3.client().get('/features')).body, { oidcProviders: [], socialPlatforms: [], chat: false, passwordResetByMail: false, emailChange: false });
  const page = await fetch(`${onS3.baseUrl}/`, { headers: html });
  const csp = page.headers.get('content-security-policy') ?? '';
  t.regex(csp, /img-src [^;]*http:\/\/media\.example\.test:9000/);
  t.regex(csp, /media-src [^;]*http:\/\/media\.example\.test:9000/);
});
