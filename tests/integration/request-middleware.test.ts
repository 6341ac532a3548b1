import { request as httpRequest } from 'node:http';
import test from 'ava';
import type { LogFields, Logger } from '../../core/ports/logger.port.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The request-wide middleware every request passes (request id and its log line, security headers, CORS, cookies,
 * JSON body, body depth, XSRF cookie), pinned byte for byte: every response header in the order the server writes
 * it (only the date, the minted request id and the minted XSRF token are masked), and the log line's fields.
 */

const ORIGIN = 'https://app.example.com';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const XSRF = /^XSRF-TOKEN=([A-Za-z0-9_-]{32});/;

interface Logged {
  message: string;
  fields: LogFields | undefined;
}

function capturingLogger(into: Logged[]): Logger {
  const logger: Logger = {
    debug() {},
    info(message, fields) {
      into.push({ message, fields });
    },
    warn() {},
    error() {},
    child() {
      return logger;
    },
  };
  return logger;
}

interface Raw {
  status: number;
  /** `Name: value` per header line, as written; the date, a minted request id and a minted XSRF token masked. */
  headers: string[];
  requestId: string;
  body: string;
}

function raw(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { method, headers: { connection: 'close', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const lines: string[] = [];
        let requestId = '';
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          let value = res.rawHeaders[i + 1]!;
          if (name.toLowerCase() === 'date') value = '<date>';
          if (name.toLowerCase() === 'x-request-id') {
            requestId = value;
            if (UUID.test(value)) value = '<uuid>';
          }
          if (name.toLowerCase() === 'set-cookie') value = value.replace(XSRF, 'XSRF-TOKEN=<token>;');
          lines.push(`${name}: ${value}`);
        }
        resolve({ status: res.statusCode!, headers: lines, requestId, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const HELMET_LOCAL = [
  "Content-Security-Policy: default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline'",
  'Cross-Origin-Opener-Policy: same-origin',
  'Cross-Origin-Resource-Policy: same-origin',
  'Origin-Agent-Cluster: ?1',
  'Referrer-Policy: no-referrer',
  'X-Content-Type-Options: nosniff',
  'X-DNS-Prefetch-Control: off',
  'X-Download-Options: noopen',
  'X-Frame-Options: SAMEORIGIN',
  'X-Permitted-Cross-Domain-Policies: none',
  'X-XSS-Protection: 0',
];
const CORS_ACTUAL = ['Access-Control-Allow-Credentials: true', 'Access-Control-Expose-Headers: X-Request-Id,Retry-After,Deprecation,Link,Idempotent-Replayed'];

let app: TestApp;
let secure: TestApp;
const logged: Logged[] = [];
const securelyLogged: Logged[] = [];
test.before(async () => {
  app = await startTestApp('sqlite', { CORS_ORIGINS: ORIGIN }, { logger: capturingLogger(logged) });
  secure = await startTestApp('sqlite', { CORS_ORIGINS: ORIGIN, SECURE_COOKIES: 'true', METRICS_TOKEN: 'metrics-token-0123456789' }, { logger: capturingLogger(securelyLogged) });
});
test.after.always(async () => {
  await app?.close();
  await secure?.close();
});

const requestLines = (log: Logged[], requestId: string) => log.filter((line) => line.message === 'request' && line.fields?.requestId === requestId);

async function logLineOf(log: Logged[], requestId: string): Promise<LogFields> {
  // Logged on 'finish', which may come a moment after the client read the answer.
  for (let i = 0; i < 50 && requestLines(log, requestId).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const lines = requestLines(log, requestId);
  if (lines.length !== 1) throw new Error(`${lines.length} log lines for ${requestId}`);
  return lines[0]!.fields!;
}

async function assertLogLine(t: import('ava').ExecutionContext, log: Logged[], requestId: string, expected: { method: string; path: string; status: number }) {
  const fields = await logLineOf(log, requestId);
  t.deepEqual(Object.keys(fields), ['requestId', 'method', 'path', 'status', 'durationMs', 'userId']);
  t.is(typeof fields.durationMs, 'number');
  t.true((fields.durationMs as number) >= 0);
  t.deepEqual({ ...fields, durationMs: 0 }, { requestId, ...expected, durationMs: 0, userId: undefined });
}

test('a request without Origin, cookie or request id: every header, in order, and its log line', async (t) => {
  const res = await raw(app.baseUrl, 'GET', '/api/v1/health/live?probe=1');
  t.is(res.status, 200);
  t.deepEqual(res.headers, [
    'X-Request-Id: <uuid>',
    ...HELMET_LOCAL,
    'Vary: Origin',
    ...CORS_ACTUAL,
    'Set-Cookie: XSRF-TOKEN=<token>; Path=/; SameSite=Lax',
    'Content-Type: application/json; charset=utf-8',
    'Content-Length: 15',
    'Date: <date>',
    'Connection: close',
  ]);
  t.is(res.body, '{"status":"ok"}');
  await assertLogLine(t, logged, res.requestId, { method: 'GET', path: '/api/v1/health/live', status: 200 });
});

test('an allowed Origin, an XSRF cookie and a well-formed request id: origin reflected, no new cookie, id kept', async (t) => {
  const res = await raw(app.baseUrl, 'GET', '/api/v1/health/live', { origin: ORIGIN, cookie: 'XSRF-TOKEN=abc; other=1', 'x-request-id': 'Client.req_42-x' });
  t.is(res.status, 200);
  t.deepEqual(res.headers, [
    'X-Request-Id: Client.req_42-x',
    ...HELMET_LOCAL,
    `Access-Control-Allow-Origin: ${ORIGIN}`,
    'Vary: Origin',
    ...CORS_ACTUAL,
    'Content-Type: application/json; charset=utf-8',
    'Content-Length: 15',
    'Date: <date>',
    'Connection: close',
  ]);
  await assertLogLine(t, logged, 'Client.req_42-x', { method: 'GET', path: '/api/v1/health/live', status: 200 });
});

test('another Origin and a malformed request id: no CORS header at all, a minted id', async (t) => {
  for (const id of ['has space', 'x'.repeat(65), '']) {
    const res = await raw(app.baseUrl, 'GET', '/api/v1/health/live', { origin: 'https://evil.example.com', 'x-request-id': id });
    t.is(res.status, 200);
    t.deepEqual(res.headers, [
      'X-Request-Id: <uuid>',
      ...HELMET_LOCAL,
      'Set-Cookie: XSRF-TOKEN=<token>; Path=/; SameSite=Lax',
      'Content-Type: application/json; charset=utf-8',
      'Content-Length: 15',
      'Date: <date>',
      'Connection: close',
    ], id);
  }
});

test('a CORS preflight from an allowed origin is answered 204 by the middleware', async (t) => {
  const res = await raw(app.baseUrl, 'OPTIONS', '/api/v1/coin/deduct', { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-xsrf-token' });
  t.is(res.status, 204);
  t.deepEqual(res.headers, [
    'X-Request-Id: <uuid>',
    ...HELMET_LOCAL,
    `Access-Control-Allow-Origin: ${ORIGIN}`,
    'Vary: Origin, Access-Control-Request-Headers',
    'Access-Control-Allow-Credentials: true',
    'Access-Control-Allow-Methods: GET,HEAD,PUT,PATCH,POST,DELETE',
    'Access-Control-Allow-Headers: content-type,x-xsrf-token',
    'Access-Control-Expose-Headers: X-Request-Id,Retry-After,Deprecation,Link,Idempotent-Replayed',
    'Content-Length: 0',
    'Date: <date>',
    'Connection: close',
  ]);
  t.is(res.body, '');
  await assertLogLine(t, logged, res.requestId, { method: 'OPTIONS', path: '/api/v1/coin/deduct', status: 204 });
});

test('bodies: too deep, not JSON, too large are refused before any route, with the headers of every answer', async (t) => {
  const deep = `${'['.repeat(65)}${']'.repeat(65)}`;
  const cases: [string, number, string][] = [
    [deep, 400, '{"statusCode":400,"error":"Bad Request","message":"Request body is nested deeper than 64 levels"}'],
    ['{"email":', 400, '{"statusCode":400,"error":"Bad Request","message":"Request body is not valid JSON"}'],
    [`{"a":"${'x'.repeat(1024 * 1024)}"}`, 413, '{"statusCode":413,"error":"Payload Too Large","message":"Request body is larger than 1 MiB"}'],
  ];
  for (const [body, status, answer] of cases) {
    const res = await raw(app.baseUrl, 'POST', '/api/v1/auth/login?next=1', { 'content-type': 'application/json' }, body);
    t.is(res.status, status);
    t.is(res.body, answer);
    t.deepEqual(res.headers, [
      'X-Request-Id: <uuid>',
      ...HELMET_LOCAL,
      'Vary: Origin',
      ...CORS_ACTUAL,
      // Refused before the XSRF cookie's turn: no cookie.
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(answer)}`,
      'Date: <date>',
      'Connection: close',
    ]);
    await assertLogLine(t, logged, res.requestId, { method: 'POST', path: '/api/v1/auth/login', status });
  }
});

test('a JSON body reaches the route parsed (its validation answers about the fields), a +json type too', async (t) => {
  for (const type of ['application/json', 'application/merge-patch+json', 'application/json; charset=utf-8']) {
    const res = await raw(app.baseUrl, 'POST', '/api/v1/auth/register', { 'content-type': type }, '{"email":"not-an-email","password":"long enough password","displayName":"A"}');
    t.is(res.status, 400, type);
    t.regex(res.body, /"field":"email"/, type);
  }
});

test('with secure cookies: HSTS and upgrade-insecure-requests, a Secure SameSite=None XSRF cookie', async (t) => {
  const res = await raw(secure.baseUrl, 'GET', '/api/v1/health/live');
  t.is(res.status, 200);
  t.deepEqual(res.headers, [
    'X-Request-Id: <uuid>',
    `${HELMET_LOCAL[0]};upgrade-insecure-requests`,
    ...HELMET_LOCAL.slice(1, 5),
    'Strict-Transport-Security: max-age=31536000; includeSubDomains',
    ...HELMET_LOCAL.slice(5),
    'Vary: Origin',
    ...CORS_ACTUAL,
    'Set-Cookie: XSRF-TOKEN=<token>; Path=/; Secure; SameSite=None',
    'Content-Type: application/json; charset=utf-8',
    'Content-Length: 15',
    'Date: <date>',
    'Connection: close',
  ]);
  await assertLogLine(t, securelyLogged, res.requestId, { method: 'GET', path: '/api/v1/health/live', status: 200 });
});

test('GET /metrics passes the request id and its log line only: no security, CORS or cookie layer', async (t) => {
  const res = await raw(secure.baseUrl, 'GET', '/metrics', { authorization: 'Bearer metrics-token-0123456789', origin: ORIGIN });
  t.is(res.status, 200);
  t.deepEqual(
    res.headers.filter((line) => !line.startsWith('Content-Length: ')),
    ['X-Request-Id: <uuid>', 'Cache-Control: no-store', 'Content-Type: text/plain; version=0.0.4; charset=utf-8', 'Date: <date>', 'Connection: close'],
  );
  await assertLogLine(t, securelyLogged, res.requestId, { method: 'GET', path: '/metrics', status: 200 });
});
