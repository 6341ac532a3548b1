import test from 'ava';
import nock from 'nock';
import { DATABASES } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';

// Guards of adapters/http/routes/admin.routes.ts and chat.routes.ts (API.md §9 and the admin section). The routes keep
// nothing of their own in the database: one database is enough.
const DB = DATABASES[0]!;
const OLLAMA = 'http://ollama-audit.test:11434';
const ADMIN = 'audit-admin@example.com';
let app: TestApp;
let admin: TestClient;

test.before(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  app = await startTestApp(DB, { ADMIN_EMAILS: ADMIN, LLM_PROVIDER: 'ollama', LLM_URL: OLLAMA, LLM_MODEL: 'llama3.2', LLM_TIMEOUT_MS: '2000' });
  admin = app.client();
  await admin.signUp({ email: ADMIN, displayName: 'Audit Admin' });
});
test.after.always(async () => {
  await app?.close();
  nock.cleanAll();
  nock.enableNetConnect();
});

// Pins: a page or limit out of range on each admin list is a 400 with the field named (not a 500 on a missing page).
test.serial('the admin lists answer 400 for a page or limit out of range', async (t) => {
  const me = await app.client().signUp();
  const cases: [string, string][] = [
    ['/admin/users?limit=101', 'limit'],
    [`/admin/users/${me.id}/transactions?limit=101`, 'limit'],
    ['/admin/audit?limit=101', 'limit'],
  ];
  for (const [path, field] of cases) {
    const res = await admin.get(path);
    t.is(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
    t.is(res.body.statusCode, 400);
    t.deepEqual(res.body.details, [{ field, message: 'must be an integer from 1 to 100' }], path);
  }
  t.is((await admin.get('/admin/users?limit=100')).status, 200);
});

// Pins: a user id in upper case names the same user on the ledger route, as on the coin adjustment route (ids are
// lower-case UUIDs; the path's case must not turn an existing user into a 404).
test.serial("an admin reads a user's ledger by the user's id in upper case", async (t) => {
  const me = await app.client().signUp();
  const upper = me.id.toUpperCase();
  t.is((await admin.post(`/admin/coin/add/${upper}`, { amount: 7, reason: 'admin_adjustment' })).status, 200);
  const res = await admin.get(`/admin/users/${upper}/transactions`);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(
    res.body.items.map((row: { amount: number; reason: string }) => [row.amount, row.reason]),
    [[7, 'admin_adjustment'], [100, 'signup_bonus']],
  );
});

// Pins: a streamed answer whose model sent no piece still streams: text/event-stream headers and the done event.
test.serial('Accept: text/event-stream with an empty answer still answers as a stream with its done event', async (t) => {
  const client = app.client();
  await client.signUp();
  nock(OLLAMA).post('/api/generate').reply(200, '{"response":"","done":true}\n', { 'content-type': 'application/x-ndjson' });
  const res = await client.post('/llm/chat', { prompt: 'say nothing' }, { accept: 'text/event-stream' });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  t.is(res.body as unknown as string, 'event: done\ndata: {"response":""}\n\n');
});
