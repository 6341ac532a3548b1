import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';
import { axeViolations, launchChromium, PageProblems, screenshot } from './browser-support.ts';

// ADR 043 in Chromium: an administrator test-runs a draft from the template editor, with the Generate page's
// parameter form, live progress, the outputs inline and the recent test runs; nobody is charged, the run is not
// in the Jobs panel of another tab, and the card fits a phone with no axe findings or console errors.
const ADMIN = 'admin@test-runs.example';
const PASSWORD = 'correct horse battery';

const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: 0x3366cc } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'tested' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'x' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});

// Seconds of blur, checked for interruption between frames: long enough to be cancelled while it runs.
const slowWorkflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 16, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'slow' } },
});

let app: TestApp;
let browser: Browser;
let admin: TestClient;
let templateId: string;
const problems = new PageProblems();

test.before(async () => {
  app = await startTestApp('sqlite', { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false' });
  browser = await launchChromium();
  admin = app.client();
  await admin.signUp({ email: ADMIN, password: PASSWORD, displayName: 'Tester' });
  const created = await admin.post('/workflow-templates', { name: 'Draft square', category: 'text-to-image', workflow: workflow(), cost: 4, outputType: 'image' });
  if (created.status !== 201) throw new Error(`create: ${JSON.stringify(created.body)}`);
  templateId = created.body.id;
  const map = { prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true }, width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 16, max: 256, default: 64 } };
  const mapped = await admin.put(`/workflow-templates/${templateId}/parameter-map`, map);
  if (mapped.status !== 200) throw new Error(`map: ${JSON.stringify(mapped.body)}`);
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const fitsPhone = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

async function signedIn(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport });
  await problems.watch(context);
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill(ADMIN);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  return { context, page };
}

test.serial('a draft is test-run from the editor: its form, live progress, outputs inline, recent runs; nobody charged, not in the Jobs panel; phone width and axe', async (t) => {
  const { context, page } = await signedIn({ width: 1100, height: 900 });
  t.teardown(() => context.close());
  // Another tab on the Generate page: its Jobs panel hears the run's events but must not list it.
  const generateTab = await context.newPage();
  await generateTab.goto('/');
  await generateTab.getByText('No jobs yet.').waitFor();
  const balance = (await admin.get('/auth/profile')).body.coinBalance;

  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByRole('row', { name: /Draft square/ }).getByRole('cell', { name: 'draft, active' }).waitFor();
  await page.getByRole('button', { name: 'Test run Draft square' }).click();
  const card = page.locator('section', { has: page.getByRole('heading', { name: 'Test run of Draft square' }) });
  await card.getByText('No test runs yet.').waitFor();
  t.is(await card.getByLabel('width').inputValue(), '64', 'the form starts at the default');
  await card.getByLabel('prompt (required)').fill('a tested square');
  await card.getByLabel('width').fill('32');
  t.deepEqual(await axeViolations(page), [], 'axe on the test-run form');

  const answered = page.waitForResponse((response) => response.url().endsWith(`/admin/templates/${templateId}/test-runs`) && response.request().method() === 'POST');
  await card.getByRole('button', { name: 'Start test run' }).click();
  const job = (await (await answered).json()) as { id: string; testRun: boolean; paidCoins: number };
  t.like(job, { testRun: true, paidCoins: 0 });
  await card.getByRole('status').filter({ hasText: 'Done: 1 output.' }).waitFor();
  const image = card.getByRole('list', { name: 'Outputs of this test run' }).getByRole('img');
  await page.waitForFunction((img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth === 32, await image.elementHandle());
  t.is(await card.locator('progress').evaluate((bar) => (bar as HTMLProgressElement).value === (bar as HTMLProgressElement).max), true);
  const recent = card.getByRole('list', { name: 'Recent test runs of Draft square' });
  await recent.locator(`li[data-job-id="${job.id}"]`).getByText('succeeded').waitFor();
  t.is(await recent.locator(`li[data-job-id="${job.id}"] .job-prompt`).textContent(), 'a tested square');
  await screenshot(page, 'test-run-01-done');
  t.deepEqual(await axeViolations(page), [], 'axe with the outputs');

  t.is((await admin.get('/auth/profile')).body.coinBalance, balance, 'nobody was charged');
  await generateTab.bringToFront();
  t.is(await generateTab.locator(`.jobs li[data-job-id="${job.id}"]`).count(), 0, 'not in the Jobs panel');
  await generateTab.reload();
  await generateTab.getByText('No jobs yet.').waitFor();

  // A phone: the card fits, axe is clean; a second run shows first in the recent list.
  await page.bringToFront();
  await page.setViewportSize({ width: 390, height: 844 });
  await card.getByRole('button', { name: 'Start test run' }).click();
  await recent.locator('li').nth(1).waitFor();
  await card.getByRole('status').filter({ hasText: 'Done: 1 output.' }).waitFor();
  t.true(await fitsPhone(page), 'the test-run card scrolls sideways at 390 px');
  t.deepEqual(await axeViolations(page), [], 'axe at phone width');
  await screenshot(page, 'test-run-02-phone');
  t.is((await admin.get(`/admin/templates/${templateId}/test-runs`)).body.length, 2);
  t.is((await admin.get('/generate')).body.total, 0);
  t.deepEqual(problems.problems, []);
});

test.serial('a running test run is cancelled from its card; the recent list shows it cancelled, with no output', async (t) => {
  const created = await admin.post('/workflow-templates', { name: 'Slow draft', category: 'text-to-image', workflow: slowWorkflow(), cost: 2, outputType: 'image' });
  t.is(created.status, 201, JSON.stringify(created.body));
  const { context, page } = await signedIn({ width: 1100, height: 900 });
  t.teardown(() => context.close());
  await page.goto('/admin/templates');
  await page.getByRole('button', { name: 'Test run Slow draft' }).click();
  const card = page.locator('section', { has: page.getByRole('heading', { name: 'Test run of Slow draft' }) });
  await card.getByText('No test runs yet.').waitFor();
  const answered = page.waitForResponse((response) => response.url().endsWith('/test-runs') && response.request().method() === 'POST');
  await card.getByRole('button', { name: 'Start test run' }).click();
  const job = (await (await answered).json()) as { id: string };
  while ((await admin.get(`/generate/${job.id}`)).body.status === 'queued') await new Promise((resolve) => setTimeout(resolve, 50));
  await card.locator('.job-status').filter({ hasNotText: 'Queued' }).waitFor();
  // The admin console's Jobs page lists it (every job that runs is there), marked as a test run.
  const console_ = await context.newPage();
  await console_.goto('/admin/jobs');
  const row = console_.getByRole('row', { name: new RegExp(ADMIN) });
  await row.getByRole('cell', { name: 'running (test run)' }).waitFor();
  // Its server: none to name with the builtin engine (a ComfyUI fleet shows "server N").
  t.is(await console_.getByRole('columnheader').nth(5).textContent(), 'Server');
  t.is(await row.getByRole('cell').nth(5).textContent(), '—');
  await console_.close();
  await card.getByRole('button', { name: 'Cancel test run' }).click();
  await card.getByRole('status').filter({ hasText: 'Cancelled.' }).waitFor();
  t.true(await card.getByRole('button', { name: 'Cancel test run' }).isHidden());
  const recent = card.getByRole('list', { name: 'Recent test runs of Slow draft' });
  await recent.locator(`li[data-job-id="${job.id}"]`).getByText('cancelled').waitFor();
  t.is(await recent.locator(`li[data-job-id="${job.id}"] img`).count(), 0);
  t.like((await admin.get(`/generate/${job.id}`)).body, { status: 'cancelled', paidCoins: 0, refundedCoins: 0 });
  t.deepEqual(await axeViolations(page), []);
  t.deepEqual(problems.problems, []);
});
