/**
 * Regression tests for exactly-once defects (coins, jobs, sessions, sockets). Each test asserts what the
 * service must do per API.md; they were written red against the code of their time.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import sharp from 'sharp';
import { WebSocket } from 'ws';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { queueMessageModel } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { interceptTransactions } from '../support/faults.ts';
import { createMariaDatabase, DATABASES, type TestDatabase } from '../support/databases.ts';
import { openSocket } from '../support/socket-client.ts';
import { startTestApp, type StartTestAppOptions, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';
import { connectWs, refusedStatus, type WsTestClient } from '../support/ws-test-client.ts';

const ADMIN = 'admin@example.com';

interface LedgerRow {
  id: string;
  amount: number;
  reason: string;
  relatedEntityId: string | null;
  balanceAfter: number;
}

/** A template workflow of model-free nodes; `tag` makes its SaveImage prefix (an unmapped input) unique. */
const pricedWorkflow = (tag: string) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0x00ff00 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: `priced-${tag}` } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});

const pricedMap = () => ({
  prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true },
  width: { preset: 'width', node_id: '1', input_name: 'width', max: 512 },
});

const PARAMETERS = { prompt: 'a green square', width: 64 };

/** Starts an app with an admin signed up (ADMIN_EMAILS), ready to create templates. */
async function setup(t: ExecutionContext, db: TestDatabase, env: Record<string, string> = {}, options: StartTestAppOptions = {}) {
  const app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, ...env }, options);
  t.teardown(() => app.close());
  const admin = app.client();
  await admin.signUp({ email: ADMIN, displayName: 'The Admin' });
  return { app, admin };
}

/** Creates an active text-to-image template of `cost` (step 1 + step 2); fails loudly if either step is refused. */
async function createTemplate(admin: TestClient, cost: number): Promise<{ id: string; cost: number; workflow: Record<string, { class_type: string; inputs: Record<string, unknown> }> }> {
  const tag = randomUUID().slice(0, 8);
  const created = await admin.post('/workflow-templates', { name: `Priced ${tag}`, category: 'text-to-image', workflow: pricedWorkflow(tag), cost, outputType: 'image' });
  if (created.status !== 201) throw new Error(`template create: ${created.status} ${JSON.stringify(created.body)}`);
  const mapped = await admin.put(`/workflow-templates/${created.body.id}/parameter-map`, pricedMap());
  if (mapped.status !== 200) throw new Error(`template map: ${mapped.status} ${JSON.stringify(mapped.body)}`);
  if (mapped.body.cost !== cost || mapped.body.isActive !== true) throw new Error(`template not as created: ${JSON.stringify(mapped.body)}`);
  const published = await admin.post(`/templates/${created.body.id}/publish`, {});
  if (published.status !== 200) throw new Error(`template publish: ${published.status} ${JSON.stringify(published.body)}`);
  return { id: created.body.id, cost, workflow: mapped.body.workflow };
}

async function balanceOf(client: TestClient): Promise<number> {
  const profile = await client.get('/auth/profile');
  if (profile.status !== 200) throw new Error(`profile: ${profile.status} ${JSON.stringify(profile.body)}`);
  return profile.body.coinBalance;
}

async function ledgerOf(client: TestClient): Promise<LedgerRow[]> {
  const page = await client.get('/coin/transactions?limit=100');
  if (page.status !== 200) throw new Error(`transactions: ${page.status} ${JSON.stringify(page.body)}`);
  return page.body.items;
}

const describeLedger = (rows: LedgerRow[]) => JSON.stringify(rows.map((r) => [r.reason, r.amount, r.relatedEntityId]));

/** Polls the job until it reaches one of `statuses` or the time is up; returns the last seen job (or the 404 body). */
async function pollJob(client: TestClient, jobId: string, statuses: string[], timeoutMs: number): Promise<{ status?: string; [field: string]: unknown }> {
  const deadline = Date.now() + timeoutMs;
  let last: { status?: string } = {};
  while (Date.now() < deadline) {
    const res = await client.get(`/generate/${jobId}`);
    last = res.body;
    if (res.status === 200 && statuses.includes(res.body.status)) return res.body;
    await delay(100);
  }
  return last;
}

/** A cookie's value from a fetch Response's Set-Cookie headers. */
const setCookie = (response: Response, name: string): string | null => {
  for (const cookie of response.headers.getSetCookie()) {
    const [pair] = cookie.split(';');
    const index = pair!.indexOf('=');
    if (pair!.slice(0, index).trim() === name) return pair!.slice(index + 1).trim() || null;
  }
  return null;
};

/** The claims of a JWT (the client may read its own access token's `exp`). */
const jwtClaims = (token: string): { iat: number; exp: number } => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

const wsUrlOf = (app: TestApp) => `ws://127.0.0.1:${app.port}/api/v1/ws`;

/** The socket's close code, or 'still open' after `ms`. */
const closedWithin = (socket: WsTestClient, ms: number): Promise<number | 'still open'> => Promise.race([socket.closed, delay(ms).then(() => 'still open' as const)]);

for (const db of DATABASES) {
  const title = (name: string) => `[${db}] ${name}`;

  // 1 ────────────────────────────────────────────────────────────────────────────────────────────
  for (const withKey of [true, false]) {
    test.serial(title(`402 ${withKey ? 'with' : 'without'} an Idempotency-Key returns the linked deduction`), async (t) => {
      const { app, admin } = await setup(t, db, { SIGNUP_BONUS_COINS: '2' });
      const template = await createTemplate(admin, 3);
      const user = app.client();
      await user.signUp();
      t.is(await balanceOf(user), 2);
      const requestId = randomUUID();
      const deducted = await user.post('/coin/deduct', { amount: 1, reason: 'image_generation', relatedEntityId: requestId });
      t.is(deducted.status, 200, JSON.stringify(deducted.body));
      t.is(deducted.body.coinBalance, 1);

      const headers: Record<string, string> = withKey ? { 'Idempotency-Key': `submit-${randomUUID()}` } : {};
      const submitted = await user.post('/generate', { templateId: template.id, parameters: PARAMETERS, requestId }, headers);
      t.is(submitted.status, 402, JSON.stringify(submitted.body));

      const rows = await ledgerOf(user);
      t.is(await balanceOf(user), 2, `the linked deduction is given back at once; ledger: ${describeLedger(rows)}`);
      const refunds = rows.filter((r) => r.reason === 'generation_refund');
      t.deepEqual(refunds.map((r) => [r.amount, r.relatedEntityId]), [[1, requestId]], 'one generation_refund of the deduction');
      t.is((await user.get(`/generate/${requestId}`)).status, 404, 'no job was created');
    });
  }

  // A submit refused for its own fields (a webhook it may not call, a deadline out of range) is a refused request too.
  for (const [what, extra] of [
    ['a webhook to a loopback address', { webhook: 'https://127.0.0.1/hook' }],
    ['a start deadline out of range', { startDeadlineSeconds: 0 }],
  ] as const) {
    test.serial(title(`400 for ${what} returns the linked deduction`), async (t) => {
      const { app, admin } = await setup(t, db, { SIGNUP_BONUS_COINS: '2' });
      const template = await createTemplate(admin, 1);
      const user = app.client();
      await user.signUp();
      const requestId = randomUUID();
      t.is((await user.post('/coin/deduct', { amount: 1, reason: 'image_generation', relatedEntityId: requestId })).status, 200);
      t.is(await balanceOf(user), 1);

      const submitted = await user.post('/generate', { templateId: template.id, parameters: PARAMETERS, requestId, ...extra });
      t.is(submitted.status, 400, JSON.stringify(submitted.body));

      const rows = await ledgerOf(user);
      t.is(await balanceOf(user), 2, `the linked deduction is given back at once; ledger: ${describeLedger(rows)}`);
      t.deepEqual(rows.filter((r) => r.reason === 'generation_refund').map((r) => [r.amount, r.relatedEntityId]), [[1, requestId]]);
      t.is((await user.get(`/generate/${requestId}`)).status, 404, 'no job was created');
    });
  }

  // 2 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('20 concurrent submits with one requestId and different Idempotency-Keys: one job, one charge, no 5xx'), async (t) => {
    const { app, admin } = await setup(t, db);
    const template = await createTemplate(admin, 1);
    const user = app.client();
    await user.signUp();
    const start = await balanceOf(user);
    const requestId = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        user.post('/generate', { templateId: template.id, parameters: PARAMETERS, requestId }, { 'Idempotency-Key': `concurrent-${i}-${randomUUID()}` }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    const rows = await ledgerOf(user);
    t.log(`statuses: ${statuses.join(',')}; ledger: ${describeLedger(rows)}`);
    t.deepEqual(
      responses.filter((r) => r.status >= 500).map((r) => [r.status, r.body?.message]),
      [],
      `no server errors; statuses: ${statuses.join(',')}`,
    );
    t.is(statuses.filter((s) => s === 202).length, 1, `exactly one 202; statuses: ${statuses.join(',')}`);
    t.is(statuses.filter((s) => s === 200).length, 19, `the other 19 answer 200; statuses: ${statuses.join(',')}`);
    t.true(
      responses.filter((r) => r.status === 200 || r.status === 202).every((r) => r.body.id === requestId),
      'every success names the one job',
    );
    t.is(await balanceOf(user), start - 1, `charged exactly once; ledger: ${describeLedger(rows)}`);
    t.is(rows.filter((r) => r.reason === 'image_generation').length, 1, `one charge row; ledger: ${describeLedger(rows)}`);
  });

  // 3 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('a dead-lettered message fails its job and refunds it'), async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-deadletter-'));
    const maria = db === 'mariadb' ? await createMariaDatabase() : null;
    const shared = {
      DATA_DIR: dataDir,
      ...(maria ? { DATABASE_URL: maria.url } : {}),
      MAX_ATTEMPTS: '3',
      ADMIN_EMAILS: ADMIN,
    };
    // Both apps use the database chosen above through DATA_DIR / DATABASE_URL; 'sqlite' here only keeps
    // startTestApp from creating a MariaDB database of its own that nothing would use.
    const apps: TestApp[] = [];
    t.teardown(async () => {
      for (const started of apps.reverse()) await started.close();
      await maria?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const api = await startTestApp('sqlite', { ...shared, ROLES: 'api' });
    apps.push(api);
    const admin = api.client();
    await admin.signUp({ email: ADMIN });
    const template = await createTemplate(admin, 5);
    const user = api.client();
    await user.signUp();
    const start = await balanceOf(user);
    const submitted = await user.post('/generate', { templateId: template.id, parameters: PARAMETERS });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const jobId: string = submitted.body.id;
    t.is(await balanceOf(user), start - 5);

    // The message as a queue leaves it after MAX_ATTEMPTS deliveries whose consumers all died.
    const database = api.app.container.get<SequelizeDatabase>(TOKENS.Database);
    const messages = queueMessageModel(database.sequelize);
    // The message id is the outbox entry's; the job is named in the body.
    const messageOf = async () =>
      ((await messages.findAll({ attributes: ['id', 'body'], raw: true })) as unknown as { id: string; body: string }[]).find(
        (row) => (JSON.parse(row.body) as { jobId?: string }).jobId === jobId,
      );
    const deadline = Date.now() + 5000;
    let message = await messageOf();
    while (!message && Date.now() < deadline) {
      await delay(50);
      message = await messageOf();
    }
    t.truthy(message, 'the job has its queue message');
    const [changed] = await messages.update({ attempts: 3, visible_at: new Date(Date.now() - 60_000) }, { where: { id: message?.id ?? '' } });
    t.is(changed, 1);

    const worker = await startTestApp('sqlite', { ...shared, ROLES: 'worker' });
    apps.push(worker);
    const job = await pollJob(user, jobId, ['failed', 'succeeded', 'cancelled'], 10_000);
    const row = (await messages.findOne({ attributes: ['status', 'last_error'], where: { id: message?.id ?? '' }, raw: true })) as { status: string; last_error: string | null } | null;
    t.is(
      job.status,
      'failed',
      `a job whose message went to the dead-letter queue fails; job status ${job.status}, queue row ${JSON.stringify(row)}`,
    );
    const rows = await ledgerOf(user);
    t.is(await balanceOf(user), start, `its cost is refunded; ledger: ${describeLedger(rows)}`);
    t.deepEqual(
      rows.filter((r) => r.reason === 'generation_refund').map((r) => [r.amount, r.relatedEntityId]),
      [[5, jobId]],
    );
  });

  // 4 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('a WebSocket closes on logout (4003); a socket of another session of the same user stays open'), async (t) => {
    const app = await startTestApp(db);
    t.teardown(() => app.close());
    const first = app.client();
    const me = await first.signUp();
    const second = app.client();
    const login = await second.post('/auth/login', { email: me.email, password: me.password });
    t.is(login.status, 200);
    const url = wsUrlOf(app);
    const revoked = await connectWs(url, { cookie: first.cookies.get('access_token')! });
    const other = await connectWs(url, { cookie: second.cookies.get('access_token')! });
    t.teardown(async () => {
      await revoked.close();
      await other.close();
    });
    t.is((await first.post('/auth/logout')).status, 204);
    t.is(await closedWithin(revoked, 2000), 4003, 'the logged-out session\'s socket is closed by the server with 4003');
    await delay(300);
    t.is(other.ws.readyState, WebSocket.OPEN, 'the other session\'s socket is untouched');
    other.send({ type: 'sync' });
    t.is((await other.waitFor((m) => m.type === 'job.snapshot', 3000)).type, 'job.snapshot');
  });

  // 5 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('a WebSocket closes (4001) when its access token expires'), async (t) => {
    const app = await startTestApp(db, { ACCESS_TOKEN_TTL: '2' });
    t.teardown(() => app.close());
    const client = app.client();
    await client.signUp();
    const token = client.cookies.get('access_token')!;
    const socket = await connectWs(wsUrlOf(app), { cookie: token });
    t.teardown(() => socket.close());
    const expiresInMs = jwtClaims(token).exp * 1000 - Date.now();
    t.true(expiresInMs <= 2100, `token lives ${expiresInMs} ms`);
    t.is(await closedWithin(socket, 5000), 4001, 'closed by the server with 4001 once the token expired');
  });

  test.serial(title('a bearer WebSocket that re-authenticates in band stays open past the first token\'s expiry'), async (t) => {
    const app = await startTestApp(db, { ACCESS_TOKEN_TTL: '2' });
    t.teardown(() => app.close());
    const client = app.client();
    await client.signUp();
    const firstToken = client.cookies.get('access_token')!;
    const first = jwtClaims(firstToken);
    const socket = await connectWs(wsUrlOf(app), { bearer: firstToken });
    t.teardown(() => socket.close());

    // Refresh in the next second of the clock, so the fresh token (whole-second iat) outlives the first by a second.
    await delay(Math.max(0, (first.iat + 1) * 1000 + 100 - Date.now()));
    const refreshed = await client.post('/auth/refresh');
    t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
    const freshToken = client.cookies.get('access_token')!;
    t.not(freshToken, firstToken);
    const fresh = jwtClaims(freshToken);
    t.true(fresh.exp >= first.exp + 1, `fresh exp ${fresh.exp}, first exp ${first.exp}`);
    t.true(Date.now() < first.exp * 1000 - 300, 'the first token is still valid when the fresh one is sent');
    socket.send({ type: 'auth', token: freshToken });
    const answer = await socket.waitFor((m) => m.type === 'auth.ok' || m.type === 'error', 1500).catch(() => null);
    t.is(answer?.type, 'auth.ok', `in-band auth is accepted; got ${JSON.stringify(answer)}`);

    // Half a second past the first token's expiry, half a second before the fresh one's.
    await delay(Math.max(0, first.exp * 1000 + 500 - Date.now()));
    t.true(Date.now() < fresh.exp * 1000 - 200);
    t.is(socket.ws.readyState, WebSocket.OPEN, 'still open on the fresh token');
  });

  // 6 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('a linked deduction made with an upper-case UUID is found: the job is paid once'), async (t) => {
    const { app, admin } = await setup(t, db);
    const template = await createTemplate(admin, 4);
    const user = app.client();
    await user.signUp();
    const start = await balanceOf(user);
    const requestId = randomUUID().toUpperCase();
    const deducted = await user.post('/coin/deduct', { amount: 4, reason: 'image_generation', relatedEntityId: requestId });
    t.is(deducted.status, 200, JSON.stringify(deducted.body));
    const submitted = await user.post('/generate', { templateId: template.id, parameters: PARAMETERS, requestId });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    t.is(submitted.body.id, requestId.toLowerCase());
    const rows = await ledgerOf(user);
    t.is(await balanceOf(user), start - 4, `paid by the deduction, not charged again; ledger: ${describeLedger(rows)}`);
    t.is(rows.filter((r) => r.reason === 'image_generation').length, 1, `one image_generation row; ledger: ${describeLedger(rows)}`);
  });

  // 7 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('raw workflows are priced: (a) a non-admin raw workflow matching no active template is 400'), async (t) => {
    const { app, admin } = await setup(t, db);
    await createTemplate(admin, 4);
    const user = app.client();
    await user.signUp();
    const start = await balanceOf(user);
    const unmatched = {
      '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 0xff0000 } },
      '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'unmatched' } },
    };
    const submitted = await user.post('/generate', { workflow: unmatched });
    t.is(submitted.status, 400, `a raw workflow no template prices is refused; got ${submitted.status} ${JSON.stringify(submitted.body).slice(0, 200)}`);
    t.is(await balanceOf(user), start);
  });

  test.serial(title('raw workflows are priced: (b) a non-admin raw workflow equal to an active template is charged its cost'), async (t) => {
    const { app, admin } = await setup(t, db);
    const template = await createTemplate(admin, 4);
    const got = await admin.get(`/workflow-templates/${template.id}`);
    t.is(got.status, 200);
    const workflow = structuredClone(got.body.workflow) as Record<string, { inputs: Record<string, unknown> }>;
    workflow['3']!.inputs.value = 'a raw prompt'; // mapped: prompt
    workflow['1']!.inputs.width = 128; // mapped: width
    const user = app.client();
    await user.signUp();
    const start = await balanceOf(user);
    const submitted = await user.post('/generate', { workflow });
    t.is(submitted.status, 202, JSON.stringify(submitted.body).slice(0, 300));
    const rows = await ledgerOf(user);
    t.is(await balanceOf(user), start - template.cost, `charged the template's cost; ledger: ${describeLedger(rows)}`);
    t.deepEqual(
      rows.filter((r) => r.reason === 'image_generation').map((r) => [r.amount, r.relatedEntityId]),
      [[-template.cost, submitted.body.id]],
    );
  });

  test.serial(title('raw workflows are priced: (c) an admin raw workflow matching nothing is charged RAW_WORKFLOW_COST'), async (t) => {
    const { admin } = await setup(t, db, { RAW_WORKFLOW_COST: '7' });
    const start = await balanceOf(admin);
    const unmatched = {
      '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 0x0000ff } },
      '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'admin-raw' } },
    };
    const submitted = await admin.post('/generate', { workflow: unmatched });
    t.is(submitted.status, 202, JSON.stringify(submitted.body).slice(0, 300));
    const rows = await ledgerOf(admin);
    t.is(await balanceOf(admin), start - 7, `charged RAW_WORKFLOW_COST; ledger: ${describeLedger(rows)}`);
  });

  // 8 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('no phantom job.queued when the Idempotency-Key transaction rolls back'), async (t) => {
    let failNextComplete = false;
    const { app, admin } = await setup(t, db, {}, {
      beforeStart({ container }) {
        // The routes are built inside buildApplication and hold the singleton unit of work: wrap its run()
        // so that storing the remembered response inside the submit's transaction fails once.
        const uow = resolve(container, TOKENS.UnitOfWork);
        const faulty = interceptTransactions({ run: uow.run.bind(uow) }, async (call, proceed) => {
          if (failNextComplete && call.repo === 'idempotency' && call.method === 'complete') {
            failNextComplete = false;
            throw new Error('injected: storing the idempotent response failed');
          }
          return proceed();
        });
        uow.run = faulty.run;
      },
    });
    const template = await createTemplate(admin, 2);
    const user = app.client();
    await user.signUp();
    const start = await balanceOf(user);
    const socket = await openSocket(user);
    t.teardown(() => socket.close());
    const requestId = randomUUID();
    failNextComplete = true;
    const submitted = await user.post('/generate', { templateId: template.id, parameters: PARAMETERS, requestId }, { 'Idempotency-Key': `rollback-${requestId}` });
    t.false(failNextComplete, 'the injected failure fired');
    t.false(submitted.status >= 200 && submitted.status < 300, `the failed request does not report success: ${submitted.status}`);
    await delay(500);
    t.deepEqual(
      socket.messages.filter((m) => m.jobId === requestId).map((m) => m.type),
      [],
      'no event for a job that was rolled back',
    );
    t.is((await user.get(`/generate/${requestId}`)).status, 404, 'the job does not exist');
    t.is(await balanceOf(user), start, 'nothing charged');
  });

  // 9 ────────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('refresh-token reuse racing a rotation leaves no token alive'), async (t) => {
    const app = await startTestApp(db);
    t.teardown(() => app.close());
    const client = app.client();
    const me = await client.signUp();
    const base = `${app.baseUrl}/api/v1`;
    const refresh = (token: string) => fetch(`${base}/auth/refresh`, { method: 'POST', headers: { cookie: `refresh_token=${token}` } });
    const login = async () => {
      const response = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: me.email, password: me.password }),
      });
      t.is(response.status, 200);
      const token = setCookie(response, 'refresh_token');
      if (!token) throw new Error('login set no refresh_token');
      return token;
    };

    // Without a race, reuse already revokes the family (so what follows tests the race, not the rule).
    const original = await login();
    const rotated = await refresh(original);
    t.is(rotated.status, 200);
    const next = setCookie(rotated, 'refresh_token')!;
    t.is((await refresh(original)).status, 401, 'a rotated token is refused');
    t.is((await refresh(next)).status, 401, 'sequential reuse revoked the family');

    const survivors: string[] = [];
    const rounds = [10, 10, 2, 3, 10, 2, 5, 10, 2, 3];
    for (const [round, concurrency] of rounds.entries()) {
      const token = await login();
      const responses = await Promise.all(Array.from({ length: concurrency }, () => refresh(token)));
      const issued = responses.filter((r) => r.status === 200).map((r) => setCookie(r, 'refresh_token')!);
      t.true(responses.every((r) => r.status === 200 || r.status === 401), `statuses ${responses.map((r) => r.status).join(',')}`);
      for (const fresh of issued) {
        const used = await refresh(fresh);
        if (used.status !== 401) survivors.push(`round ${round} (${concurrency} concurrent): a token issued in the race answered ${used.status}`);
      }
    }
    t.deepEqual(survivors, [], 'a reused token revokes its whole family, including tokens issued while it was being reused');
  });

  // 10 ───────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('a linked deduction above the price is refunded the difference'), async (t) => {
    const { app, admin } = await setup(t, db);
    const template = await createTemplate(admin, 3);
    const user = app.client();
    await user.signUp();
    const start = await balanceOf(user);
    const requestId = randomUUID();
    t.is((await user.post('/coin/deduct', { amount: 10, reason: 'image_generation', relatedEntityId: requestId })).status, 200);
    const submitted = await user.post('/generate', { templateId: template.id, parameters: PARAMETERS, requestId });
    t.is(submitted.status, 202, JSON.stringify(submitted.body));
    const rows = await ledgerOf(user);
    t.is(await balanceOf(user), start - 3, `only the price is kept; ledger: ${describeLedger(rows)}`);
    t.deepEqual(
      rows.filter((r) => r.reason === 'generation_refund').map((r) => r.amount),
      [7],
      'the difference comes back as one generation_refund',
    );
  });

  // 11 ───────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('two outputs with one basename do not overwrite each other'), async (t) => {
    const { admin } = await setup(t, db, { RAW_WORKFLOW_COST: '1' });
    const workflow = {
      '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0xff0000 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'a/x' } },
      '3': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0x0000ff } },
      '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'b/x' } },
    };
    const submitted = await admin.post('/generate', { workflow });
    t.is(submitted.status, 202, JSON.stringify(submitted.body).slice(0, 300));
    const job = await pollJob(admin, submitted.body.id, ['succeeded', 'failed', 'cancelled'], 15_000);
    t.is(job.status, 'succeeded', JSON.stringify(job.error ?? job).slice(0, 300));
    const history = await admin.get('/my-outputs?limit=10');
    t.is(history.status, 200);
    const items = history.body.items as { id: string; fileName: string }[];
    t.is(items.length, 2, 'one history item per file');
    t.is(new Set(items.map((item) => item.fileName)).size, 2, `distinct file names: ${items.map((item) => item.fileName).join(', ')}`);
    const colours: string[] = [];
    for (const item of items) {
      const link = await admin.get(`/my-outputs/${item.id}/download-url`);
      t.is(link.status, 200);
      const file = await fetch(link.body.downloadUrl);
      t.is(file.status, 200);
      const pixels = await sharp(Buffer.from(await file.arrayBuffer())).raw().toBuffer();
      colours.push([...pixels.subarray(0, 3)].join(','));
    }
    t.deepEqual(colours.sort(), ['0,0,255', '255,0,0'], 'each file keeps its own pixels');
  });

  // 12 ───────────────────────────────────────────────────────────────────────────────────────────
  test.serial(title('a same-origin WebSocket upgrade is accepted'), async (t) => {
    const app = await startTestApp(db, { CORS_ORIGINS: 'http://app.example.test' });
    t.teardown(() => app.close());
    const client = app.client();
    await client.signUp();
    const cookie = client.cookies.get('access_token')!;
    const sameOrigin = `http://127.0.0.1:${app.port}`;
    let socket: WsTestClient | null = null;
    try {
      socket = await connectWs(wsUrlOf(app), { cookie, origin: sameOrigin });
    } catch (error) {
      t.fail(`the page's own origin ${sameOrigin} was refused: ${(error as Error).message}`);
    }
    if (socket) {
      t.is(socket.ws.readyState, WebSocket.OPEN);
      await socket.close();
    }
    t.is((await refusedStatus(wsUrlOf(app), { cookie, origin: 'http://evil.example.test' })).status, 403, 'a foreign origin is still refused');
  });
}
