import test from 'ava';
import type { Browser, Request } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { axeViolations, launchChromium, PageProblems, screenshot, signedUpThroughForm, sleep, until } from './browser-support.ts';

// Deleting an account in the web client against the real application (SQLite), ADR 063: a user deletes their own from
// Account with the password (a wrong one is refused and keeps them signed in; the right one signs the tab out onto the
// sign-in page, which says so, and the password no longer signs in); an account without a password confirms with its
// email; an administrator deletes another user from Users after confirming, and is offered no Delete on their own row.
const ADMIN = 'deletion-admin@browser.example';
const PASSWORD = 'correct horse battery';
let app: TestApp;
let browser: Browser;
const problems = new PageProblems([/status of 40[01]/]);

test.before(async () => {
  app = await startTestApp('sqlite', { ADMIN_EMAILS: ADMIN });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const signUp = (width: number, email: string, displayName: string) => signedUpThroughForm(browser, app.app.config.publicUrl, problems, { width, email, displayName, password: PASSWORD });

/** The bodies of the page's `DELETE /api/v1/auth/account` requests. */
function deletions(page: import('playwright-core').Page): unknown[] {
  const bodies: unknown[] = [];
  page.on('request', (request: Request) => {
    if (request.method() === 'DELETE' && new URL(request.url()).pathname === '/api/v1/auth/account') bodies.push(request.postDataJSON());
  });
  return bodies;
}

test.serial('on Account a user deletes their account with the password: a wrong one is refused, the right one signs them out onto the sign-in page', async (t) => {
  const email = 'dee@browser.example';
  const { context, page } = await signUp(390, email, 'Dee');
  t.teardown(() => context.close());
  const sent = deletions(page);
  const balance = (await page.getByTestId('balance').textContent())!;

  await page.getByRole('link', { name: 'Dee' }).click();
  const form = page.getByRole('form', { name: 'Delete account' });
  await form.waitFor();
  // What goes, said before the press: the balance shown is the one in the header.
  t.regex((await form.textContent())!, /jobs are cancelled, and their coins refunded/);
  t.true((await form.textContent())!.includes(`the coins left on the account are lost: ${balance} now`), `the balance ${balance} is named`);
  await form.getByText('This cannot be undone.').waitFor();
  const password = page.getByLabel('Your password');
  t.is(await password.getAttribute('type'), 'password');
  t.is(await page.locator(`#${await password.getAttribute('aria-describedby')}`).textContent(), 'The password you sign in with, to show it is you.');
  t.is(await page.getByLabel('Your email').count(), 0, 'an account with a password is asked for it, not for its email');

  await password.fill('not my password');
  await form.getByRole('button', { name: 'Delete my account' }).click();
  await form.getByRole('status').filter({ hasText: 'Your password is wrong.' }).waitFor();
  t.is(new URL(page.url()).pathname, '/account', 'still on Account');
  t.is((await page.request.get('/api/v1/auth/profile')).status(), 200, 'still signed in');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  t.true(await form.getByRole('button', { name: 'Delete my account' }).isEnabled(), 'the button comes back');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'account-deletion-01-refused');
  t.is(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'fits a phone');

  await password.fill(PASSWORD);
  await form.getByRole('button', { name: 'Delete my account' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(new URL(page.url()).pathname, '/login');
  await page.getByRole('status').filter({ hasText: 'Your account was deleted. Its outputs and uploads are being removed.' }).waitFor();
  t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'the tab is signed out');
  t.is(await page.getByTestId('balance').count(), 0, 'no balance in the header');
  t.is(await page.evaluate(() => localStorage.getItem('signed-in')), null, 'the tab no longer thinks it is signed in');
  t.deepEqual(sent, [{ password: 'not my password' }, { password: PASSWORD }]);
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'account-deletion-02-deleted');

  // The old password signs in no more.
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('status').filter({ hasText: /\w/ }).filter({ hasNotText: 'Your account was deleted' }).waitFor();
  t.is(new URL(page.url()).pathname, '/login', 'still on the sign-in page');
  t.is((await app.client().post('/auth/login', { email, password: PASSWORD })).status, 401);
  // The word is for the tab that deleted the account, not for every sign-in page.
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.getByText('Your account was deleted').count(), 0);
  t.deepEqual(problems.problems, []);
});

// An account without a password is made through a provider (tests/integration/oidc.test.ts); here the page's answers
// are the test's own (page.route), as in account.test.ts, and so is the deletion's.
test.serial('on Account an account without a password confirms the deletion with its email', async (t) => {
  const email = 'eve@browser.example';
  const { context, page } = await signUp(1100, email, 'Eve');
  t.teardown(() => context.close());
  await page.route('**/api/v1/features', async (route) => {
    const real = await (await route.fetch()).json();
    await route.fulfill({ json: { ...real, oidcProviders: ['google'] } });
  });
  await page.route('**/api/v1/auth/identities', (route) =>
    route.fulfill({ json: { hasPassword: false, identities: [{ provider: 'google', email, linkedAt: '2026-12-01T10:00:00.000Z' }] } }),
  );
  const sent: unknown[] = [];
  await page.route('**/api/v1/auth/account', (route) => {
    const body = route.request().postDataJSON() as { confirmEmail?: string };
    sent.push(body);
    if (body.confirmEmail === email) return route.fulfill({ json: { message: 'Account deleted; its outputs and uploads are being removed', jobsCancelled: 0, coinsForfeited: 100 } });
    return route.fulfill({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'Validation failed', details: [{ field: 'confirmEmail', message: "must be this account's email" }] } });
  });

  await page.goto('/account');
  const form = page.getByRole('form', { name: 'Delete account' });
  await form.waitFor();
  t.is(await page.getByLabel('Your password').count(), 0, 'no password to ask for');
  const typed = page.getByLabel('Your email');
  t.is(await page.locator(`#${await typed.getAttribute('aria-describedby')}`).textContent(), `Type ${email} to confirm: this account signs in through its provider, without a password.`);
  await typed.fill('someone-else@browser.example');
  await form.getByRole('button', { name: 'Delete my account' }).click();
  await form.getByRole('status').filter({ hasText: "Your email must be this account's email." }).waitFor();
  t.deepEqual(sent, [{ confirmEmail: 'someone-else@browser.example' }], 'the typed email is sent, not a password');
  t.is(new URL(page.url()).pathname, '/account');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'account-deletion-03-email');

  await typed.fill(email);
  await form.getByRole('button', { name: 'Delete my account' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByText('Your account was deleted.').waitFor();
  t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
  t.deepEqual(sent, [{ confirmEmail: 'someone-else@browser.example' }, { confirmEmail: email }]);
  t.deepEqual(problems.problems, []);
});

test.serial('an administrator deletes another user from Users after confirming: the status line says what went, the row is gone; no Delete on their own row', async (t) => {
  const { context, page: admin } = await signUp(1100, ADMIN, 'Admin');
  t.teardown(() => context.close());
  const victim = app.client();
  const { email } = await victim.signUp({ email: 'fay@browser.example', displayName: 'Fay' });
  const deletes: string[] = [];
  admin.on('request', (request) => {
    if (request.method() === 'DELETE') deletes.push(new URL(request.url()).pathname);
  });
  const dialogs: string[] = [];
  let accept = false;
  admin.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void (accept ? dialog.accept() : dialog.dismiss());
  });

  await admin.getByRole('link', { name: 'Users' }).click();
  const row = admin.getByRole('row', { name: new RegExp(email) });
  await row.waitFor();
  const adminRow = admin.getByRole('row', { name: new RegExp(ADMIN) });
  await adminRow.waitFor();
  t.is(await adminRow.getByRole('button', { name: /^Delete/ }).count(), 0, "no Delete on the administrator's own row");
  t.is(await row.getByRole('button', { name: 'Delete', exact: true }).count(), 0, 'the button names its row for screen readers');
  const remove = row.getByRole('button', { name: `Delete ${email}` });
  t.is(await remove.textContent(), 'Delete');

  // Cancelled at the question: nothing is sent.
  await remove.click();
  await sleep(300);
  t.is(dialogs.length, 1, 'the deletion is asked about first');
  t.regex(dialogs[0]!, new RegExp(`^Delete the account of ${email}\\?.*This cannot be undone\\.$`));
  t.deepEqual(deletes, [], 'nothing deleted when the question is cancelled');
  t.is(await row.count(), 1);

  // Confirmed: one deletion, however often the button is pressed while it is sent.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await admin.route('**/api/v1/admin/users/*', async (route) => {
    if (route.request().method() === 'DELETE') await held;
    return route.fallback();
  });
  accept = true;
  await remove.click();
  await until(() => deletes.length === 1, 'the deletion');
  await remove.click({ force: true });
  release();
  const status = admin.locator('main > p[role="status"]');
  await status.filter({ hasText: `Deleted ${email}` }).waitFor();
  t.is(await status.textContent(), `Deleted ${email}: 0 jobs cancelled, 100 coins forfeited.`);
  await admin.getByRole('cell', { name: email, exact: true }).waitFor({ state: 'detached' });
  t.is(await row.count(), 0, 'the row is gone');
  await adminRow.waitFor();
  t.is(dialogs.length, 2);
  t.is(deletes.length, 1);
  t.regex(deletes[0]!, /^\/api\/v1\/admin\/users\/[0-9a-f-]{36}$/);
  t.deepEqual(await axeViolations(admin), []);
  await screenshot(admin, 'account-deletion-04-users');

  t.is((await victim.get('/auth/profile')).status, 401, "the user's session ended");
  t.is((await app.client().post('/auth/login', { email, password: PASSWORD })).status, 401, 'and the account signs in no more');
  t.deepEqual(problems.problems, []);
});
