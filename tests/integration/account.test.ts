import { randomUUID } from 'node:crypto';
import test from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

const ADMIN = 'account-admin@example.com';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase 9';
const FRONTEND = 'https://studio.example.com/app';

const fields = (res: TestResponse) => (res.body.details ?? []).map((detail: { field: string }) => detail.field);
const tokenOf = (resetUrl: string) => new URL(resetUrl).hash.replace(/^#token=/, '');

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<TestApp> | null = null;
  // Three failed logins per account and address: the change of password counts its wrong guesses there.
  const app = () => (started ??= startTestApp(db, { ADMIN_EMAILS: ADMIN, LOGIN_MAX_FAILURES: '3', FRONTEND_URL: FRONTEND }));
  test.after.always(async () => {
    if (started) await (await started).close();
  });

  let adminClient: Promise<TestClient> | null = null;
  const admin = () =>
    (adminClient ??= (async () => {
      const client = (await app()).client();
      await client.signUp({ email: ADMIN });
      return client;
    })());

  /** A second login of the same user, in another client (another browser). */
  const secondLogin = async (email: string, password = PASSWORD) => {
    const other = (await app()).client();
    const login = await other.post('/auth/login', { email, password });
    if (login.status !== 200) throw new Error(`login: ${login.status}`);
    return other;
  };

  test(title('PATCH /auth/profile changes the display name (trimmed); bad names get 400 naming the field'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp({ displayName: 'Before' });
    const res = await client.patch('/auth/profile', { displayName: '  After ✓ ' });
    t.is(res.status, 200, JSON.stringify(res.body));
    t.like(res.body, { id: user.id, email: user.email, displayName: 'After ✓', coinBalance: 100, role: 'user' });
    t.deepEqual(Object.keys(res.body).sort(), ['coinBalance', 'createdAt', 'displayName', 'email', 'id', 'role']);
    t.is((await client.get('/auth/profile')).body.displayName, 'After ✓');
    for (const displayName of ['', '   ', 'd'.repeat(65), 42, null, undefined]) {
      const bad = await client.patch('/auth/profile', { displayName });
      t.is(bad.status, 400, JSON.stringify(displayName));
      t.deepEqual(fields(bad), ['displayName']);
    }
    t.is((await client.patch('/auth/profile', { displayName: 'd'.repeat(64) })).status, 200);
    t.is((await (await app()).client().patch('/auth/profile', { displayName: 'Nobody' })).status, 401);
  });

  test(title('POST /auth/password: the new password works, the old one not; this session stays, every other one ends'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp();
    const other = await secondLogin(user.email);
    const third = await secondLogin(user.email);
    const key = await client.post('/api/v1/api-keys', { name: 'script', scopes: ['generate'] });
    t.is(key.status, 201, JSON.stringify(key.body));

    const res = await client.post('/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    t.is(res.status, 200, JSON.stringify(res.body));
    t.deepEqual(res.body, { message: 'Password changed', otherSessionsEnded: 2 });

    t.is((await client.get('/auth/profile')).status, 200, 'the session that changed it stays');
    t.is((await client.post('/auth/refresh')).status, 200, 'and can still refresh');
    for (const ended of [other, third]) {
      t.is((await ended.get('/auth/profile')).status, 401, 'another login ends at once');
      t.is((await ended.post('/auth/refresh')).status, 401, 'and cannot refresh');
    }
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 401);
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: NEW_PASSWORD })).status, 200);
    const scripted = (await app()).client();
    scripted.bearer = key.body.key;
    t.is((await scripted.get('/auth/profile')).status, 200, 'API keys stay');
  });

  test(title('POST /auth/password refuses a wrong or missing current password, and a new one that is weak, too long or the same'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp();
    const cases: [Record<string, unknown>, string[]][] = [
      [{ currentPassword: 'not my password at all', newPassword: NEW_PASSWORD }, ['currentPassword']],
      [{ newPassword: NEW_PASSWORD }, ['currentPassword']],
      [{ currentPassword: PASSWORD, newPassword: 'short12' }, ['newPassword']],
      [{ currentPassword: PASSWORD, newPassword: 'x'.repeat(129) }, ['newPassword']],
      [{ currentPassword: PASSWORD, newPassword: 'password123' }, ['newPassword']],
      [{ currentPassword: PASSWORD, newPassword: PASSWORD }, ['newPassword']],
    ];
    for (const [body, named] of cases) {
      const res = await client.post('/auth/password', body);
      t.is(res.status, 400, JSON.stringify(body));
      t.is(res.body.message, 'Validation failed');
      t.deepEqual(fields(res), named, JSON.stringify(body));
    }
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 200, 'nothing changed');
  });

  test(title('POST /auth/password counts wrong current passwords as failed logins: the fourth try gets 429, the right one too'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp();
    for (let i = 0; i < 3; i++) t.is((await client.post('/auth/password', { currentPassword: `wrong guess ${i} xyz`, newPassword: NEW_PASSWORD })).status, 400);
    const limited = await client.post('/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    t.is(limited.status, 429, JSON.stringify(limited.body));
    t.truthy(limited.headers.get('retry-after'));
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 429, 'the same counter as login');
  });

  // Pins the release of the attempt on success: changes that succeed are no failed logins (the limit here is 3).
  test(title('POST /auth/password: four changes in a row all succeed'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp();
    const passwords = [PASSWORD, 'first new passphrase 1', 'second new passphrase 2', 'third new passphrase 3', 'fourth new passphrase 4'];
    for (let i = 1; i < passwords.length; i++) {
      const res = await client.post('/auth/password', { currentPassword: passwords[i - 1], newPassword: passwords[i] });
      t.is(res.status, 200, `change ${i}: ${JSON.stringify(res.body)}`);
    }
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: passwords[4] })).status, 200);
  });

  test(title('POST /auth/password and PATCH /auth/profile refuse API keys and a cookie request without the CSRF header'), async (t) => {
    const client = (await app()).client();
    await client.signUp();
    const key = await client.post('/api/v1/api-keys', { name: 'script', scopes: ['generate', 'history'] });
    const scripted = (await app()).client();
    scripted.bearer = key.body.key;
    t.is((await scripted.post('/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status, 403);
    t.is((await scripted.patch('/auth/profile', { displayName: 'Key' })).status, 403);
    client.sendXsrf = false;
    t.is((await client.post('/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status, 403);
    t.is((await client.patch('/auth/profile', { displayName: 'No header' })).status, 403);
    client.sendXsrf = true;
    t.is((await client.get('/auth/profile')).body.displayName, 'Test User');
  });

  test(title('an administrator makes a reset link; it sets the password once and ends every session of the user'), async (t) => {
    const adminC = await admin();
    const client = (await app()).client();
    const user = await client.signUp();
    const other = await secondLogin(user.email);
    const before = Date.now();
    const made = await adminC.post(`/admin/users/${user.id}/password-reset`);
    t.is(made.status, 201, JSON.stringify(made.body));
    t.deepEqual(Object.keys(made.body).sort(), ['expiresAt', 'resetUrl']);
    t.regex(made.body.resetUrl, /^https:\/\/studio\.example\.com\/app\/reset-password#token=[\w-]{32,}$/);
    t.is(made.headers.get('cache-control'), 'no-store');
    const expires = Date.parse(made.body.expiresAt);
    t.true(expires >= before + 3600_000 - 1000 && expires <= Date.now() + 3600_000, made.body.expiresAt);

    const audit = await adminC.get('/admin/audit?limit=100');
    const entry = audit.body.items.find((item: { action: string; targetUserId: string }) => item.action === 'user.password_reset_link' && item.targetUserId === user.id);
    t.truthy(entry, 'audited');
    t.notRegex(JSON.stringify(audit.body), new RegExp(tokenOf(made.body.resetUrl)), 'the token is not in the audit log');

    const anonymous = (await app()).client();
    const used = await anonymous.post('/auth/password-reset', { token: tokenOf(made.body.resetUrl), newPassword: NEW_PASSWORD });
    t.is(used.status, 200, JSON.stringify(used.body));
    t.deepEqual(used.body, { message: 'Password set; sign in with it', email: user.email });
    for (const ended of [client, other]) {
      t.is((await ended.get('/auth/profile')).status, 401, 'every session ends');
      t.is((await ended.post('/auth/refresh')).status, 401);
    }
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 401);
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: NEW_PASSWORD })).status, 200);

    const again = await anonymous.post('/auth/password-reset', { token: tokenOf(made.body.resetUrl), newPassword: 'yet another passphrase 7' });
    t.is(again.status, 400);
    t.deepEqual(fields(again), ['token']);
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: NEW_PASSWORD })).status, 200, 'a second use changed nothing');
  });

  test(title('a reset link: a newer one replaces it, a weak password leaves it usable, a made-up token gets 400; of parallel uses one wins'), async (t) => {
    const adminC = await admin();
    const user = await (await app()).client().signUp();
    const first = tokenOf((await adminC.post(`/admin/users/${user.id}/password-reset`)).body.resetUrl);
    const second = tokenOf((await adminC.post(`/admin/users/${user.id}/password-reset`)).body.resetUrl);
    const anonymous = (await app()).client();
    const replaced = await anonymous.post('/auth/password-reset', { token: first, newPassword: NEW_PASSWORD });
    t.is(replaced.status, 400);
    t.deepEqual(fields(replaced), ['token']);
    for (const token of ['made-up', '', 'x'.repeat(300), 17, null]) {
      const bad = await anonymous.post('/auth/password-reset', { token, newPassword: NEW_PASSWORD });
      t.is(bad.status, 400, JSON.stringify(token));
      t.deepEqual(fields(bad), ['token']);
    }
    const weak = await anonymous.post('/auth/password-reset', { token: second, newPassword: 'password123' });
    t.is(weak.status, 400);
    t.deepEqual(fields(weak), ['newPassword']);
    const uses = await Promise.all([1, 2, 3, 4].map((n) => anonymous.post('/auth/password-reset', { token: second, newPassword: `${NEW_PASSWORD} ${n}` })));
    t.deepEqual(uses.map((res) => res.status).sort(), [200, 400, 400, 400]);
    const winner = uses.findIndex((res) => res.status === 200) + 1;
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: `${NEW_PASSWORD} ${winner}` })).status, 200);
  });

  test(title('a password change ends a live reset link'), async (t) => {
    const adminC = await admin();
    const client = (await app()).client();
    const user = await client.signUp();
    const token = tokenOf((await adminC.post(`/admin/users/${user.id}/password-reset`)).body.resetUrl);
    t.is((await client.post('/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status, 200);
    const late = await (await app()).client().post('/auth/password-reset', { token, newPassword: 'yet another passphrase 7' });
    t.is(late.status, 400);
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: NEW_PASSWORD })).status, 200);
  });

  test(title('reset links: users get 403, admin API keys 403, an unknown or malformed id 404'), async (t) => {
    const adminC = await admin();
    const client = (await app()).client();
    const user = await client.signUp();
    t.is((await client.post(`/admin/users/${user.id}/password-reset`)).status, 403);
    const key = await adminC.post('/api/v1/api-keys', { name: 'admin script', scopes: ['admin'] });
    t.is(key.status, 201, JSON.stringify(key.body));
    const scripted = (await app()).client();
    scripted.bearer = key.body.key;
    t.is((await scripted.get('/admin/users')).status, 200, 'the key is an admin key');
    const refused = await scripted.post(`/admin/users/${user.id}/password-reset`);
    t.is(refused.status, 403);
    t.regex(refused.body.message, /API keys/);
    t.is((await adminC.post(`/admin/users/${randomUUID()}/password-reset`)).status, 404);
    t.is((await adminC.post('/admin/users/not-a-uuid/password-reset')).status, 404);
  });
}

for (const db of DATABASES) suite(db);
