import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startSmtpTestServer, type SmtpTestServer } from '../support/smtp-test-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { axeViolations, launchChromium, PageProblems, screenshot, signedOutPage as signedOutPageOf, signedUpThroughForm } from './browser-support.ts';

// Changing one's email in the web client against the real application (SQLite) and a real SMTP server, ADR 065: on
// Account a user asks for the change (refusals told at their fields), the link comes to the new address, and the page
// it opens confirms the change on a press, signed in (the header and Account show the new email) or out (on to sign in);
// a used link says to ask again, an address taken meanwhile says so; without mail Account offers no change, and an
// account without a password keeps its email. The reset page points to "Forgot your password?" where mail is sent.
const PASSWORD = 'correct horse battery';
let smtp: SmtpTestServer;
let app: TestApp;
let browser: Browser;
const problems = new PageProblems([/status of 40[019]/, /status of 502/]);

test.before(async () => {
  smtp = await startSmtpTestServer();
  // The links of the mails name FRONTEND_URL, which defaults to the app's own address: they open in this app.
  app = await startTestApp('sqlite', { SMTP_URL: smtp.url, MAIL_FROM: 'Studio <no-reply@studio.example.com>' });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.close();
});

const fresh = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@browser.example`;

/** The confirmation link of the latest mail to `address`. */
async function linkMailedTo(address: string): Promise<string> {
  const mails = await smtp.waitForMailTo(address);
  const link = new RegExp(`${app.app.config.publicUrl}/confirm-email#token=[\\w-]+`).exec(mails.at(-1)!.text)?.[0];
  if (!link) throw new Error(`no link in ${mails.at(-1)!.text}`);
  return link;
}

// Every step takes well under a second: a missing element fails soon.
const signedOutPage = (width: number) => signedOutPageOf(browser, app.app.config.publicUrl, problems, width, 10_000);

/** The page's answer to /features is the service's, changed by `change`. */
const features = (page: Page, change: Record<string, unknown>) =>
  page.route('**/api/v1/features', async (route) => {
    const real = await (await route.fetch()).json();
    await route.fulfill({ json: { ...real, ...change } });
  });

test.serial('on Account a user changes the email: refusals at their fields, the mailed link confirms it, and the new email signs in', async (t) => {
  const email = fresh('eve');
  const newEmail = fresh('eve-moved');
  const { context, page } = await signedUpThroughForm(browser, app.app.config.publicUrl, problems, { width: 390, email, displayName: 'Eve', password: PASSWORD });
  t.teardown(() => context.close());
  page.setDefaultTimeout(10_000);

  await page.getByRole('link', { name: 'Eve' }).click();
  const form = page.getByRole('form', { name: 'Email' });
  await form.getByText(`You sign in with ${email}.`).waitFor();
  t.is(await page.getByText('Signed in as').count(), 0, 'the email is shown once, in its section');
  const wanted = form.getByLabel('New email');
  const password = form.getByLabel('Current password');
  t.deepEqual([await wanted.getAttribute('type'), await wanted.getAttribute('autocomplete')], ['email', 'email']);
  t.deepEqual([await password.getAttribute('type'), await password.getAttribute('autocomplete')], ['password', 'current-password']);
  const status = form.getByRole('status');
  const send = form.getByRole('button', { name: 'Send confirmation link' });

  await wanted.fill(email.toUpperCase());
  await password.fill(PASSWORD);
  await send.click();
  await form.getByText('New email is already your email.', { exact: true }).waitFor();
  t.is(await wanted.getAttribute('aria-invalid'), 'true');
  t.true(await wanted.evaluate((input) => input === document.activeElement), 'the refused field has the focus');

  await wanted.fill(newEmail);
  await password.fill('not my password');
  await send.click();
  const wrong = form.getByText('Current password is wrong.', { exact: true });
  await wrong.waitFor();
  t.is(await password.getAttribute('aria-describedby'), await wrong.getAttribute('id'), 'the field is described by its refusal');
  t.is(await wanted.getAttribute('aria-invalid'), null, "the other field's earlier refusal is gone");
  t.is(await status.textContent(), '', 'the status line says nothing more');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'email-change-01-refused');

  await password.fill(PASSWORD);
  await send.click();
  await status.getByText(`A link to confirm ${newEmail} is on its way there. Open the link in that mail to finish; until then you sign in with ${email}.`, { exact: true }).waitFor();
  t.deepEqual([await wanted.inputValue(), await password.inputValue()], ['', ''], 'the form is emptied');
  t.is(await password.getAttribute('aria-invalid'), null);
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'email-change-02-sent');
  t.is(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'fits a phone');

  // Opened in the same browser, still signed in: nothing is sent before the press.
  const link = await linkMailedTo(newEmail);
  await page.goto(link);
  await page.getByRole('heading', { name: 'Confirm your new email' }).waitFor();
  t.is((await page.request.get('/api/v1/auth/profile').then((res) => res.json())).email, email, 'opening the link changes nothing');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'email-change-03-confirm');
  await page.getByRole('button', { name: 'Confirm new email' }).click();
  await page.getByRole('heading', { name: 'Email changed' }).waitFor();
  t.is(await page.getByRole('status').textContent(), `Your email is now ${newEmail}.`);
  t.is(new URL(page.url()).hash, '', 'the token left the address bar');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'email-change-04-confirmed');

  // Followed within the page, the Account page shows the user the page now holds.
  await page.getByRole('link', { name: 'Back to Account' }).click();
  await form.getByText(`You sign in with ${newEmail}.`).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(newEmail);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();

  // The link worked once: the page says to ask again, on Account.
  await page.goto(link);
  await page.getByRole('button', { name: 'Confirm new email' }).click();
  await page.getByText('This link is invalid, used or expired; ask for the change again.').waitFor();
  t.is(new URL(page.url()).hash, '', 'a dead token leaves the address bar too');
  await page.getByRole('link', { name: 'Ask again on Account' }).click();
  await page.getByRole('form', { name: 'Email' }).waitFor();

  await page.goto('/confirm-email');
  await page.getByText('This link is incomplete: open the whole link from the mail.').waitFor();
  t.is(await page.getByRole('button', { name: 'Confirm new email' }).count(), 0);
  t.deepEqual(problems.problems, []);
});

test.serial('a link opened signed out confirms and leads to sign in; an address taken meanwhile is told', async (t) => {
  const client = app.client();
  await client.signUp({ email: fresh('fay'), password: PASSWORD });
  const newEmail = fresh('fay-moved');
  t.is((await client.post('/auth/email', { newEmail, password: PASSWORD })).status, 202);
  const page = await signedOutPage(1100);
  t.teardown(() => page.context().close());

  await page.goto(await linkMailedTo(newEmail));
  await page.getByRole('button', { name: 'Confirm new email' }).click();
  await page.getByText(`Your email is now ${newEmail}.`).waitFor();
  await screenshot(page, 'email-change-05-confirmed-signed-out');
  await page.getByRole('link', { name: 'Sign in' }).click();
  t.is(await page.getByLabel('Email').inputValue(), newEmail);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();

  const taken = fresh('taken');
  t.is((await client.post('/auth/email', { newEmail: taken, password: PASSWORD })).status, 202);
  const link = await linkMailedTo(taken);
  await app.client().signUp({ email: taken });
  await page.goto(link);
  await page.getByRole('button', { name: 'Confirm new email' }).click();
  await page.getByRole('status').getByText('Another account has this email now').waitFor();
  t.is(await page.getByRole('heading', { name: 'Email changed' }).count(), 0);
  await screenshot(page, 'email-change-06-taken');
  t.deepEqual(problems.problems, []);
});

test.serial('without mail Account shows the email and no change; an account without a password keeps its email; a refused mail is told', async (t) => {
  const { context, page } = await signedUpThroughForm(browser, app.app.config.publicUrl, problems, { width: 1100, email: fresh('gus'), displayName: 'Gus', password: PASSWORD });
  t.teardown(() => context.close());
  page.setDefaultTimeout(10_000);
  await features(page, { emailChange: false });
  await page.goto('/account');
  await page.getByText(/^Signed in as gus-/).waitFor();
  t.is(await page.getByRole('form', { name: 'Email' }).count(), 0);
  t.is(await page.getByLabel('New email').count(), 0);
  t.deepEqual(await axeViolations(page), []);

  // A provider's account (the answers are the test's own, as in account.test.ts) keeps its email: no form, a reason.
  await page.unrouteAll();
  await features(page, { oidcProviders: ['google'] });
  await page.route('**/api/v1/auth/identities', (route) => route.fulfill({ json: { hasPassword: false, identities: [{ provider: 'google', email: null, linkedAt: '2026-12-01T10:00:00.000Z' }] } }));
  await page.goto('/account');
  await page.getByText(/This account signs in through its identity provider and has no password, so its email cannot be changed here\./).waitFor();
  t.is(await page.getByLabel('New email').count(), 0);
  t.is(await page.getByRole('button', { name: 'Send confirmation link' }).count(), 0);
  t.deepEqual(await axeViolations(page), []);

  // A relay that refuses: the service's 502 on the status line (faked: the real relay here takes every mail).
  await page.unrouteAll();
  const sent: unknown[] = [];
  await page.route('**/api/v1/auth/email', (route) => {
    sent.push(route.request().postDataJSON());
    return route.fulfill({ status: 502, json: { statusCode: 502, error: 'Bad Gateway', message: 'The mail to the new address could not be sent; try again later' } });
  });
  await page.goto('/account');
  const form = page.getByRole('form', { name: 'Email' });
  await form.getByLabel('New email').fill('new@browser.example');
  await form.getByLabel('Current password').fill(PASSWORD);
  await form.getByRole('button', { name: 'Send confirmation link' }).click();
  await form.getByRole('status').getByText('The mail to the new address could not be sent; try again later').waitFor();
  t.deepEqual(sent, [{ newEmail: 'new@browser.example', password: PASSWORD }]);
  await screenshot(page, 'email-change-07-no-password');
  t.deepEqual(problems.problems, []);
});

test.serial('where mail is sent, a dead or cut reset link points to "Forgot your password?"', async (t) => {
  const page = await signedOutPage(390);
  t.teardown(() => page.context().close());
  await page.goto('/reset-password');
  await page.getByText('This link is incomplete: open the whole link you were given, or ask for a new one.').waitFor();
  await page.getByRole('link', { name: 'ask for a new one' }).click();
  await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();

  await page.goto('/reset-password#token=no-such-token');
  await page.getByLabel('New password').fill('a brand new passphrase 9');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText('This link is invalid, used or expired; ask for a new link.').waitFor();
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'email-change-08-reset-dead-link');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();

  // Without mail an administrator makes the links: no way to a page that cannot send one.
  await features(page, { passwordResetByMail: false });
  await page.goto('/reset-password#token=no-such-token');
  await page.getByLabel('New password').fill('a brand new passphrase 9');
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText('This link is invalid, used or expired; ask for a new link.').waitFor();
  t.is(await page.getByRole('link', { name: 'Forgot your password?' }).count(), 0);
  // (A new address, not the fragment alone: a change of fragment does not load the page again.)
  await page.goto('/reset-password');
  await page.getByText('This link is incomplete: open the whole link you were given, or ask an administrator for a new one.').waitFor();
  t.deepEqual(problems.problems, []);
});
