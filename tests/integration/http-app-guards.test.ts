/**
 * Guards of the HTTP app's outer layers that the byte-for-byte middleware test does not reach: an error after a
 * response started, the route label of what no API route served, the legacy prefix's successor link at its root,
 * and client errors of the body parser other than bad JSON or a large body.
 */
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createHttpApp } from '../../adapters/http/http-app.ts';
import type { Logger } from '../../core/ports/logger.port.ts';

interface Started {
  baseUrl: string;
  errors: string[];
  observed: { method: string; route: string; status: number }[];
}

async function start(t: { teardown(fn: () => void): void }): Promise<Started> {
  const errors: string[] = [];
  const observed: Started['observed'] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message: string) => void errors.push(message), child: () => logger };
  const { app } = createHttpApp({
    version: 'test',
    corsOrigins: [],
    cookies: { secure: false },
    auth: { authenticate: async () => null },
    logger,
    observeRequest: ({ method, route, status }) => void observed.push({ method, route, status }),
    modules: [
      (api) =>
        api.add({ method: 'get', path: '/half', summary: 'Fails after its answer started', tag: 'test', auth: 'public', responses: { 200: { description: 'Part of a text' } } }, async (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('the first part');
          await new Promise((resolve) => setTimeout(resolve, 10));
          throw new Error('the source broke mid-stream');
        }),
    ],
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, errors, observed };
}

// Pins: a route whose answer fails part-way (a download or a stream whose source breaks) cuts the connection, so
// the client sees an incomplete transfer at once instead of waiting forever for the rest; the operator sees why.
test('an error after the answer started cuts the answer and is logged', async (t) => {
  const app = await start(t);
  const started = Date.now();
  const res = await fetch(`${app.baseUrl}/api/v1/half`, { signal: AbortSignal.timeout(5000) });
  t.is(res.status, 200);
  const error = await t.throwsAsync(res.text());
  t.not(error?.name, 'TimeoutError', 'the client waited for the rest until it gave up');
  t.true(Date.now() - started < 4000);
  t.deepEqual(app.errors, ['error after the response started']);
});

// Pins: the request metrics label what no API route served by its outcome: a 404 is "unmatched", anything else
// (Swagger UI, the web client's files) "static" — two labels, not one per URL.
test('requests no API route served are labelled unmatched (404) or static', async (t) => {
  const app = await start(t);
  t.is((await fetch(`${app.baseUrl}/api/docs/`)).status, 200);
  t.is((await fetch(`${app.baseUrl}/no-such-page`)).status, 404);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the finish events
  t.deepEqual(app.observed, [
    { method: 'GET', route: 'static', status: 200 },
    { method: 'GET', route: 'unmatched', status: 404 },
  ]);
});

// Pins: a request at the legacy prefix's root names /api/v1 as its successor, not /api/v1/ (a path no route has).
test('the legacy prefix root links to /api/v1', async (t) => {
  const app = await start(t);
  const res = await fetch(`${app.baseUrl}/api`);
  t.is(res.headers.get('deprecation'), 'true');
  t.is(res.headers.get('link'), '</api/v1>; rel="successor-version"');
});

// Pins: a body the parser refuses for the client's fault (here a charset it cannot decode) is that client's 4xx,
// not a 500 logged as an unexpected error (which alerts operators over a bad client).
test('a body in a charset the parser cannot decode is answered 415, not 500', async (t) => {
  const app = await start(t);
  const res = await fetch(`${app.baseUrl}/api/v1/half`, { method: 'POST', headers: { 'content-type': 'application/json; charset=klingon' }, body: '{}' });
  t.is(res.status, 415);
  t.deepEqual(await res.json(), { statusCode: 415, error: 'Unsupported Media Type', message: 'Bad request' });
  t.deepEqual(app.errors, []);
});
