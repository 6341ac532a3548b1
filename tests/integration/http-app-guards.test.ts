/**
 * Guards of the HTTP app's outer layers that the byte-for-byte middleware test does not reach: an error after a
 * response started, the route label of what no API route served, the legacy prefix's successor link, client errors
 * of the body parser other than bad JSON or a large body, the body limit at its exact bound, which media types are
 * parsed, the Swagger UI pages' own security headers, the error handler's branches, the order of the mounts, the
 * validation report and the wait for running handlers at shutdown.
 */
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createHttpApp, type RouteModule } from '../../adapters/http/http-app.ts';
import { HttpError } from '../../adapters/http/error-table.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { Authenticated } from '../../core/use-cases/auth/authenticate.use-case.ts';

interface Started {
  baseUrl: string;
  errors: string[];
  observed: { method: string; route: string; status: number }[];
  drain(timeoutMs: number): Promise<void>;
}

const TOKENS: Record<string, 'user' | 'admin'> = { 'user-token': 'user', 'admin-token': 'admin' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Routes of the tests below, beside `/half`; `/slow` holds its answer until `release` is called. */
let release: () => void = () => undefined;
let entered: () => void = () => undefined;
/** Resolves when the next request to `/slow` is inside its handler. */
const slowEntered = () => new Promise<void>((resolve) => (entered = resolve));
const testRoutes: RouteModule = (api) => {
  api.add({ method: 'get', path: '/thing', summary: 'A thing', tag: 'test', auth: 'public', responses: { 200: { description: 'It' } } }, (_req, res) => {
    res.json({ ok: true });
  });
  api.add({ method: 'post', path: '/body', summary: 'Echoes what the parser made of the body', tag: 'test', auth: 'public', responses: { 200: { description: 'It' } } }, (req, res) => {
    res.json({ body: (req.body as unknown) ?? null });
  });
  api.add({ method: 'get', path: '/items/:id', summary: 'An item', tag: 'test', auth: 'public', responses: { 200: { description: 'It' } } }, (req, res) => {
    res.json({ id: req.params.id });
  });
  api.add({ method: 'get', path: '/crash', summary: 'Fails unexpectedly', tag: 'test', auth: 'public', responses: { 200: { description: 'Never' } } }, () => {
    throw new Error('SELECT secret FROM users failed at /srv/app/db.ts:12');
  });
  api.add({ method: 'get', path: '/crash-500', summary: 'A library error carrying status 500', tag: 'test', auth: 'public', responses: { 200: { description: 'Never' } } }, () => {
    throw Object.assign(new Error('pool exhausted'), { status: 500 });
  });
  api.add({ method: 'get', path: '/limited', summary: 'Rate limited', tag: 'test', auth: 'public', responses: { 429: { description: 'Slow down' } } }, () => {
    throw new HttpError(429, 'Slow down', undefined, { 'Retry-After': '7' });
  });
  api.add(
    {
      method: 'post',
      path: '/named',
      summary: 'Validates a name',
      tag: 'test',
      auth: 'public',
      validate: {
        name: { in: ['body'], isString: { errorMessage: 'must be a string' }, isLength: { options: { min: 3 }, errorMessage: 'must be at least 3 characters' } },
        size: { in: ['body'], isInt: { errorMessage: 'must be an integer' } },
      },
      responses: { 200: { description: 'Valid' } },
    },
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  api.add({ method: 'get', path: '/slow', summary: 'Answers when released', tag: 'test', auth: 'public', responses: { 200: { description: 'It' } } }, async (_req, res) => {
    const released = new Promise<void>((resolve) => (release = resolve));
    entered();
    await released;
    res.json({ ok: true });
  });
  api.add({ method: 'get', path: '/throws-later', summary: 'Fails after a moment', tag: 'test', auth: 'public', responses: { 200: { description: 'Never' } } }, async () => {
    entered();
    await sleep(50);
    throw new Error('late failure');
  });
  api.add(
    {
      method: 'post',
      path: '/documented/:id',
      summary: 'A route with every part documented',
      tag: 'test',
      auth: 'access',
      body: { type: 'object', properties: { n: { type: 'integer' } } },
      query: { verbose: { type: 'boolean' } },
      headers: { 'Idempotency-Key': { type: 'string', maxLength: 128, description: 'Repeat safely' } },
      responses: { 200: { description: 'Done', headers: { 'Idempotent-Replayed': { schema: { type: 'string' } } } } },
    },
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  api.add({ method: 'get', path: '/admin-only', summary: 'Administrators only', tag: 'test', auth: 'admin', responses: { 200: { description: 'It' } } }, (_req, res) => {
    res.json({ ok: true });
  });
  api.at('/api/v2').add({ method: 'get', path: '/v2-thing', summary: 'A thing of another surface', tag: 'test', auth: 'public', responses: { 200: { description: 'It' } } }, (_req, res) => {
    res.json({ v2: true });
  });
};

async function start(t: { teardown(fn: () => void): void }, settings: { secure?: boolean } = {}): Promise<Started> {
  const errors: string[] = [];
  const observed: Started['observed'] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message: string) => void errors.push(message), child: () => logger };
  const { app, drain } = createHttpApp({
    version: 'test',
    corsOrigins: [],
    cookies: { secure: settings.secure ?? false },
    // Two bearer tokens: a signed-in user's and an administrator's.
    auth: { authenticate: async (token) => (token in TOKENS ? ({ userId: token, user: { id: token, role: TOKENS[token] } } as unknown as Authenticated) : null) },
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
      testRoutes,
    ],
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, errors, observed, drain };
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

const MiB = 1024 * 1024;
/** A JSON body of exactly `bytes` bytes. */
const bodyOf = (bytes: number) => `{"a":"${'x'.repeat(bytes - 8)}"}`;

// Pins: API.md §0 "a body over 1 MiB gets 413": a body of exactly 1 MiB is read, one byte more is refused with the
// error body (the bound neither lowered nor raised).
test('a JSON body of exactly 1 MiB is accepted, one byte more is 413 with the error body', async (t) => {
  const app = await start(t);
  const json = { 'content-type': 'application/json' };
  const atLimit = await fetch(`${app.baseUrl}/api/v1/body`, { method: 'POST', headers: json, body: bodyOf(MiB) });
  t.is(atLimit.status, 200);
  t.is(((await atLimit.json()) as { body: { a: string } }).body.a.length, MiB - 8);
  const over = await fetch(`${app.baseUrl}/api/v1/body`, { method: 'POST', headers: json, body: bodyOf(MiB + 1) });
  t.is(over.status, 413);
  t.deepEqual(await over.json(), { statusCode: 413, error: 'Payload Too Large', message: 'Request body is larger than 1 MiB' });
  t.deepEqual(app.errors, []);
});

// Pins: JSON media types are parsed (+json ones too), only they: a cross-site form (text/plain, urlencoded), which a browser sends without
// a CORS preflight, never reaches a route as a parsed JSON body.
test('bodies of other media types are not parsed as JSON', async (t) => {
  const app = await start(t);
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const res = await fetch(`${app.baseUrl}/api/v1/body`, { method: 'POST', headers: { 'content-type': type }, body: '{"email":"a@example.com"}' });
    t.is(res.status, 200, type);
    t.deepEqual(await res.json(), { body: null }, type);
  }
  for (const type of ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json']) {
    const json = await fetch(`${app.baseUrl}/api/v1/body`, { method: 'POST', headers: { 'content-type': type }, body: '{"email":"a@example.com"}' });
    t.deepEqual(await json.json(), { body: { email: 'a@example.com' } }, type);
  }
});

const DOCS_CSP =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self' 'unsafe-inline';script-src-attr 'none';style-src 'self' https: 'unsafe-inline'";

// Pins: Swagger UI's pages relax script-src for its inline bootstrapping, only there; served over plain HTTP they
// carry neither HSTS nor upgrade-insecure-requests (with it, a browser fetches Swagger UI's own scripts over https
// and the page stays blank), over HTTPS both.
test('Swagger UI pages: their own Content-Security-Policy, HSTS and upgrades only over HTTPS', async (t) => {
  const plain = await start(t);
  for (const path of ['/api/docs/', '/api/docs/swagger-ui-init.js']) {
    const res = await fetch(`${plain.baseUrl}${path}`);
    t.is(res.status, 200, path);
    t.is(res.headers.get('content-security-policy'), DOCS_CSP, path);
    t.is(res.headers.get('strict-transport-security'), null, path);
    t.is(res.headers.get('x-frame-options'), 'SAMEORIGIN', path);
  }
  const init = await (await fetch(`${plain.baseUrl}/api/docs/swagger-ui-init.js`)).text();
  t.true(init.includes('"url": "/api/v1/openapi.json"'), 'Swagger UI loads our document');
  t.true(init.includes('"persistAuthorization": true'), 'Swagger UI keeps the Bearer token over a reload');
  const api = await fetch(`${plain.baseUrl}/api/v1/thing`);
  t.regex(api.headers.get('content-security-policy') ?? '', /;script-src 'self';/, 'the API keeps the strict policy');

  const secure = await start(t, { secure: true });
  const res = await fetch(`${secure.baseUrl}/api/docs/`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-security-policy'), `${DOCS_CSP};upgrade-insecure-requests`);
  t.is(res.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains');
});

// Pins: what no route serves, whatever the method, is API.md's 404 body (not Express's HTML page); a path that
// exists for GET only is no different for another method.
test('no route: 404 with the error body, for an unknown path and for a method a path lacks', async (t) => {
  const app = await start(t);
  for (const [method, path] of [['GET', '/api/v1/nope'], ['POST', '/api/v1/thing'], ['DELETE', '/api/v1/items/1'], ['GET', '/nope']] as const) {
    const res = await fetch(`${app.baseUrl}${path}`, { method });
    t.is(res.status, 404, `${method} ${path}`);
    t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
    t.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: `No route for ${method} ${path}` });
  }
});

// Pins: an unexpected error is a 500 whose body quotes the request id and nothing of the error (no message, SQL,
// path or stack), logged for the operator; a library error that carries a 5xx status is no different.
test('an unexpected error is a 500 quoting the request id, nothing of the error, and is logged', async (t) => {
  const app = await start(t);
  for (const path of ['/api/v1/crash', '/api/v1/crash-500']) {
    const res = await fetch(`${app.baseUrl}${path}`);
    t.is(res.status, 500, path);
    const id = res.headers.get('x-request-id')!;
    t.truthy(id);
    t.deepEqual(await res.json(), { statusCode: 500, error: 'Internal Server Error', message: `Unexpected error; quote request id ${id}`, requestId: id }, path);
  }
  t.deepEqual(app.errors, ['unhandled error', 'unhandled error']);
});

// Pins: a client error raised inside Express itself (a path parameter that is not valid percent-encoding, status
// 400) is that client's 400 with the error body, not a logged 500.
test('a path parameter that cannot be decoded is 400 with the error body', async (t) => {
  const app = await start(t);
  const res = await fetch(`${app.baseUrl}/api/v1/items/%E0%A4%A`);
  t.is(res.status, 400);
  t.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Bad request' });
  t.deepEqual(app.errors, []);
  t.deepEqual(await (await fetch(`${app.baseUrl}/api/v1/items/a%20b`)).json(), { id: 'a b' });
});

// Pins: an HttpError's own headers reach the client (every 429 carries Retry-After, API.md §0).
test("an HttpError's status, body and headers are answered", async (t) => {
  const app = await start(t);
  const res = await fetch(`${app.baseUrl}/api/v1/limited`);
  t.is(res.status, 429);
  t.is(res.headers.get('retry-after'), '7');
  t.deepEqual(await res.json(), { statusCode: 429, error: 'Too Many Requests', message: 'Slow down' });
  t.deepEqual(app.errors, []);
});

// Pins: validation failures are API.md's 400 with one detail per field (its first problem), in field order.
test('validation: 400 with one detail per failing field, the first problem of each', async (t) => {
  const app = await start(t);
  const res = await fetch(`${app.baseUrl}/api/v1/named`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":5,"size":"big"}' });
  t.is(res.status, 400);
  t.deepEqual(await res.json(), {
    statusCode: 400,
    error: 'Bad Request',
    message: 'Validation failed',
    details: [
      { field: 'name', message: 'must be a string' },
      { field: 'size', message: 'must be an integer' },
    ],
  });
  const valid = await fetch(`${app.baseUrl}/api/v1/named`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Ada","size":3}' });
  t.is(valid.status, 200);
});

// Pins: the legacy prefix serves every route with Deprecation and a Link to the same path under /api/v1; another
// surface under /api (the Comfy API v2 at /api/v2) is mounted before it and is not deprecated.
test('legacy prefix: Deprecation and a successor Link per path; /api/v2 surfaces are not legacy', async (t) => {
  const app = await start(t);
  const legacy = await fetch(`${app.baseUrl}/api/thing`);
  t.is(legacy.status, 200);
  t.is(legacy.headers.get('deprecation'), 'true');
  t.is(legacy.headers.get('link'), '</api/v1/thing>; rel="successor-version"');
  const canonical = await fetch(`${app.baseUrl}/api/v1/thing`);
  t.is(canonical.headers.get('deprecation'), null);
  t.is(canonical.headers.get('link'), null);
  const v2 = await fetch(`${app.baseUrl}/api/v2/v2-thing`);
  t.is(v2.status, 200);
  t.deepEqual(await v2.json(), { v2: true });
  t.is(v2.headers.get('deprecation'), null);
  t.is(v2.headers.get('link'), null);
});

/** How drain(timeoutMs) ended: 'drained' within `within` ms, else 'waiting'. */
async function drainOutcome(app: Started, timeoutMs: number, within: number): Promise<'drained' | 'waiting'> {
  return Promise.race([app.drain(timeoutMs).then(() => 'drained' as const), sleep(within).then(() => 'waiting' as const)]);
}

// Pins: shutdown's wait for running handlers: nothing running, it returns at once; a handler running, it waits for
// that one and returns as soon as it ends (also when it failed); a handler that never ends, it gives up at its limit.
test('drain: at once when idle, when the last running handler ends (or fails), at its limit otherwise', async (t) => {
  const app = await start(t);
  t.is(await drainOutcome(app, 10_000, 1000), 'drained', 'idle');

  const inside = slowEntered();
  const answer = fetch(`${app.baseUrl}/api/v1/slow`);
  await inside;
  let ended = false;
  const drained = drainOutcome(app, 10_000, 3000).then((outcome) => ((ended = true), outcome));
  await sleep(200);
  t.false(ended, 'waits while a handler runs');
  release();
  t.is(await drained, 'drained', 'after the running handler ended');
  t.is((await answer).status, 200);

  const insideFailing = slowEntered();
  const failing = fetch(`${app.baseUrl}/api/v1/throws-later`);
  await insideFailing;
  t.is(await drainOutcome(app, 10_000, 3000), 'drained', 'after the running handler failed');
  t.is((await failing).status, 500);
  t.is(await drainOutcome(app, 10_000, 1000), 'drained', 'a failed handler is no longer counted');

  const insideAgain = slowEntered();
  const stuck = fetch(`${app.baseUrl}/api/v1/slow`).catch(() => undefined);
  await insideAgain;
  const started = Date.now();
  t.is(await drainOutcome(app, 200, 3000), 'drained', 'gives up at its limit');
  t.true(Date.now() - started >= 150);
  release();
  await stuck;
});

// Pins: what the router writes into the OpenAPI document for a route: its parameters (path, query, header), its
// body as required, its responses' own headers, and the 401 every protected route can answer.
test('the document of a route: parameters, required body, response headers, the 401 of a protected route', async (t) => {
  const app = await start(t);
  const doc = (await (await fetch(`${app.baseUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const operation = doc.paths['/documented/{id}']!.post!;
  const error = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  t.deepEqual(operation, {
    summary: 'A route with every part documented',
    tags: ['test'],
    security: [{ bearerAuth: [] }, { cookieAuth: [], xsrfHeader: [] }],
    'x-api-key-scope': null,
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'verbose', in: 'query', required: false, schema: { type: 'boolean' } },
      { name: 'Idempotency-Key', in: 'header', required: false, description: 'Repeat safely', schema: { type: 'string', maxLength: 128 } },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PostDocumentedByIdRequest' } } } },
    responses: {
      200: { description: 'Done', headers: { 'Idempotent-Replayed': { schema: { type: 'string' } } } },
      401: { description: 'Missing, invalid or expired access token', content: error },
      403: {
        description:
          'Forbidden: a missing or bad X-XSRF-TOKEN header equal to the XSRF-TOKEN cookie (cookie authentication only; Bearer tokens and API keys need none); an API key (this route needs a session)',
        content: error,
      },
    },
  });
  const served = await fetch(`${app.baseUrl}/api/v1/documented/1`, { method: 'POST' });
  t.is(served.status, 401, 'and the route asks for authentication');
});

// Pins: a route registered for administrators refuses a signed-in user (403) and anyone without a token (401).
test('an admin route: 401 without a token, 403 for a user, 200 for an administrator', async (t) => {
  const app = await start(t);
  const as = (token?: string) => fetch(`${app.baseUrl}/api/v1/admin-only`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const anonymous = await as();
  t.is(anonymous.status, 401);
  t.deepEqual(await anonymous.json(), { statusCode: 401, error: 'Unauthorized', message: 'Authentication required' });
  const user = await as('user-token');
  t.is(user.status, 403);
  t.deepEqual(await user.json(), { statusCode: 403, error: 'Forbidden', message: 'Administrator role required' });
  t.is((await as('admin-token')).status, 200);
});
