/**
 * API keys (ADR 035) through the real application, on SQLite and MariaDB: a session creates, lists and revokes
 * keys; a key works with `Authorization: Bearer mgs_…` and no cookie or CSRF header on the routes its scopes
 * allow, and is refused at once when revoked, expired, out of scope, rate limited, or when its user is deleted
 * or demoted. The route → scope table is pinned here, literally.
 */
import test, { type ExecutionContext } from 'ava';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { sleep, waitFor } from '../contract/fixtures.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { TestClient, type TestResponse } from '../support/test-client.ts';
import { connectWs, refusedStatus, type WsTestClient } from '../support/ws-test-client.ts';

const ADMIN = 'keys-admin@example.com';
const RATE = 25;
/** Spelled out: the test client takes a path starting with /api as already prefixed. */
const KEYS = '/api/v1/api-keys';

/** Every operation of the document that takes authentication, and the scope a key needs on it (null: keys refused). */
const ROUTE_SCOPES: Record<string, string | null> = {
  'GET /auth/profile': 'generate',
  'PATCH /auth/profile': null,
  'POST /auth/password': null,
  'DELETE /auth/account': null,
  // A change of email (ADR 065, where mail is configured): sessions only, like a change of password.
  'POST /auth/email': null,
  'POST /auth/logout': null,
  'GET /auth/identities': null,
  'DELETE /auth/identities/{provider}': null,
  'POST /auth/{provider}/link': null,
  'POST /api-keys': null,
  'GET /api-keys': null,
  'DELETE /api-keys/{id}': null,
  // Webhooks (ADR 036): sessions only for now.
  'GET /webhook-secret': null,
  'POST /webhook-secret/rotate': null,
  'GET /generate/{id}/webhooks': null,
  'POST /generate/{id}/webhooks/{deliveryId}/redeliver': null,
  'GET /templates': 'generate',
  'GET /templates/{id}': 'generate',
  'POST /generate': 'generate',
  'GET /generate': 'generate',
  'GET /generate/{id}': 'generate',
  'POST /generate/{id}/cancel': 'generate',
  'POST /uploads': 'generate',
  'POST /coin/deduct': 'generate',
  'GET /coin/transactions': 'generate',
  'GET /my-outputs': 'history',
  'GET /my-outputs/{id}/view-url': 'history',
  'GET /my-outputs/{id}/download-url': 'history',
  'DELETE /my-outputs/{id}': 'history',
  // The Comfy API v2 surface, served at /api/v2 (ADR 040).
  'POST /jobs': 'generate',
  'GET /jobs/{id}': 'generate',
  'GET /jobs/{id}/workflow': 'generate',
  'GET /jobs/{id}/events': 'generate',
  'POST /jobs/{id}/cancel': 'generate',
  'GET /assets/{id}': 'generate',
  'GET /assets/{id}/content': 'generate',
  // Its uploaded assets (ADR 042).
  'POST /assets': 'generate',
  'POST /assets/from-hash': 'generate',
  'HEAD /assets/by-hash/{hash}': 'generate',
  'DELETE /assets/{id}': 'generate',
  'POST /my-outputs/{id}/publish': null,
  'GET /my-outputs/{id}/publications': null,
  'GET /connect/{platform}': null,
  'GET /connections': null,
  'POST /disconnect/{platform}': null,
  'POST /llm/chat': null,
  'POST /admin/coin/add/{userId}': 'admin',
  'POST /admin/coin/deduct/{userId}': 'admin',
  'GET /admin/users': 'admin',
  'GET /admin/users/{id}/transactions': 'admin',
  // Not even an admin key: a reset link sets any user's password (ADR 062).
  'POST /admin/users/{id}/password-reset': null,
  // Nor a deletion, which ends an account for good (ADR 063).
  'DELETE /admin/users/{id}': null,
  'GET /admin/audit': 'admin',
  'GET /admin/jobs': 'admin',
  'POST /admin/jobs/{id}/cancel': 'admin',
  'GET /admin/queue': 'admin',
  'GET /admin/dead-letters': 'admin',
  'POST /admin/dead-letters/{id}/redrive': 'admin',
  'DELETE /admin/dead-letters/{id}': 'admin',
  'GET /admin/templates/stats': 'admin',
  'POST /admin/templates/{id}/test-runs': 'admin',
  'GET /admin/templates/{id}/test-runs': 'admin',
  'GET /admin/fleet': 'admin',
  'GET /workflow-templates/categories': 'admin',
  'GET /workflow-templates/parameter-presets': 'admin',
  'POST /workflow-templates': 'admin',
  'POST /templates/{id}/publish': 'admin',
  'POST /templates/{id}/unpublish': 'admin',
  'PUT /workflow-templates/{id}/parameter-map': 'admin',
  'PATCH /workflow-templates/{id}': 'admin',
  'GET /workflow-templates': 'admin',
  'GET /workflow-templates/{id}': 'admin',
  'DELETE /workflow-templates/{id}': 'admin',
  'GET /test/sqs-peek-messages': 'admin',
  'POST /test/sqs-queue-stack-test': 'admin',
  'POST /test/storage': 'admin',
  'POST /test/cache': 'admin',
};

function assertError(t: ExecutionContext, res: TestResponse, status: number, what: string): void {
  t.is(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  t.is(res.body?.statusCode, status, what);
  t.is(typeof res.body?.message, 'string', what);
}

const closedWithin = (socket: WsTestClient, ms: number): Promise<number | 'still open'> => Promise.race([socket.closed, delay(ms).then(() => 'still open' as const)]);

/** A caller with nothing but the key: no cookie jar, so no CSRF header either. */
const withKey = (app: TestApp, key: string): TestClient => {
  const client = app.client();
  client.bearer = key;
  return client;
};

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  const logged: string[] = [];
  const logger: Logger = {
    debug: (message, fields) => void logged.push(JSON.stringify({ message, fields })),
    info: (message, fields) => void logged.push(JSON.stringify({ message, fields })),
    warn: (message, fields) => void logged.push(JSON.stringify({ message, fields })),
    error: (message, fields) => void logged.push(JSON.stringify({ message, fields: String(fields?.error ?? ''), rest: fields })),
    child: () => logger,
  };
  let started: Promise<TestApp> | null = null;
  const app = () => (started ??= startTestApp(db, { ADMIN_EMAILS: ADMIN, API_KEY_RATE_LIMIT_PER_MINUTE: String(RATE), SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'no-reply@example.com' }, { logger }));
  test.after.always(async () => {
    if (started) await (await started).close();
  });

  const mint = async (owner: TestClient, body: Record<string, unknown>): Promise<string> => {
    const res = await owner.post(KEYS, body);
    if (res.status !== 201) throw new Error(`key not created: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.key as string;
  };

  test(title('a session creates, lists and revokes keys; the secret is shown once, never listed or logged; each change is audited'), async (t) => {
    const a = await app();
    const owner = a.client();
    const user = await owner.signUp();
    const created = await owner.post(KEYS, { name: 'ci runner', scopes: ['generate', 'history'], expiresAt: '2099-01-01T00:00:00.000Z' });
    t.is(created.status, 201, JSON.stringify(created.body));
    const { key, ...shown } = created.body;
    t.regex(key, /^mgs_[A-Za-z0-9]{12}[A-Za-z0-9_-]{43}$/);
    t.is(shown.prefix, key.slice(0, 16));
    t.like(shown, { name: 'ci runner', scopes: ['generate', 'history'], expiresAt: '2099-01-01T00:00:00.000Z', lastUsedAt: null });
    const second = await mint(owner, { name: 'second', scopes: ['history'] });
    t.not(second, key);

    const listed = await owner.get(KEYS);
    t.is(listed.status, 200);
    t.deepEqual(listed.body.map((k: { name: string }) => k.name), ['second', 'ci runner']);
    t.deepEqual(Object.keys(listed.body[1]).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes']);
    t.false(JSON.stringify(listed.body).includes(key.slice(16)), 'no secret in the list');

    t.is((await withKey(a, key).get('/generate')).status, 200);
    const used = (await owner.get(KEYS)).body.find((k: { id: string }) => k.id === shown.id);
    t.truthy(used.lastUsedAt, 'the use is recorded');

    const stranger = a.client();
    await stranger.signUp();
    assertError(t, await stranger.delete(`${KEYS}/${shown.id}`), 404, "someone else's key");
    assertError(t, await owner.delete(`${KEYS}/not-a-uuid`), 404, 'not an id');
    // The id as any UUID may be written (upper case) names the same key, as on every other route.
    t.is((await owner.delete(`${KEYS}/${shown.id.toUpperCase()}`)).status, 204);
    assertError(t, await owner.delete(`${KEYS}/${shown.id}`), 404, 'already revoked');
    t.deepEqual((await owner.get(KEYS)).body.map((k: { name: string }) => k.name), ['second']);

    const audit = await resolve(a.app.container, TOKENS.Repositories).audit.list({ page: 1, limit: 100 });
    const mine = audit.items.filter((entry) => entry.actorId === user.id);
    t.deepEqual(mine.map((entry) => entry.action).sort(), ['api-key.create', 'api-key.create', 'api-key.revoke']);
    t.like(mine.find((entry) => entry.action === 'api-key.revoke')!.details, { keyId: shown.id, name: 'ci runner', prefix: shown.prefix });
    t.false(JSON.stringify(audit.items).includes(key.slice(16)), 'no secret in the audit log');
    t.true(logged.length > 0, 'the log was captured');
    t.false(logged.some((line) => line.includes(key.slice(16)) || line.includes(second.slice(16))), 'no secret in the log');
  });

  test(title('bad bodies get 400 with details; a non-admin cannot mint an admin key; a cookie request without the CSRF header gets 403'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const bad = await owner.post(KEYS, { name: '', scopes: ['generate', 'everything'], expiresAt: '2001-01-01T00:00:00Z' });
    assertError(t, bad, 400, 'bad body');
    t.deepEqual(bad.body.details.map((d: { field: string }) => d.field).sort(), ['expiresAt', 'name', 'scopes']);
    assertError(t, await owner.post(KEYS, { name: 'x', scopes: [] }), 400, 'no scopes');
    assertError(t, await owner.post(KEYS, { name: 'x', scopes: ['admin'] }), 403, 'admin scope for a non-admin');
    owner.sendXsrf = false;
    assertError(t, await owner.post(KEYS, { name: 'x', scopes: ['generate'] }), 403, 'no CSRF header with a cookie');
    t.deepEqual((await (owner.sendXsrf = true, owner).get(KEYS)).body, [], 'nothing was created');
  });

  test(title('a generate key submits a job, reads and lists it with no cookie and no CSRF header; it cannot manage keys or read outputs'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const key = await mint(owner, { name: 'submitter', scopes: ['generate'] });
    const caller = withKey(a, key);
    const profile = await caller.get('/auth/profile');
    t.is(profile.status, 200);
    const templates = await caller.get('/templates');
    const image = templates.body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
    const submitted = await caller.post('/generate', { templateId: image.id, parameters: { prompt: 'key', width: 64, height: 64 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    // Polled with the owner's session: the key's own requests are rate limited (RATE a minute), and a slow run polls often.
    await waitFor(async () => (await owner.get(`/generate/${submitted.body.id}`)).body.status === 'succeeded', 'the job to finish', 30_000);
    const done = await caller.get(`/generate/${submitted.body.id}`);
    t.is(done.status, 200);
    t.is(done.body.outputs.length, 1);
    t.is((await owner.get(`/generate/${submitted.body.id}`)).body.status, 'succeeded', 'the job is the owner\'s');
    t.is((await caller.get('/generate')).body.total, 1);
    assertError(t, await caller.get('/my-outputs'), 403, 'history without the history scope');
    assertError(t, await caller.get(KEYS), 403, 'a key listing keys');
    const minting = await caller.post(KEYS, { name: 'child', scopes: ['generate'] });
    assertError(t, minting, 403, 'a key minting a key');
    t.regex(minting.body.message, /does not accept API keys/, 'told to use a session');
    assertError(t, await caller.post('/auth/logout'), 403, 'a key logging out');
    assertError(t, await caller.get('/admin/users'), 403, 'an admin route');

    const reader = withKey(a, await mint(owner, { name: 'reader', scopes: ['history'] }));
    const outputs = await reader.get('/my-outputs');
    t.is(outputs.status, 200);
    t.is(outputs.body.total, 1);
    t.is((await reader.get(`/my-outputs/${outputs.body.items[0].id}/view-url`)).status, 200);
    assertError(t, await reader.post('/generate', { templateId: image.id, parameters: { prompt: 'no' } }), 403, 'history key submitting');
    t.is((await reader.delete(`/my-outputs/${outputs.body.items[0].id}`)).status, 204);
  });

  test(title('a revoked key is refused at once, an expired one and one whose user is gone too; garbage keys get 401'), async (t) => {
    const a = await app();
    const owner = a.client();
    const user = await owner.signUp();
    const revoked = await owner.post(KEYS, { name: 'soon revoked', scopes: ['generate'] });
    const caller = withKey(a, revoked.body.key);
    t.is((await caller.get('/generate')).status, 200);
    t.is((await owner.delete(`${KEYS}/${revoked.body.id}`)).status, 204);
    assertError(t, await caller.get('/generate'), 401, 'revoked');

    // Seconds of margin before the expiry: a loaded machine may be slow to mint and call.
    const expiresAt = Date.now() + 4000;
    const expiring = withKey(a, await mint(owner, { name: 'short', scopes: ['generate'], expiresAt: new Date(expiresAt).toISOString() }));
    t.is((await expiring.get('/generate')).status, 200, 'before its expiry');
    await sleep(Math.max(0, expiresAt - Date.now()) + 100);
    assertError(t, await expiring.get('/generate'), 401, 'expired');

    const forged = `${revoked.body.key.slice(0, 16)}${'A'.repeat(43)}`;
    assertError(t, await withKey(a, forged).get('/generate'), 401, 'right prefix, wrong secret');
    assertError(t, await withKey(a, 'mgs_short').get('/generate'), 401, 'not a key');

    const live = withKey(a, await mint(owner, { name: 'orphan', scopes: ['generate'] }));
    t.is((await live.get('/generate')).status, 200);
    const database = resolve(a.app.container, TOKENS.Database) as unknown as SequelizeDatabase;
    await database.sequelize.query('DELETE FROM users WHERE id = ?', { replacements: [user.id] });
    assertError(t, await live.get('/generate'), 401, 'user deleted');
  });

  test(title("an administrator's admin key works on admin routes until the administrator is demoted"), async (t) => {
    const a = await app();
    const admin = a.client();
    const profile = await admin.signUp({ email: ADMIN });
    t.is(profile.role, 'admin');
    const key = withKey(a, await mint(admin, { name: 'ops', scopes: ['admin', 'generate'] }));
    t.is((await key.get('/admin/users')).status, 200);
    await resolve(a.app.container, TOKENS.Repositories).users.setRole(profile.id, 'user', new Date());
    assertError(t, await key.get('/admin/users'), 403, 'admin scope after demotion');
    t.is((await key.get('/generate')).status, 200, 'its other scopes still work');
  });

  test(title('each key may make API_KEY_RATE_LIMIT_PER_MINUTE requests a minute, then 429 with Retry-After; other keys are not affected'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const busy = withKey(a, await mint(owner, { name: 'busy', scopes: ['generate'] }));
    const statuses: number[] = [];
    for (let i = 0; i < RATE; i += 1) statuses.push((await busy.get('/generate')).status);
    t.deepEqual(statuses, Array.from({ length: RATE }, () => 200));
    const limited = await busy.get('/generate');
    assertError(t, limited, 429, 'over the limit');
    const retryAfter = Number(limited.headers.get('retry-after'));
    t.true(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const calm = withKey(a, await mint(owner, { name: 'calm', scopes: ['generate'] }));
    t.is((await calm.get('/generate')).status, 200);
  });

  test(title('a generate key opens the WebSocket and gets its jobs\' events; a history-only or revoked key is refused; revoking the key closes its socket (4003) only'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const wsUrl = `ws://127.0.0.1:${a.port}/api/v1/ws`;
    const created = await owner.post(KEYS, { name: 'socket', scopes: ['generate'] });
    t.is(created.status, 201);
    const key = created.body.key as string;
    t.is((await refusedStatus(wsUrl, { bearer: await mint(owner, { name: 'reader', scopes: ['history'] }) })).status, 401, 'a history-only key opens no socket');
    t.is((await refusedStatus(wsUrl, { bearer: `${key.slice(0, -4)}AAAA` })).status, 401, 'a wrong secret opens no socket');

    const socket = await connectWs(wsUrl, { bearer: key });
    const session = await connectWs(wsUrl, { cookie: owner.cookies.get('access_token')! });
    const caller = withKey(a, key);
    const image = (await caller.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
    const submitted = await caller.post('/generate', { templateId: image.id, parameters: { prompt: 'socket', width: 64, height: 64 } });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const completed = await socket.waitFor((m) => m.type === 'job.completed' && m.jobId === submitted.body.id, 30_000);
    t.true(Array.isArray(completed.outputs) && (completed.outputs as unknown[]).length > 0, 'the key socket got the completion with its outputs');
    socket.send({ type: 'sync' });
    t.is((await socket.waitFor((m) => m.type === 'job.snapshot')).type, 'job.snapshot');

    t.is((await owner.delete(`${KEYS}/${created.body.id}`)).status, 204);
    t.is(await closedWithin(socket, 3000), 4003, "revoking the key closes the socket it opened");
    t.is(await closedWithin(session, 300), 'still open', "the owner's session socket stays open");
    t.is((await refusedStatus(wsUrl, { bearer: key })).status, 401, 'a revoked key opens no socket');
    await session.close();
  });

  test(title('the OpenAPI document names the scope of every protected operation, or refuses keys, exactly as pinned'), async (t) => {
    const doc = (await (await app()).client().get('/openapi.json')).body;
    t.like(doc.components.securitySchemes.apiKeyAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'mgs_…' });
    const found: Record<string, string | null> = {};
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { security: Record<string, string[]>[]; 'x-api-key-scope'?: string | null; responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'servers' || operation.security.length === 0) continue; // `servers`: the path's own (the v2 surface)
        const scope = operation['x-api-key-scope'] ?? null;
        found[`${method.toUpperCase()} ${path}`] = scope;
        const keyRequirement = operation.security.find((requirement) => 'apiKeyAuth' in requirement);
        t.deepEqual(keyRequirement, scope ? { apiKeyAuth: [scope] } : undefined, `${method} ${path}: apiKeyAuth matches its scope`);
        t.truthy(operation.responses['403'], `${method} ${path} documents its 403`);
      }
    }
    t.deepEqual(found, ROUTE_SCOPES);
  });
  // Pins each field check of key creation, one field wrong at a time, and that nothing is created by a refused body.
  test(title('a name over 64 characters, a scope named twice, or an expiry that is not a time gets 400 naming the field; 64 characters are fine'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'n'.repeat(65), scopes: ['generate'] }, 'name'],
      [{ name: '   ', scopes: ['generate'] }, 'name'],
      [{ name: 'twice', scopes: ['generate', 'generate'] }, 'scopes'],
      [{ name: 'not a time', scopes: ['generate'], expiresAt: 'next tuesday' }, 'expiresAt'],
      [{ name: 'a number', scopes: ['generate'], expiresAt: 4_102_444_800_000 }, 'expiresAt'],
      [{ name: 'the past', scopes: ['generate'], expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(KEYS, body);
      assertError(t, res, 400, JSON.stringify(body));
      t.deepEqual(res.body.details?.map((d: { field: string }) => d.field), [field], JSON.stringify(body));
    }
    t.deepEqual((await owner.get(KEYS)).body, [], 'no refused body created a key');
    t.is((await owner.post(KEYS, { name: 'n'.repeat(64), scopes: ['generate'] })).status, 201, 'the longest name');
  });

  // Pins Cache-Control: no-store on the one response that carries the key.
  test(title('the response that carries a new key is not to be cached'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const created = await owner.post(KEYS, { name: 'uncached', scopes: ['generate'] });
    t.is(created.status, 201);
    t.is(created.headers.get('cache-control'), 'no-store');
  });

  // Pins the socket end of a key: a socket opened with a key closes (4001) when the key expires.
  test(title('a socket opened with a key that expires closes with 4001 at its expiry'), async (t) => {
    const a = await app();
    const owner = a.client();
    await owner.signUp();
    const wsUrl = `ws://127.0.0.1:${a.port}/api/v1/ws`;
    // Seconds of margin before the expiry: a loaded machine may be slow to mint and connect.
    const expiresAt = Date.now() + 10_000;
    const key = await mint(owner, { name: 'short socket', scopes: ['generate'], expiresAt: new Date(expiresAt).toISOString() });
    const socket = await connectWs(wsUrl, { bearer: key });
    t.teardown(() => socket.close());
    const lasting = await connectWs(wsUrl, { bearer: await mint(owner, { name: 'lasting', scopes: ['generate'] }) });
    t.teardown(() => lasting.close());
    if (Date.now() < expiresAt - 1000) t.is(await closedWithin(socket, 10), 'still open', 'open before the expiry');
    t.is(await closedWithin(socket, Math.max(0, expiresAt - Date.now()) + 3000), 4001, 'closed as expired');
    t.is(await closedWithin(lasting, 10), 'still open', 'a key without an expiry keeps its socket');
  });
}

for (const db of DATABASES) suite(db);
