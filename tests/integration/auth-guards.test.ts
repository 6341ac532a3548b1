/**
 * Guards of sign-in and cookie requests that auth.test.ts does not pin down: the CSRF table, the up-front type check
 * of login, the zero sign-up bonus. Each test here was checked to go red with its guard deleted
 * (tests/mutation/mutations/auth.mutations.ts lists the deletions). A file of its own: its requests run in another
 * process than auth.test.ts, whose health check must not wait behind them.
 */
import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestResponse } from '../support/test-client.ts';

const PASSWORD = 'correct horse battery';

function assertError(t: ExecutionContext, res: TestResponse, status: number): void {
  t.is(res.status, status, JSON.stringify(res.body));
  t.is(res.body.statusCode, status);
  t.is(typeof res.body.message, 'string');
}

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<TestApp> | null = null;
  const app = () => (started ??= startTestApp(db));
  test.after.always(async () => {
    if (started) await (await started).close();
  });

  // Pins the CSRF table literally (which methods need the header with a cookie) and that the header's value is compared, not only its length.
  test(title('with a cookie, POST, PUT, PATCH and DELETE need X-XSRF-TOKEN equal to the cookie, GET does not; a header of the right length with another value is refused'), async (t) => {
    const client = (await app()).client();
    await client.signUp();
    const created = await client.post('/api/v1/api-keys', { name: 'csrf target', scopes: ['generate'] });
    t.is(created.status, 201, JSON.stringify(created.body));
    const cookie = client.cookies.get('XSRF-TOKEN')!;
    const sameLength = `${cookie.slice(0, -1)}${cookie.endsWith('A') ? 'B' : 'A'}`;
    t.is(sameLength.length, cookie.length);
    const template = randomUUID();
    const targets: Record<string, string> = {
      GET: '/auth/profile',
      POST: '/auth/logout',
      PUT: `/workflow-templates/${template}/parameter-map`,
      PATCH: `/workflow-templates/${template}`,
      DELETE: `/api/v1/api-keys/${created.body.id}`,
    };
    const needsHeader: Record<string, boolean> = { GET: false, POST: true, PUT: true, PATCH: true, DELETE: true };
    client.sendXsrf = false;
    const found: Record<string, boolean> = {};
    for (const [method, target] of Object.entries(targets)) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const missing = await client.request(method, target, body);
      const wrong = await client.request(method, target, body, { 'x-xsrf-token': sameLength });
      const refused = (res: TestResponse) => res.status === 403 && /CSRF/.test(String(res.body?.message));
      t.is(refused(missing), refused(wrong), `${method}: the same answer without the header and with a wrong one of the right length`);
      found[method] = refused(missing) && refused(wrong);
    }
    t.deepEqual(found, needsHeader);
    // The refused requests changed nothing: still logged in, the key still there.
    client.sendXsrf = true;
    t.is((await client.get('/auth/profile')).status, 200);
    t.deepEqual((await client.get('/api/v1/api-keys')).body.map((key: { id: string }) => key.id), [created.body.id]);
  });

  // Pins the up-front type check of login: a non-string email or password is an ordinary 401, not a crash.
  test(title('login with a non-string email or password answers 401'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp();
    const anon = (await app()).client();
    for (const body of [{ email: 42, password: PASSWORD }, { email: [user.email], password: PASSWORD }, { email: user.email, password: 12345678 }, { email: user.email, password: [PASSWORD] }]) {
      assertError(t, await anon.post('/auth/login', body), 401);
    }
    t.is((await anon.post('/auth/login', { email: user.email, password: PASSWORD })).status, 200, 'the account itself is fine');
  });

  // Pins where a credential is read from: only an "Authorization: Bearer" header is a token (one or more spaces after the
  // word), another scheme leaves the cookie in charge, and an API key is taken from that header only, never from the cookie.
  test(title('a Bearer token may follow several spaces; another Authorization scheme leaves the cookie in charge; an API key in the cookie is refused'), async (t) => {
    const client = (await app()).client();
    await client.signUp();
    const access = client.cookies.get('access_token')!;
    const anon = (await app()).client();
    t.is((await anon.get('/auth/profile', { authorization: `Bearer    ${access}` })).status, 200, 'spaces after Bearer');
    t.is((await client.get('/auth/profile', { authorization: 'Basic dXNlcjpwYXNz' })).status, 200, 'a Basic header does not hide the cookie');
    assertError(t, await anon.get('/auth/profile', { authorization: `Token ${access}` }), 401);
    const key = await client.post('/api/v1/api-keys', { name: 'cookie key', scopes: ['generate'] });
    t.is(key.status, 201, JSON.stringify(key.body));
    t.is((await anon.get('/auth/profile', { authorization: `Bearer ${key.body.key}` })).status, 200, 'the key works as a Bearer token');
    const keyInCookie = (await app()).client();
    keyInCookie.cookies.set('access_token', key.body.key);
    assertError(t, await keyInCookie.get('/auth/profile'), 401);
  });

  // Pins that an API key opens administrator routes only while its user is an administrator: the admin scope it was made with is not enough after a demotion.
  test(title("an administrator's API key with the admin scope stops opening administrator routes when its user is demoted"), async (t) => {
    const own = await startTestApp(db, { ADMIN_EMAILS: 'keys-admin@example.com' });
    t.teardown(() => own.close());
    const admin = own.client();
    const me = await admin.signUp({ email: 'keys-admin@example.com' });
    const key = await admin.post('/api/v1/api-keys', { name: 'ops', scopes: ['admin'] });
    t.is(key.status, 201, JSON.stringify(key.body));
    const byKey = own.client();
    byKey.bearer = key.body.key;
    t.is((await byKey.get('/admin/users')).status, 200, 'an administrator\'s key');
    await resolve(own.app.container, TOKENS.Repositories).users.setRole(me.id, 'user', new Date());
    assertError(t, await byKey.get('/admin/users'), 403);
  });

  // Pins the zero-bonus case: SIGNUP_BONUS_COINS=0 writes no ledger entry.
  test(title('with SIGNUP_BONUS_COINS=0 a new account starts at 0 coins with an empty ledger'), async (t) => {
    const noBonus = await startTestApp(db, { SIGNUP_BONUS_COINS: '0' });
    t.teardown(() => noBonus.close());
    const client = noBonus.client();
    const user = await client.signUp();
    t.is(user.coinBalance, 0);
    const ledger = await client.get('/coin/transactions');
    t.is(ledger.status, 200);
    t.deepEqual(ledger.body.items, []);
    t.is(ledger.body.total, 0);
  });
}

for (const db of DATABASES) suite(db);
