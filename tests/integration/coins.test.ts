import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { interceptTransactions } from '../support/faults.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

const ADMIN = 'admin@example.com';
const AMOUNT = 'must be an integer from 1 to 1000000';
const USER_REASON = 'must be one of image_generation, video_generation';
const ANY_REASON = 'must be one of image_generation, video_generation, generation_refund, admin_adjustment, signup_bonus';

function assertError(t: ExecutionContext, res: TestResponse, status: number, details?: { field: string; message: string }[]): void {
  t.is(res.status, status, JSON.stringify(res.body));
  t.is(res.body.statusCode, status);
  t.is(typeof res.body.message, 'string');
  if (details) t.deepEqual(res.body.details, details);
}

/** Every row of the caller's ledger (or a user's, for an admin path), through the paged API. */
async function allTransactions(client: TestClient, path = '/coin/transactions'): Promise<{ id: string; amount: number; balanceAfter: number; reason: string }[]> {
  const rows = [];
  for (let page = 1; ; page++) {
    const res = await client.get(`${path}?page=${page}&limit=100`);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    rows.push(...res.body.items);
    if (page >= res.body.totalPages) return rows;
  }
}

const sum = (rows: { amount: number }[]) => rows.reduce((total, row) => total + row.amount, 0);

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<TestApp> | null = null;
  const app = () => (started ??= startTestApp(db, { ADMIN_EMAILS: ADMIN, SIGNUP_BONUS_COINS: '100' }));
  let adminClient: Promise<{ client: TestClient; id: string }> | null = null;
  const admin = () =>
    (adminClient ??= app().then(async (a) => {
      const client = a.client();
      const me = await client.signUp({ email: ADMIN, displayName: 'The Admin' });
      return { client, id: me.id };
    }));
  const user = async (overrides: { email?: string; displayName?: string } = {}) => {
    const client = (await app()).client();
    return { client, me: await client.signUp(overrides) };
  };
  test.after.always(async () => {
    if (started) await (await started).close();
  });

  test(title('200 concurrent deductions of 1 on 100 coins: exactly 100 succeed, 100 get 402, ledger sum = balance = 0'), async (t) => {
    const { client } = await user();
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => client.post('/coin/deduct', { amount: 1, reason: 'image_generation', relatedEntityId: `req-${i}` })));
    const ok = responses.filter((r) => r.status === 200);
    t.is(ok.length, 100);
    t.is(responses.filter((r) => r.status === 402).length, 100);
    t.true(responses.every((r) => r.status === 200 || r.status === 402), 'nothing else');
    // Each success reports the balance it left: all different, none negative.
    t.deepEqual(ok.map((r) => r.body.coinBalance).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i));
    const profile = await client.get('/auth/profile');
    t.is(profile.body.coinBalance, 0);
    const rows = await allTransactions(client);
    t.is(rows.length, 101);
    t.is(sum(rows), 0);
    t.true(rows.every((row) => row.balanceAfter >= 0));
  });

  test(title('POST /coin/deduct answers the user, and the ledger row has the contract shape'), async (t) => {
    const { client, me } = await user();
    const res = await client.post('/coin/deduct', { amount: 30, reason: 'video_generation', relatedEntityId: 'job-to-be', unknownField: true });
    t.is(res.status, 200);
    const { password: _password, ...profile } = me as typeof me & { createdAt: string; displayName: string };
    t.deepEqual(res.body, { ...profile, coinBalance: 70 });
    t.deepEqual(Object.keys(res.body).sort(), ['coinBalance', 'createdAt', 'displayName', 'email', 'id', 'role']);
    const page = await client.get('/coin/transactions');
    t.like(page.body, { page: 1, limit: 20, total: 2, totalPages: 1 });
    const [latest, bonus] = page.body.items;
    t.deepEqual(Object.keys(latest).sort(), ['amount', 'balanceAfter', 'createdAt', 'id', 'reason', 'relatedEntityId']);
    t.like(latest, { amount: -30, reason: 'video_generation', relatedEntityId: 'job-to-be', balanceAfter: 70 });
    t.like(bonus, { amount: 100, reason: 'signup_bonus', relatedEntityId: null, balanceAfter: 100 });
    assertError(t, await client.post('/coin/deduct', { amount: 71, reason: 'image_generation' }), 402);
    t.is((await client.get('/auth/profile')).body.coinBalance, 70);
  });

  const invalid: [string, unknown, { field: string; message: string }[]][] = [
    ['amount 0', { amount: 0, reason: 'image_generation' }, [{ field: 'amount', message: AMOUNT }]],
    ['amount negative', { amount: -3, reason: 'image_generation' }, [{ field: 'amount', message: AMOUNT }]],
    ['amount fractional', { amount: 2.5, reason: 'image_generation' }, [{ field: 'amount', message: AMOUNT }]],
    ['amount over 1,000,000', { amount: 1_000_001, reason: 'image_generation' }, [{ field: 'amount', message: AMOUNT }]],
    ['amount a string', { amount: '5', reason: 'image_generation' }, [{ field: 'amount', message: AMOUNT }]],
    ['amount missing', { reason: 'image_generation' }, [{ field: 'amount', message: 'is required' }]],
    ['reason missing', { amount: 1 }, [{ field: 'reason', message: 'is required' }]],
    ['reason unknown', { amount: 1, reason: 'lottery' }, [{ field: 'reason', message: USER_REASON }]],
    ['reason admin_adjustment', { amount: 1, reason: 'admin_adjustment' }, [{ field: 'reason', message: USER_REASON }]],
    ['relatedEntityId over 128', { amount: 1, reason: 'image_generation', relatedEntityId: 'r'.repeat(129) }, [{ field: 'relatedEntityId', message: 'must be a string of 1 to 128 characters' }]],
    ['no body at all', undefined, [{ field: 'amount', message: 'is required' }, { field: 'reason', message: 'is required' }]],
  ];
  test(title('POST /coin/deduct validation: 400 with details, nothing charged'), async (t) => {
    const { client } = await user();
    for (const [, body, details] of invalid) assertError(t, await client.post('/coin/deduct', body), 400, details);
    assertError(t, await client.post('/coin/deduct', { amount: 1, reason: 'image_generation' }, { 'Idempotency-Key': 'k'.repeat(129) }), 400, [
      { field: 'idempotency-key', message: 'must be 1 to 128 characters' },
    ]);
    assertError(t, await client.post('/coin/deduct', { amount: 1, reason: 'image_generation' }, { 'Idempotency-Key': '' }), 400);
    t.is((await client.get('/auth/profile')).body.coinBalance, 100);
    t.is((await client.get('/coin/transactions')).body.total, 1);
  });

  test(title('coin routes need a session; pages reject bad page and limit'), async (t) => {
    const anonymous = (await app()).client();
    assertError(t, await anonymous.post('/coin/deduct', { amount: 1, reason: 'image_generation' }), 401);
    assertError(t, await anonymous.get('/coin/transactions'), 401);
    const { client } = await user();
    assertError(t, await client.get('/coin/transactions?limit=101'), 400, [{ field: 'limit', message: 'must be an integer from 1 to 100' }]);
    assertError(t, await client.get('/coin/transactions?page=0'), 400);
    assertError(t, await client.get('/coin/transactions?page=1.5'), 400);
  });

  test(title('admin routes: 403 for a non-admin, whatever the target'), async (t) => {
    const { client, me } = await user();
    const body = { amount: 5, reason: 'admin_adjustment' };
    assertError(t, await client.post(`/admin/coin/add/${me.id}`, body), 403);
    assertError(t, await client.post(`/admin/coin/deduct/${me.id}`, body), 403);
    assertError(t, await client.get('/admin/users'), 403);
    assertError(t, await client.get(`/admin/users/${me.id}/transactions`), 403);
    assertError(t, await client.get('/admin/audit'), 403);
    t.is((await client.get('/auth/profile')).body.coinBalance, 100);
  });

  test(title('admin add and deduct: 200 with the user, audit entries newest first, failures not audited'), async (t) => {
    const { client: adminC, id: adminId } = await admin();
    const { client, me } = await user();
    const added = await adminC.post(`/admin/coin/add/${me.id}`, { amount: 250, reason: 'admin_adjustment' });
    t.is(added.status, 200, JSON.stringify(added.body));
    t.like(added.body, { id: me.id, email: me.email, coinBalance: 350, role: 'user' });
    const taken = await adminC.post(`/admin/coin/deduct/${me.id}`, { amount: 50, reason: 'admin_adjustment' });
    t.like(taken.body, { id: me.id, coinBalance: 300 });
    assertError(t, await adminC.post(`/admin/coin/deduct/${me.id}`, { amount: 301, reason: 'admin_adjustment' }), 402);
    assertError(t, await adminC.post(`/admin/coin/add/${randomUUID()}`, { amount: 1, reason: 'admin_adjustment' }), 404);
    assertError(t, await adminC.post('/admin/coin/add/not-a-uuid', { amount: 1, reason: 'admin_adjustment' }), 404);
    assertError(t, await adminC.post('/admin/coin/deduct/1 OR 1=1', { amount: 1, reason: 'admin_adjustment' }), 404);
    t.is((await client.get('/auth/profile')).body.coinBalance, 300);

    const rows = await allTransactions(adminC, `/admin/users/${me.id}/transactions`);
    t.deepEqual(rows.map((row) => [row.amount, row.reason, row.balanceAfter]), [[-50, 'admin_adjustment', 300], [250, 'admin_adjustment', 350], [100, 'signup_bonus', 100]]);
    t.is(sum(rows), 300);
    assertError(t, await adminC.get(`/admin/users/${randomUUID()}/transactions`), 404);
    assertError(t, await adminC.get('/admin/users/nope/transactions'), 404);

    const audit = (await adminC.get('/admin/audit?limit=100')).body.items.filter((entry: { targetUserId: string }) => entry.targetUserId === me.id);
    t.deepEqual(
      audit.map((e: Record<string, unknown>) => [e.actorId, e.action, e.details]),
      [
        [adminId, 'coin.deduct', { amount: -50, reason: 'admin_adjustment', balanceAfter: 300, transactionId: rows[0]!.id }],
        [adminId, 'coin.add', { amount: 250, reason: 'admin_adjustment', balanceAfter: 350, transactionId: rows[1]!.id }],
      ],
    );
    t.deepEqual(Object.keys(audit[0]).sort(), ['action', 'actorId', 'createdAt', 'details', 'id', 'targetUserId']);
  });

  test(title('admin coin routes validate the body: 400 with details'), async (t) => {
    const { client: adminC } = await admin();
    const { me } = await user();
    const cases: [unknown, { field: string; message: string }[]][] = [
      [{ amount: 0, reason: 'admin_adjustment' }, [{ field: 'amount', message: AMOUNT }]],
      [{ amount: -1, reason: 'admin_adjustment' }, [{ field: 'amount', message: AMOUNT }]],
      [{ amount: 0.5, reason: 'admin_adjustment' }, [{ field: 'amount', message: AMOUNT }]],
      [{ amount: 1_000_001, reason: 'admin_adjustment' }, [{ field: 'amount', message: AMOUNT }]],
      [{ amount: '10', reason: 'admin_adjustment' }, [{ field: 'amount', message: AMOUNT }]],
      [{ reason: 'admin_adjustment' }, [{ field: 'amount', message: 'is required' }]],
      [{ amount: 10 }, [{ field: 'reason', message: 'is required' }]],
      [{ amount: 10, reason: 'because' }, [{ field: 'reason', message: ANY_REASON }]],
    ];
    for (const direction of ['add', 'deduct']) {
      for (const [body, details] of cases) assertError(t, await adminC.post(`/admin/coin/${direction}/${me.id}`, body), 400, details);
    }
    const refund = await adminC.post(`/admin/coin/add/${me.id}`, { amount: 3, reason: 'generation_refund' });
    t.like(refund.body, { coinBalance: 103 }, 'any CoinTransactionReason is accepted and recorded as given');
    const [row] = (await adminC.get(`/admin/users/${me.id}/transactions`)).body.items;
    t.like(row, { amount: 3, reason: 'generation_refund' });
  });

  test(title('GET /admin/users pages users; q matches email or display name'), async (t) => {
    const { client: adminC } = await admin();
    const tag = randomUUID().slice(0, 8);
    const { me: byEmail } = await user({ email: `zed-${tag}@example.com`, displayName: 'Plain' });
    const { me: byName } = await user({ displayName: `Zed ${tag.toUpperCase()}` });
    const found = await adminC.get(`/admin/users?q=${tag}`);
    t.is(found.status, 200);
    t.deepEqual(found.body.items.map((u: { id: string }) => u.id).sort(), [byEmail.id, byName.id].sort());
    t.like(found.body, { page: 1, limit: 20, total: 2, totalPages: 1 });
    t.deepEqual(Object.keys(found.body.items[0]).sort(), ['coinBalance', 'createdAt', 'displayName', 'email', 'id', 'role']);
    const paged = await adminC.get('/admin/users?page=1&limit=1');
    t.is(paged.body.items.length, 1);
    t.true(paged.body.total >= 3);
    assertError(t, await adminC.get('/admin/users?limit=0'), 400);
  });

  test(title('Idempotency-Key: a repeat replays the first response and charges nothing; another body gets 409'), async (t) => {
    const { client } = await user();
    const key = `order-${randomUUID()}`;
    const first = await client.post('/coin/deduct', { amount: 5, reason: 'image_generation', relatedEntityId: 'r1' }, { 'Idempotency-Key': key });
    t.is(first.status, 200);
    t.is(first.body.coinBalance, 95);
    // Same body with its keys in another order, and through the legacy prefix: the same request.
    const again = await client.post('/api/coin/deduct', { relatedEntityId: 'r1', reason: 'image_generation', amount: 5 }, { 'Idempotency-Key': key });
    t.is(again.status, 200);
    t.deepEqual(again.body, first.body);
    t.is(again.headers.get('idempotent-replayed'), 'true');
    const conflict = await client.post('/coin/deduct', { amount: 6, reason: 'image_generation', relatedEntityId: 'r1' }, { 'Idempotency-Key': key });
    assertError(t, conflict, 409);
    t.is((await client.get('/auth/profile')).body.coinBalance, 95);
    t.is((await client.get('/coin/transactions')).body.total, 2);

    // A 402 is remembered too; keys are per user.
    const broke = await client.post('/coin/deduct', { amount: 1000, reason: 'image_generation' }, { 'Idempotency-Key': 'big' });
    assertError(t, broke, 402);
    const brokeAgain = await client.post('/coin/deduct', { amount: 1000, reason: 'image_generation' }, { 'Idempotency-Key': 'big' });
    t.deepEqual([brokeAgain.status, brokeAgain.body], [402, broke.body]);
    const { client: other } = await user();
    t.is((await other.post('/coin/deduct', { amount: 5, reason: 'image_generation', relatedEntityId: 'r1' }, { 'Idempotency-Key': key })).body.coinBalance, 95);
  });

  test(title('Idempotency-Key: 25 concurrent requests with one key charge once and all get the same answer'), async (t) => {
    const { client } = await user();
    const headers = { 'Idempotency-Key': 'double-click' };
    const responses = await Promise.all(Array.from({ length: 25 }, () => client.post('/coin/deduct', { amount: 7, reason: 'image_generation' }, headers)));
    t.deepEqual(new Set(responses.map((r) => r.status)), new Set([200]));
    t.true(responses.every((r) => JSON.stringify(r.body) === JSON.stringify(responses[0]!.body)));
    t.is(responses.filter((r) => r.headers.get('idempotent-replayed') !== 'true').length, 1);
    t.is((await client.get('/auth/profile')).body.coinBalance, 93);
    t.is(sum(await allTransactions(client)), 93);
  });

  test(title('Idempotency-Key on admin routes: a repeated add adds once and is audited once'), async (t) => {
    const { client: adminC } = await admin();
    const { client, me } = await user();
    const headers = { 'Idempotency-Key': `grant-${me.id}` };
    const responses = await Promise.all([1, 2, 3].map(() => adminC.post(`/admin/coin/add/${me.id}`, { amount: 40, reason: 'admin_adjustment' }, headers)));
    t.deepEqual(responses.map((r) => [r.status, r.body.coinBalance]), [[200, 140], [200, 140], [200, 140]]);
    assertError(t, await adminC.post(`/admin/coin/deduct/${me.id}`, { amount: 40, reason: 'admin_adjustment' }, headers), 409);
    t.is((await client.get('/auth/profile')).body.coinBalance, 140);
    const audit = (await adminC.get('/admin/audit?limit=100')).body.items.filter((entry: { targetUserId: string }) => entry.targetUserId === me.id);
    t.is(audit.length, 1);
  });

  // Pins that the admin routes find a user named by an upper-case UUID (ids are compared in lower case).
  test(title('admin add accepts the user id in upper case and changes that user'), async (t) => {
    const { client: adminC } = await admin();
    const { client, me } = await user();
    const added = await adminC.post(`/admin/coin/add/${me.id.toUpperCase()}`, { amount: 7, reason: 'admin_adjustment' });
    t.is(added.status, 200, JSON.stringify(added.body));
    t.like(added.body, { id: me.id, coinBalance: 107 });
    t.is((await client.get('/auth/profile')).body.coinBalance, 107);
  });

  // Pins that both coin routes store their remembered response inside the change's own transaction: when storing it fails, no coin moves.
  test(title('Idempotency-Key: when the response cannot be stored with the change, nothing is charged and a retry runs once'), async (t) => {
    let failNextComplete = false;
    const faulty = await startTestApp(db, { ADMIN_EMAILS: ADMIN, SIGNUP_BONUS_COINS: '100' }, {
      beforeStart({ container }) {
        const uow = resolve(container, TOKENS.UnitOfWork);
        const wrapped = interceptTransactions({ run: uow.run.bind(uow) }, async (call, proceed) => {
          if (failNextComplete && call.repo === 'idempotency' && call.method === 'complete') {
            failNextComplete = false;
            throw new Error('injected: storing the remembered response failed');
          }
          return proceed();
        });
        uow.run = wrapped.run;
      },
    });
    t.teardown(() => faulty.close());
    const adminC = faulty.client();
    await adminC.signUp({ email: ADMIN });
    const client = faulty.client();
    const me = await client.signUp();
    const attempts: [TestClient, string, unknown, number][] = [
      [client, '/coin/deduct', { amount: 5, reason: 'image_generation', relatedEntityId: randomUUID() }, 95],
      [adminC, `/admin/coin/add/${me.id}`, { amount: 40, reason: 'admin_adjustment' }, 135],
      [adminC, `/admin/coin/deduct/${me.id}`, { amount: 30, reason: 'admin_adjustment' }, 105],
    ];
    for (const [caller, path, body, after] of attempts) {
      const headers = { 'Idempotency-Key': `stored-with-${path}` };
      const before = (await client.get('/auth/profile')).body.coinBalance;
      failNextComplete = true;
      const failed = await caller.post(path, body, headers);
      t.false(failNextComplete, `${path}: the response was stored inside the change's transaction`);
      t.true(failed.status >= 500, `${path}: ${failed.status}`);
      t.is((await client.get('/auth/profile')).body.coinBalance, before, `${path}: nothing moved`);
      const retried = await caller.post(path, body, headers);
      t.is(retried.status, 200, JSON.stringify(retried.body));
      t.is(retried.body.coinBalance, after);
      t.is((await caller.post(path, body, headers)).headers.get('idempotent-replayed'), 'true');
      t.is((await client.get('/auth/profile')).body.coinBalance, after, `${path}: applied once`);
    }
    t.is(sum(await allTransactions(client)), 105);
  });
}

for (const db of DATABASES) suite(db);
