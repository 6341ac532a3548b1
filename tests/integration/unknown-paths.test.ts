import test from 'ava';
import { CLIENT_ROUTE_PATHS } from '../../web/src/client-routes.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

// Only the client's own routes reload into index.html; a probe or a scraper on any other path gets the JSON 404.
let app: TestApp;
test.before(async () => {
  app = await startTestApp('sqlite');
});
test.after.always(async () => {
  await app?.close();
});

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

test('the client routes the server reloads are exactly the pages of the client router', (t) => {
  t.deepEqual(
    [...CLIENT_ROUTE_PATHS],
    ['/login', '/signup', '/reset-password', '/forgot-password', '/confirm-email', '/', '/history', '/connections', '/chat', '/api-keys', '/account', '/admin/templates', '/admin/users', '/admin/audit', '/admin/jobs', '/admin/queue', '/admin/fleet', '/admin/template-health'],
  );
});

test('every client route, asked for by a browser, is index.html', async (t) => {
  for (const route of ['/', '/login', '/signup', '/reset-password', '/forgot-password', '/confirm-email', '/history', '/connections', '/chat', '/api-keys', '/account', '/admin/templates', '/admin/users', '/admin/audit', '/admin/jobs', '/admin/queue', '/admin/fleet', '/admin/template-health', '/login?error=denied']) {
    const res = await fetch(`${app.baseUrl}${route}`, { headers: html });
    t.is(res.status, 200, route);
    t.regex(res.headers.get('content-type') ?? '', /text\/html/, route);
    t.regex(await res.text(), /<div id="app">/, route);
  }
});

test('/metrics, /healthz, /foo/bar and /api/nope are 404 with the API error body, even for a browser', async (t) => {
  for (const path of ['/metrics', '/healthz', '/foo/bar', '/api/nope', '/api/v1/nope', '/history/extra', '/admin', '/.env']) {
    for (const headers of [html, { accept: '*/*' }]) {
      const res = await fetch(`${app.baseUrl}${path}`, { headers });
      t.is(res.status, 404, `${path} ${headers.accept}`);
      t.regex(res.headers.get('content-type') ?? '', /application\/json/, path);
      t.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: `No route for GET ${path}` }, path);
    }
  }
  const head = await fetch(`${app.baseUrl}/healthz`, { method: 'HEAD', headers: html });
  t.is(head.status, 404);
});
