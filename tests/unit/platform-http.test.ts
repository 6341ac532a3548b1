import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import test from 'ava';
import { authorizationSecrets, errorText, failure, formBody, jsonBody, parseJson, platformRequest, retryAfter, tokensOf, type PlatformResponse } from '../../adapters/social/platform-http.ts';
import { PlatformError } from '../../core/ports/social-platform.port.ts';

// How every social platform's answers are judged (transient, unauthorized, rejected), what of them reaches users,
// and the HTTP exchange itself, pinned rule by rule.

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse => ({ status, headers, text: typeof body === 'string' ? body : JSON.stringify(body) });

test('answers that are no JSON object read as an empty object', (t) => {
  t.deepEqual(parseJson(answer(200, '<html>')), {});
  t.deepEqual(parseJson(answer(200, 'null')), {});
  t.deepEqual(parseJson(answer(200, '"text"')), {});
  t.deepEqual(parseJson(answer(200, { a: 1 })), { a: 1 });
});

// Pins: users see the platform's own words (nested code and message, a plain error, its description, a message),
// never "ok", bounded to 300 characters; without words, the body or the status.
test("a platform's error in its own words, bounded", (t) => {
  t.is(errorText(answer(400, { error: { code: 'quota_exceeded', message: 'Daily limit' } })), 'quota_exceeded: Daily limit');
  t.is(errorText(answer(400, { error: 'invalid_request', error_description: 'bad code' })), 'invalid_request: bad code');
  t.is(errorText(answer(400, { error: { code: 'ok' }, message: 'spam' })), 'spam');
  t.is(errorText(answer(502, 'Bad Gateway')), 'Bad Gateway');
  t.is(errorText(answer(503, '')), 'HTTP 503');
  t.is(errorText(answer(400, { error: '' , message: 7 })), '{"error":"","message":7}');
  t.is(errorText(answer(400, 'x'.repeat(400))).length, 300);
});

test('a failure: 5xx, 408 and 429 are transient (with a bounded Retry-After), 401 and invalid_grant unauthorized, the rest rejected', (t) => {
  const judged = (status: number, body: unknown = {}, headers: Record<string, string> = {}) => {
    const error = failure(answer(status, body, headers), 'upload');
    return [error.kind, error.retryAfterSeconds ?? null];
  };
  t.deepEqual(judged(500), ['transient', null]);
  t.deepEqual(judged(503, {}, { 'retry-after': '30' }), ['transient', 30]);
  t.deepEqual(judged(429, {}, { 'retry-after': '86400' }), ['transient', 3600]);
  t.deepEqual(judged(408, {}, { 'retry-after': '-1' }), ['transient', null]);
  t.deepEqual(judged(429, {}, { 'retry-after': 'soon' }), ['transient', null]);
  t.deepEqual(judged(429, {}, { 'retry-after': '0' }), ['transient', 0]);
  t.deepEqual(judged(401), ['unauthorized', null]);
  t.deepEqual(judged(400, { error: 'invalid_grant' }), ['unauthorized', null]);
  t.deepEqual(judged(403), ['rejected', null]);
  t.deepEqual(judged(499), ['rejected', null]);
  t.is(failure(answer(403, { error: { message: 'forbidden' } }), 'upload').message, 'upload: HTTP 403 forbidden');
});

// Pins: Retry-After is delay-seconds or an HTTP-date (RFC 9110); a date is counted from now (0 once past), both are
// bounded to an hour, and anything else (negative, fractional, words) is no hint at all.
test('Retry-After: seconds or an HTTP-date, at most an hour', (t) => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  const hint = (value: string) => retryAfter({ 'retry-after': value }, now);
  t.is(hint('120'), 120);
  t.is(hint(' 7 '), 7);
  t.is(hint('999999'), 3600);
  t.is(hint('Tue, 01 Jan 2030 00:02:00 GMT'), 120);
  t.is(hint('Tue, 01 Jan 2030 00:00:00 GMT'), 0);
  t.is(hint('Mon, 31 Dec 2029 23:00:00 GMT'), 0, 'a date already past: retry now');
  t.is(hint('Wed, 02 Jan 2030 00:00:00 GMT'), 3600);
  for (const bad of ['-1', '1.5', 'soon', '', '1e3']) t.is(hint(bad), null, JSON.stringify(bad));
  t.is(retryAfter({}, now), null);
});

test('tokens: an answer without an access token is refused; optional fields only when well formed', (t) => {
  for (const bad of [{}, { access_token: '' }, { access_token: 5 }]) t.throws(() => tokensOf(bad, 'exchange'), { instanceOf: PlatformError, message: 'exchange: the answer holds no access token' });
  t.deepEqual(tokensOf({ access_token: 'a', refresh_token: 'r', expires_in: 3600, open_id: 'u1', scope: 'video.upload' }, 'x'), {
    accessToken: 'a',
    refreshToken: 'r',
    expiresInSeconds: 3600,
    accountId: 'u1',
    scope: 'video.upload',
  });
  t.deepEqual(tokensOf({ access_token: 'a', refresh_token: '', expires_in: 0, open_id: 7, scope: ['x'] }, 'x'), {
    accessToken: 'a',
    refreshToken: null,
    expiresInSeconds: null,
    accountId: null,
    scope: null,
  });
  t.is(tokensOf({ access_token: 'a', expires_in: '3600' }, 'x').expiresInSeconds, null);
});

test('authorization secrets: a state always, a PKCE verifier with its S256 challenge only when asked', (t) => {
  const plain = authorizationSecrets(false);
  t.regex(plain.state, /^[A-Za-z0-9_-]{43}$/);
  t.is(plain.codeVerifier, null);
  t.is(plain.codeChallenge, null);
  const pkce = authorizationSecrets(true);
  t.regex(pkce.codeVerifier!, /^[A-Za-z0-9_-]{43}$/);
  t.is(pkce.codeChallenge, createHash('sha256').update(pkce.codeVerifier!).digest('base64url'));
  t.not(pkce.state, plain.state);
});

test('form and JSON bodies carry their exact byte length', (t) => {
  t.deepEqual(formBody({ code: 'é&=' }), { body: 'code=%C3%A9%26%3D', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': 17 } });
  t.deepEqual(jsonBody({ title: 'é' }), { body: '{"title":"é"}', headers: { 'content-type': 'application/json; charset=UTF-8', 'content-length': 14 } });
});

const serve = async (t: { teardown(fn: () => void): void }, handler: Parameters<typeof createServer>[1]): Promise<string> => {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

test('an exchange returns any status with its body; a silent platform and a failing file are transient errors', async (t) => {
  let received = '';
  const base = await serve(t, (req, res) => {
    if (req.url === '/silent') return; // never answers
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received = body;
      res.writeHead(418, { 'x-tea': 'yes' }).end('short and stout');
    });
  });
  const teapot = await platformRequest(`${base}/upload`, { method: 'PUT', headers: { 'content-length': 5 }, body: Readable.from([Buffer.from('hello')]), idleTimeoutMs: 5000 });
  t.like(teapot, { status: 418, text: 'short and stout' });
  t.is(teapot.headers['x-tea'], 'yes');
  t.is(received, 'hello');
  t.like(await platformRequest(`${base}/form`, { method: 'POST', headers: { 'content-length': 3 }, body: 'a=1', idleTimeoutMs: 5000 }), { status: 418 });
  t.is(received, 'a=1', 'a string body is sent whole');
  t.like(await platformRequest(`${base}/status`, { method: 'GET', headers: {}, idleTimeoutMs: 1000 }), { status: 418 }, 'a request without a body is sent');
  const silent = await t.throwsAsync(platformRequest(`${base}/silent`, { method: 'GET', headers: {}, idleTimeoutMs: 200 }), { instanceOf: PlatformError });
  t.is(silent!.kind, 'transient');
  t.regex(silent!.message, /no answer within 200 ms/);
  async function* failing() {
    yield Buffer.from('he');
    throw new Error('disk gone');
  }
  const broken = await t.throwsAsync(platformRequest(`${base}/upload`, { method: 'PUT', headers: { 'content-length': 5 }, body: Readable.from(failing()), idleTimeoutMs: 5000 }), { instanceOf: PlatformError });
  t.is(broken!.kind, 'transient');
  t.regex(broken!.message, /reading the file: disk gone/);
});
