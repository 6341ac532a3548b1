import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startSmtpTestServer, type SmtpTestServer } from '../support/smtp-test-server.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { axeViolations, launchChromium, PageProblems, screenshot, signedOutPage as signedOutPageOf } from './browser-support.ts';

// "Forgot your password?" in the web client against the real application (SQLite) and a real SMTP server, ADR 064:
// the sign-in page offers it only where the service mails; a user asks for a link, the mail comes, its link sets a new
// password that then signs in; a refused email is told at its field, a limit with how long to wait; a service without
// mail says who makes the links instead.
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase 9';
const ANSWER = 'If an account uses this email, a mail with a link to set a new password is on its way.';
let smtp: SmtpTestServer;
let app: TestApp;
let browser: Browser;
const problems = new PageProblems([/status of 4(00|29)/]);

test.before(async () => {
  smtp = await startSmtpTestServer();
  // The links of the mails name FRONTEND_URL, which defaults to the app's own address: they open in this app.
  app = await startTestApp('sqlite', { SMTP_URL: smtp.url, MAIL_FROM: 'Studio <no-reply@studio.example.com>', PASSWORD_RESET_REQUESTS_PER_ADDRESS: '1000' });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.close();
});

// Every step takes well under a second: a missing element fails soon (a mutation run waits less).
const signedOutPage = (width: number) => signedOutPageOf(browser, app.app.config.publicUrl, problems, width, 10_000);

/** The page's answer to /features is the service's, as if it had no SMTP_URL. */
const withoutMail = (page: Page) =>
  page.route('**/api/v1/features', async (route) => {
    const real = await (await route.fetch()).json();
    await route.fulfill({ json: { ...real, passwordResetByMail: false } });
  });

test.serial('Sign in offers "Forgot your password?"; the mailed link sets a new password, which signs in', async (t) => {
  const user = await app.client().signUp({ password: PASSWORD });
  const page = await signedOutPage(390);
  t.teardown(() => page.context().close());
  const mailsBefore = smtp.mails.length;

  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
  t.is(new URL(page.url()).pathname, '/forgot-password');
  const email = page.getByLabel('Email');
  t.deepEqual([await email.getAttribute('type'), await email.getAttribute('autocomplete')], ['email', 'username']);
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'forgot-password-01-form');

  await email.fill(user.email);
  await page.getByRole('button', { name: 'Send link' }).click();
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
  t.is(await page.getByRole('status').textContent(), ANSWER);
  await page.getByText('The link works once, and for a limited time only.').waitFor();
  t.is(await page.getByRole('button', { name: 'Send link' }).count(), 0, 'the form is gone');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'forgot-password-02-sent');
  t.is(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'fits a phone');

  const mail = (await smtp.waitForMails(mailsBefore + 1)).find((one) => one.envelopeTo.includes(user.email));
  t.like(mail, { subject: 'Set a new password' });
  const link = new RegExp(`${app.app.config.publicUrl}/reset-password#token=[\\w-]+`).exec(mail!.text)?.[0];
  t.truthy(link, mail!.text);
  await page.goto(link!);
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByRole('heading', { name: 'Password set' }).waitFor();
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  t.deepEqual(problems.problems, []);
});

test.serial('a refused email is told at its field; past the limit the page says how long to wait', async (t) => {
  const page = await signedOutPage(1100);
  t.teardown(() => page.context().close());
  await page.goto('/forgot-password');
  const email = page.getByLabel('Email');
  const status = page.getByRole('status');

  // The browser takes it for an email, the service does not.
  await email.fill('someone@localhost');
  await page.getByRole('button', { name: 'Send link' }).click();
  const error = page.getByText('Email must be a valid email.', { exact: true });
  await error.waitFor();
  t.is(await email.getAttribute('aria-describedby'), await error.getAttribute('id'), 'the field is described by its refusal');
  t.is(await email.getAttribute('aria-invalid'), 'true');
  t.true(await email.evaluate((input) => input === document.activeElement), 'the refused field has the focus');
  t.is(await status.textContent(), '', 'the status line says nothing more');
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'forgot-password-03-refused');

  // The limit per email (3 an hour) is used up by other requests; the page's is the one past it.
  const limited = `limited-${Date.now()}@example.com`;
  for (let sent = 0; sent < 3; sent++) t.is((await page.request.post('/api/v1/auth/forgot-password', { data: { email: limited } })).status(), 202);
  await email.fill(limited);
  await page.getByRole('button', { name: 'Send link' }).click();
  await status.getByText('Too many reset requests; try again later. Wait 1 hour before trying again.').waitFor();
  t.is(await email.getAttribute('aria-invalid'), null, 'the earlier refusal of the field is gone');
  t.is(await page.getByText('Email must be a valid email.').count(), 0);
  t.true(await page.getByRole('button', { name: 'Send link' }).isEnabled(), 'the button comes back');
  await screenshot(page, 'forgot-password-04-limited');
  t.deepEqual(problems.problems, []);
});

test.serial('without mail, Sign in offers no link and the page says to ask an administrator', async (t) => {
  const page = await signedOutPage(390);
  t.teardown(() => page.context().close());
  await withoutMail(page);
  await page.goto('/login');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.getByRole('link', { name: 'Forgot your password?' }).count(), 0);

  // Typed in: no form, and the way back.
  await page.goto('/forgot-password');
  await page.getByText('This service does not send mail: ask an administrator for a link to set a new password.').waitFor();
  t.is(await page.getByRole('textbox').count(), 0);
  t.is(await page.getByRole('button', { name: 'Send link' }).count(), 0);
  t.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'forgot-password-05-no-mail');
  await page.getByRole('link', { name: 'Back to sign in' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.deepEqual(problems.problems, []);
});
