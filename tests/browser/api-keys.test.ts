import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { launchChromium, PageProblems, screenshot } from './browser-support.ts';

// The API keys page of the web client against the real application (SQLite): make a key, see it once and copy it,
// use it from outside the browser, revoke it.
let app: TestApp;
let browser: Browser;
const problems = new PageProblems();

test.before(async () => {
  app = await startTestApp('sqlite');
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

test.serial('a user makes a key on the API keys page, copies it (shown once), calls the API with it, and revokes it', async (t) => {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.app.config.publicUrl });
  await problems.watch(context);
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto('/signup');
  await page.getByLabel('Display name').fill('Key Maker');
  await page.getByLabel('Email').fill('keys@browser.example');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByRole('cell', { name: 'No API keys yet.' }).waitFor();
  t.is(await page.getByLabel('admin').count(), 0, 'no admin scope offered to a user');

  await page.getByLabel('Name').fill('nightly export');
  await page.getByLabel('history').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByLabel('New API key');
  await shown.waitFor();
  const key = await shown.inputValue();
  t.regex(key, /^mgs_/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByText('Copied.').waitFor();
  t.is(await page.evaluate(() => navigator.clipboard.readText()), key);
  const row = page.getByRole('row', { name: /nightly export/ });
  await row.getByRole('cell', { name: 'generate, history' }).waitFor();
  t.false((await page.getByRole('table').innerText()).includes(key.slice(16)), 'the table shows the prefix only');
  await screenshot(page, 'api-keys-01-created');

  const caller = app.client();
  caller.bearer = key;
  t.is((await caller.get('/generate')).status, 200);

  await page.reload();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  t.is(await page.getByLabel('New API key').count(), 0, 'the key is not shown again');
  await page.getByRole('button', { name: 'Revoke nightly export' }).click();
  await page.getByRole('status').filter({ hasText: 'Key "nightly export" revoked.' }).waitFor();
  await page.getByRole('cell', { name: 'No API keys yet.' }).waitFor();
  t.is((await caller.get('/generate')).status, 401);
  t.deepEqual(problems.problems, []);
});
