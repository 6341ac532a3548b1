import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { axeViolations, launchChromium, PageProblems, screenshot, signedUpThroughForm } from './browser-support.ts';

// The account page and the reset link of the web client against the real application (SQLite), ADR 062: a user
// renames themselves and changes the password (another browser's session ends), an administrator makes a reset link
// on Users, and the user sets a password with it, signed out everywhere and sent to sign in with the email filled in.
const ADMIN = 'account-admin@browser.example';
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

test.serial('on Account a user renames themselves and changes the password; a wrong one is refused; another session ends', async (t) => {
  const { context, page } = await signUp(390, 'ada@browser.example', 'Ada');
  t.teardown(() => context.close());
  const other = app.client();
  t.is((await other.post('/auth/login', { email: 'ada@browser.example', password: PASSWORD })).status, 200);

  await page.getByRole('link', { name: 'Ada' }).click();
  await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
  t.is(new URL(page.url()).pathname, '/account');
  await page.getByLabel('Display name').fill('Ada L.');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByText('Name saved.').waitFor();
  await page.getByRole('banner').getByRole('link', { name: 'Ada L.' }).waitFor();

  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill('a brand new passphrase 9');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Current password is wrong.').waitFor();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed. 1 other session was signed out.').waitFor();
  t.is(await page.getByLabel('Current password').inputValue(), '', 'the fields are emptied');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'account-01-changed');
  t.is(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'fits a phone');

  t.is((await other.get('/auth/profile')).status, 401, "the other browser's session ended");
  await page.reload();
  await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
  t.is((await app.client().post('/auth/login', { email: 'ada@browser.example', password: 'a brand new passphrase 9' })).status, 200);
  t.deepEqual(problems.problems, []);
});

test.serial('an administrator makes a reset link on Users; the user sets a password with it and signs in', async (t) => {
  const { context: adminContext, page: admin } = await signUp(1100, ADMIN, 'Admin');
  t.teardown(() => adminContext.close());
  const { context, page } = await signUp(390, 'bo@browser.example', 'Bo');
  t.teardown(() => context.close());

  await admin.getByRole('link', { name: 'Users' }).click();
  await admin.getByRole('button', { name: 'Reset link for bo@browser.example' }).click();
  const shown = admin.getByLabel('Reset link', { exact: true });
  await shown.waitFor();
  const link = await shown.inputValue();
  t.regex(link, /\/reset-password#token=[\w-]{43}$/);
  await admin.getByText(/A link that sets the password of bo@browser\.example/).waitFor();
  t.deepEqual(await axeViolations(admin), []);
  await screenshot(admin, 'account-02-reset-link');

  // Opened in the browser of the user, still signed in there.
  await page.goto(link);
  await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
  await page.getByLabel('New password').fill('password123');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText(/The new password is too common/).waitFor();
  await page.getByLabel('New password').fill('bo has a new passphrase 4');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { name: 'Password set' }).waitFor();
  t.is(new URL(page.url()).hash, '', 'the token left the address bar');
  t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'this tab is signed out too');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'account-03-password-set');

  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.getByLabel('Email').inputValue(), 'bo@browser.example');
  await page.getByLabel('Password').fill('bo has a new passphrase 4');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();

  // The link worked once.
  await page.goto(link);
  await page.getByLabel('New password').fill('yet another passphrase 7');
  await page.getByRole('button', { name: 'Set password' }).click();
  // Without mail, an administrator makes the next link, and the page says so.
  await page.getByText(/^This link is invalid, used or expired; ask for a new link\. An administrator can make you a new one\.$/).waitFor();
  await page.goto('/reset-password');
  await page.getByText(/This link is incomplete/).waitFor();
  t.deepEqual(problems.problems, []);
});

// The server's side of linking runs against a real provider in tests/integration/oidc.test.ts; here the page's answers
// are the test's own (page.route), so that the page can be shown with providers configured.
test.serial('with providers configured, Account lists the sign-in methods: unlink one, link another, and says how a link ended', async (t) => {
  const { context, page } = await signUp(390, 'cy@browser.example', 'Cy');
  t.teardown(() => context.close());
  let identities = { hasPassword: true, identities: [{ provider: 'google', email: 'cy@gmail.example', linkedAt: '2026-12-01T10:00:00.000Z' }] };
  const unlinked: string[] = [];
  await page.route('**/api/v1/features', async (route) => {
    const real = await (await route.fetch()).json();
    await route.fulfill({ json: { ...real, oidcProviders: ['google', 'acme'] } });
  });
  await page.route('**/api/v1/auth/identities', (route) => route.fulfill({ json: identities }));
  await page.route('**/api/v1/auth/identities/*', (route) => {
    unlinked.push(new URL(route.request().url()).pathname.split('/').pop()!);
    identities = { ...identities, identities: [] };
    return route.fulfill({ status: 204 });
  });
  await page.route('**/api/v1/auth/acme/link', (route) => route.fulfill({ json: { url: `${app.app.config.publicUrl}/fake-provider` } }));
  await page.route('**/fake-provider', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Acme</title><p>the provider</p>' }));

  await page.goto('/account');
  const methods = page.getByRole('region', { name: 'Sign-in methods' });
  await methods.getByText('cy@gmail.example').waitFor();
  t.is(await methods.getByRole('button', { name: 'Link Google', exact: true }).count(), 0, 'a linked provider is not offered again');
  await methods.getByRole('button', { name: 'Unlink Google' }).click();
  await methods.getByText('Google is unlinked.').waitFor();
  t.deepEqual(unlinked, ['google']);
  await methods.getByRole('button', { name: 'Link Google', exact: true }).waitFor();
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'account-04-sign-in-methods');

  await methods.getByRole('button', { name: 'Link Acme', exact: true }).click();
  await page.waitForURL('**/fake-provider');
  // The provider sends the browser back: linked, or refused while signed in.
  await page.goto('/?linked=acme');
  await page.waitForURL('**/account?linked=acme');
  await page.getByText('Acme is linked: you can sign in with it.').waitFor();
  await page.goto('/login?error=identity_in_use');
  await page.waitForURL('**/account?error=identity_in_use');
  await page.getByText(/linked to another user here/).waitFor();

  identities = { hasPassword: false, identities: [{ provider: 'google', email: null as unknown as string, linkedAt: '2026-12-01T10:00:00.000Z' }] };
  await page.goto('/account');
  await page.getByText(/has no password/).waitFor();
  t.is(await page.getByLabel('Current password').count(), 0, 'no password form for an account without one');
  t.deepEqual(problems.problems, []);
});
