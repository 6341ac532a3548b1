/**
 * Changing one's email (ADR 065) over HTTP: the real application mails through a real SMTP server, and the link in the
 * mail is used as a user would. SQLite and MariaDB for the flow; the rest once.
 */
import test from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { sharedSmtpTestServer, startSmtpTestServer } from '../support/smtp-test-server.ts';
import { startTestApp } from '../support/test-app.ts';
import type { TestResponse } from '../support/test-client.ts';

const PASSWORD = 'correct horse battery';
const FRONTEND = 'https://studio.example.com/app';

const fields = (res: TestResponse) => (res.body.details ?? []).map((detail: { field: string }) => detail.field);
const tokenIn = (text: string) => new RegExp(`${FRONTEND.replace(/[.]/g, '\\.')}/confirm-email#token=([A-Za-z0-9_-]+)`).exec(text)?.[1];

const server = sharedSmtpTestServer(test);

const mailEnv = (extra: Record<string, string> = {}) => ({ SMTP_URL: server().url, MAIL_FROM: 'no-reply@studio.example.com', FRONTEND_URL: FRONTEND, LOGIN_MAX_FAILURES: '3', ...extra });
const waitForMailTo = (email: string, count = 1) => server().waitForMailTo(email, count);

const fresh = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;

function suite(db: TestDatabase): void {
  test.serial(`[${db}] the link mailed to the new address changes the email; sessions stay; the old address is told and signs in no more`, async (t) => {
    const app = await startTestApp(db, mailEnv());
    t.teardown(() => app.close());
    const client = app.client();
    const user = await client.signUp({ password: PASSWORD });
    const other = app.client();
    t.is((await other.post('/auth/login', { email: user.email, password: PASSWORD })).status, 200);
    const newEmail = fresh('moved');

    const asked = await client.post('/auth/email', { newEmail: `  ${newEmail.toUpperCase()} `, password: PASSWORD });
    t.is(asked.status, 202, JSON.stringify(asked.body));
    t.is(asked.body.newEmail, newEmail);
    t.is(asked.body.message, `A link to confirm ${newEmail} is on its way there`);
    t.true(Math.abs(Date.parse(asked.body.expiresAt) - Date.now() - 86_400_000) < 60_000, 'EMAIL_CHANGE_TTL, 24 h by default');
    const [mail] = await waitForMailTo(newEmail);
    t.is(mail!.subject, 'Confirm your new email');
    t.true(mail!.text.includes(user.email), 'it names the account');
    const token = tokenIn(mail!.text);
    t.truthy(token, mail!.text);
    t.is((await client.get('/auth/profile')).body.email, user.email, 'nothing changes before the link is opened');

    const confirmed = await app.client().post('/auth/email/confirm', { token });
    t.is(confirmed.status, 200, JSON.stringify(confirmed.body));
    t.deepEqual(confirmed.body, { message: 'Email changed; sign in with it', email: newEmail });
    t.like((await client.get('/auth/profile')).body, { id: user.id, email: newEmail });
    t.is((await other.get('/auth/profile')).status, 200, 'every session stays');
    t.is((await app.client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 401);
    t.is((await app.client().post('/auth/login', { email: newEmail, password: PASSWORD })).status, 200);
    const [notice] = await waitForMailTo(user.email);
    t.is(notice!.subject, 'Your email was changed');
    t.true(notice!.text.includes(newEmail));
    t.is(tokenIn(notice!.text), undefined);
    const again = await app.client().post('/auth/email/confirm', { token });
    t.is(again.status, 400);
    t.deepEqual(fields(again), ['token']);
    t.is((await app.client().post('/auth/register', { email: user.email, password: PASSWORD, displayName: 'Someone else' })).status, 201, 'the old address is free');
  });

  test.serial(`[${db}] an address another account took after the request: 409, and the email stays`, async (t) => {
    const app = await startTestApp(db, mailEnv());
    t.teardown(() => app.close());
    const client = app.client();
    const user = await client.signUp({ password: PASSWORD });
    const wanted = fresh('wanted');
    t.is((await client.post('/auth/email', { newEmail: wanted, password: PASSWORD })).status, 202);
    const token = tokenIn((await waitForMailTo(wanted))[0]!.text);
    await app.client().signUp({ email: wanted });
    const late = await app.client().post('/auth/email/confirm', { token });
    t.is(late.status, 409, JSON.stringify(late.body));
    t.is(late.body.message, 'Another account has this email now');
    t.is((await client.get('/auth/profile')).body.email, user.email);
  });
}

for (const db of DATABASES) suite(db);

test.serial('refusals: not an email, one\'s own, a missing or wrong password (the login limits), an address taken, a key, no session', async (t) => {
  const app = await startTestApp('sqlite', mailEnv());
  t.teardown(() => app.close());
  const client = app.client();
  const user = await client.signUp({ password: PASSWORD });
  const taken = await app.client().signUp();
  const sent = server().mails.length;
  for (const [body, field] of [
    [{}, 'newEmail'],
    [{ newEmail: 'not-an-email', password: PASSWORD }, 'newEmail'],
    [{ newEmail: 'x@deleted.invalid', password: PASSWORD }, 'newEmail'],
    [{ newEmail: user.email.toUpperCase(), password: PASSWORD }, 'newEmail'],
    [{ newEmail: fresh('a') }, 'password'],
    [{ newEmail: fresh('b'), password: 'wrong password 1' }, 'password'],
  ] as const) {
    const res = await client.post('/auth/email', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.deepEqual(fields(res), [field], JSON.stringify(body));
  }
  const takenRes = await client.post('/auth/email', { newEmail: taken.email, password: PASSWORD });
  t.is(takenRes.status, 409);
  t.is(server().mails.length, sent, 'no refusal mails anything');

  const key = await client.post('/api/v1/api-keys', { name: 'script', scopes: ['generate', 'history'] });
  const scripted = app.client();
  scripted.bearer = key.body.key;
  t.is((await scripted.post('/auth/email', { newEmail: fresh('k'), password: PASSWORD })).status, 403, 'an API key cannot change the email');
  t.is((await app.client().post('/auth/email', { newEmail: fresh('n'), password: PASSWORD })).status, 401);

  // One wrong password above counts on the login limits (3 here); two more fill them, then even the right one waits.
  for (const password of ['wrong password 2', 'wrong password 3']) t.is((await client.post('/auth/email', { newEmail: fresh('c'), password })).status, 400);
  const limited = await client.post('/auth/email', { newEmail: fresh('d'), password: PASSWORD });
  t.is(limited.status, 429);
  t.true(Number(limited.headers.get('retry-after')) > 0);
  t.is((await app.client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 429, 'the same counters as login');
});

test.serial('five changes an hour per user; the newest link replaces the earlier ones', async (t) => {
  const app = await startTestApp('sqlite', mailEnv());
  t.teardown(() => app.close());
  const client = app.client();
  const user = await client.signUp({ password: PASSWORD });
  const asked = Array.from({ length: 5 }, (_, i) => fresh(`try${i}`));
  for (const newEmail of asked) t.is((await client.post('/auth/email', { newEmail, password: PASSWORD })).status, 202);
  const sixth = await client.post('/auth/email', { newEmail: fresh('six'), password: PASSWORD });
  t.is(sixth.status, 429);
  t.true(Number(sixth.headers.get('retry-after')) > 0);
  const tokens = await Promise.all(asked.map(async (email) => tokenIn((await waitForMailTo(email))[0]!.text)));
  for (const token of tokens.slice(0, 4)) t.is((await app.client().post('/auth/email/confirm', { token })).status, 400, 'replaced');
  t.is((await app.client().post('/auth/email/confirm', { token: tokens[4] })).status, 200);
  t.is((await client.get('/auth/profile')).body.email, asked[4]);
  t.not(user.email, asked[4]);
});

test.serial('a relay that cannot be reached: 502, said at once, and the email stays', async (t) => {
  const down = await startSmtpTestServer();
  await down.close();
  const app = await startTestApp('sqlite', { ...mailEnv(), SMTP_URL: down.url, SMTP_TIMEOUT_MS: '2000' });
  t.teardown(() => app.close());
  const client = app.client();
  const user = await client.signUp({ password: PASSWORD });
  const res = await client.post('/auth/email', { newEmail: fresh('lost'), password: PASSWORD });
  t.is(res.status, 502, JSON.stringify(res.body));
  t.is(res.body.message, 'The mail to the new address could not be sent; try again later');
  t.is((await client.get('/auth/profile')).body.email, user.email);
});

test.serial('without SMTP_URL: no change of email (404), and the features say so', async (t) => {
  const withMail = await startTestApp('sqlite', mailEnv());
  t.teardown(() => withMail.close());
  t.is((await withMail.client().get('/features')).body.emailChange, true);
  const paths = (await withMail.client().get('/openapi.json')).body.paths;
  t.true('/auth/email' in paths && '/auth/email/confirm' in paths);

  const without = await startTestApp('sqlite', { FRONTEND_URL: FRONTEND });
  t.teardown(() => without.close());
  t.is((await without.client().get('/features')).body.emailChange, false);
  const client = without.client();
  await client.signUp({ password: PASSWORD });
  t.is((await client.post('/auth/email', { newEmail: fresh('x'), password: PASSWORD })).status, 404);
  t.is((await client.post('/auth/email/confirm', { token: 'x' })).status, 404);
});

test.serial('ADMIN_EMAILS: a listed address stays (409); a confirmed change to a listed address makes an administrator at the next login', async (t) => {
  const listed = fresh('listed-admin');
  const wanted = fresh('wanted-admin');
  const app = await startTestApp('sqlite', mailEnv({ ADMIN_EMAILS: `${listed},${wanted}` }));
  t.teardown(() => app.close());
  const admin = app.client();
  t.is((await admin.signUp({ email: listed, password: PASSWORD })).role, 'admin');
  const refused = await admin.post('/auth/email', { newEmail: fresh('elsewhere'), password: PASSWORD });
  t.is(refused.status, 409, JSON.stringify(refused.body));
  t.regex(refused.body.message, /ADMIN_EMAILS/);

  const client = app.client();
  t.is((await client.signUp({ password: PASSWORD })).role, 'user');
  t.is((await client.post('/auth/email', { newEmail: wanted, password: PASSWORD })).status, 202);
  const token = tokenIn((await waitForMailTo(wanted))[0]!.text);
  t.is((await app.client().post('/auth/email/confirm', { token })).status, 200);
  const login = await app.client().post('/auth/login', { email: wanted, password: PASSWORD });
  t.is(login.body.user.role, 'admin', 'the address is proven, as registering it would not have proven it');
});

test.serial('SMTP_REQUIRE_TLS: a relay that offers no STARTTLS gets no mail (502), even on this machine', async (t) => {
  const app = await startTestApp('sqlite', mailEnv({ SMTP_REQUIRE_TLS: 'true' }));
  t.teardown(() => app.close());
  const client = app.client();
  await client.signUp({ password: PASSWORD });
  const sent = server().mails.length;
  t.is((await client.post('/auth/email', { newEmail: fresh('clear'), password: PASSWORD })).status, 502);
  t.is(server().mails.length, sent);
});
