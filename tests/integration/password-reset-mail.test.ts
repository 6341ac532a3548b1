/**
 * "Forgot your password?" over HTTP (ADR 064): the real application mails through a real SMTP server, and the link in
 * the mail is used as a user would. SQLite and MariaDB for the flow; the rest once.
 */
import test from 'ava';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { sharedSmtpTestServer } from '../support/smtp-test-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestResponse } from '../support/test-client.ts';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase 9';
const FRONTEND = 'https://studio.example.com/app';
const FROM = 'Studio <no-reply@studio.example.com>';
const ANSWER = { message: 'If an account uses this email, a mail with a link to set a new password is on its way' };

const fields = (res: TestResponse) => (res.body.details ?? []).map((detail: { field: string }) => detail.field);
const tokenIn = (text: string) => new RegExp(`${FRONTEND.replace(/[.]/g, '\\.')}/reset-password#token=([A-Za-z0-9_-]+)`).exec(text)?.[1];

const server = sharedSmtpTestServer(test);

const mailEnv = (extra: Record<string, string> = {}) => ({ SMTP_URL: server().url, MAIL_FROM: FROM, FRONTEND_URL: FRONTEND, PASSWORD_RESET_REQUESTS_PER_ADDRESS: '1000', ...extra });
const waitForMailTo = (email: string, count = 1) => server().waitForMailTo(email, count);

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;
  let started: Promise<TestApp> | null = null;
  const app = () => (started ??= startTestApp(db, mailEnv()));
  test.after.always(async () => {
    if (started) await (await started).close();
  });

  test.serial(title('the mailed link sets a new password once; every session of the user ends; the old password is dead'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp({ password: PASSWORD });
    const anonymous = (await app()).client();
    const asked = await anonymous.post('/auth/forgot-password', { email: ` ${user.email.toUpperCase()} ` });
    t.is(asked.status, 202, JSON.stringify(asked.body));
    t.deepEqual(asked.body, ANSWER);
    const [mail] = await waitForMailTo(user.email);
    t.like(mail, { envelopeFrom: 'no-reply@studio.example.com', envelopeTo: [user.email], from: '"Studio" <no-reply@studio.example.com>', subject: 'Set a new password' });
    const token = tokenIn(mail!.text);
    t.truthy(token, mail!.text);

    const used = await anonymous.post('/auth/password-reset', { token, newPassword: NEW_PASSWORD });
    t.is(used.status, 200, JSON.stringify(used.body));
    t.is(used.body.email, user.email);
    t.is((await client.get('/auth/profile')).status, 401, 'the session that was signed in ends');
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 401);
    t.is((await (await app()).client().post('/auth/login', { email: user.email, password: NEW_PASSWORD })).status, 200);
    const again = await anonymous.post('/auth/password-reset', { token, newPassword: 'yet another passphrase 7' });
    t.is(again.status, 400);
    t.deepEqual(fields(again), ['token']);
  });

  test.serial(title('an email no account has gets the same answer and no mail'), async (t) => {
    const client = (await app()).client();
    const user = await client.signUp({ password: PASSWORD });
    const before = server().mails.length;
    const unknown = await client.post('/auth/forgot-password', { email: `nobody-${user.id}@example.com` });
    t.is(unknown.status, 202);
    t.deepEqual(unknown.body, ANSWER);
    // A request for a real account after it: once its mail is here, the first request's lookup is long over.
    t.is((await client.post('/auth/forgot-password', { email: user.email })).status, 202);
    await waitForMailTo(user.email);
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.is(server().mails.length, before + 1);
  });
}

for (const db of DATABASES) suite(db);

test.serial('a newer link replaces the mailed one, and the mailed one replaces an administrator\'s', async (t) => {
  const app = await startTestApp('sqlite', mailEnv({ ADMIN_EMAILS: 'mail-admin@example.com' }));
  t.teardown(() => app.close());
  const admin = app.client();
  await admin.signUp({ email: 'mail-admin@example.com' });
  const user = await app.client().signUp({ password: PASSWORD });
  const handed = tokenIn((await admin.post(`/admin/users/${user.id}/password-reset`)).body.resetUrl);
  t.is((await app.client().post('/auth/forgot-password', { email: user.email })).status, 202);
  const mailed = tokenIn((await waitForMailTo(user.email))[0]!.text);
  t.not(mailed, handed);
  const anonymous = app.client();
  t.deepEqual(fields(await anonymous.post('/auth/password-reset', { token: handed, newPassword: NEW_PASSWORD })), ['token'], 'the handed-over link is dead');
  t.is((await anonymous.post('/auth/password-reset', { token: mailed, newPassword: NEW_PASSWORD })).status, 200);
});

test.serial('400 for what is not an email; 429 with Retry-After past the limit per email, for any email alike', async (t) => {
  const app = await startTestApp('sqlite', mailEnv({ PASSWORD_RESET_REQUESTS_PER_EMAIL: '2' }));
  t.teardown(() => app.close());
  const client = app.client();
  for (const body of [{}, { email: '' }, { email: 'not-an-email' }, { email: ['a@example.com'] }]) {
    const bad = await client.post('/auth/forgot-password', body);
    t.is(bad.status, 400, JSON.stringify(body));
    t.deepEqual(fields(bad), ['email']);
  }
  const user = await client.signUp({ password: PASSWORD });
  for (const email of [user.email, 'nobody@example.com']) {
    t.is((await client.post('/auth/forgot-password', { email })).status, 202);
    t.is((await client.post('/auth/forgot-password', { email })).status, 202);
    const third = await client.post('/auth/forgot-password', { email });
    t.is(third.status, 429);
    t.is(third.body.error, 'Too Many Requests');
    t.true(Number(third.headers.get('retry-after')) > 0);
  }
  await waitForMailTo(user.email, 2);
});

test.serial('per client address: PASSWORD_RESET_REQUESTS_PER_ADDRESS requests, then 429', async (t) => {
  const app = await startTestApp('sqlite', mailEnv({ PASSWORD_RESET_REQUESTS_PER_ADDRESS: '3' }));
  t.teardown(() => app.close());
  const client = app.client();
  for (const name of ['a', 'b', 'c']) t.is((await client.post('/auth/forgot-password', { email: `${name}@example.com` })).status, 202);
  t.is((await client.post('/auth/forgot-password', { email: 'd@example.com' })).status, 429);
});

test.serial('with SMTP_URL the features say so and the route is there; without, neither', async (t) => {
  const withMail = await startTestApp('sqlite', mailEnv());
  t.teardown(() => withMail.close());
  t.is((await withMail.client().get('/features')).body.passwordResetByMail, true);
  t.true('/auth/forgot-password' in (await withMail.client().get('/openapi.json')).body.paths);

  const without = await startTestApp('sqlite', { FRONTEND_URL: FRONTEND });
  t.teardown(() => without.close());
  t.is((await without.client().get('/features')).body.passwordResetByMail, false);
  t.is((await without.client().post('/auth/forgot-password', { email: 'someone@example.com' })).status, 404);
  t.false('/auth/forgot-password' in (await without.client().get('/openapi.json')).body.paths);
});
