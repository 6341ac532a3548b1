import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';
import { launchChromium, PageProblems, screenshot } from './browser-support.ts';

// The admin console in the web client, against the real application (SQLite, builtin engine, worker in process).
const ADMIN = 'admin@console.example';
const PASSWORD = 'correct horse battery';

// Some seconds of blur, checked for interruption between frames: long enough to be seen running and cancelled.
const slowWorkflow = {
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 16, color: 0x808080 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'slow' } },
};

let app: TestApp;
let browser: Browser;
const problems = new PageProblems();

test.before(async () => {
  app = await startTestApp('sqlite', { ADMIN_EMAILS: ADMIN, ALLOW_RAW_WORKFLOWS: 'user,admin', RAW_WORKFLOW_COST: '5', SIGNUP_BONUS_COINS: '100' });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const database = () => resolve(app.app.container, TOKENS.Database) as unknown as SequelizeDatabase;
const messageOf = async (jobId: string) =>
  (await database().sequelize.query('SELECT message_id AS id, status FROM queue_messages WHERE body LIKE :pattern', { replacements: { pattern: `%"jobId":"${jobId}"%` }, plain: true })) as {
    id: string;
    status: string;
  } | null;
const balance = async (client: TestClient) => (await client.get('/auth/profile')).body.coinBalance as number;

/** No page of the console scrolls sideways at phone width (tables scroll inside themselves). */
async function fitsPhone(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

test.serial("an admin sees another user's running job in the console and cancels it (refunded), then redrives a dead letter; no page overflows at 390 px", async (t) => {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 800 } });
  await problems.watch(context);
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto('/signup');
  await page.getByLabel('Display name').fill('The Admin');
  await page.getByLabel('Email').fill(ADMIN);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  await page.getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();

  const user = app.client();
  const me = await user.signUp();
  const submitted = await user.post('/generate', { workflow: slowWorkflow });
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  const jobId = submitted.body.id as string;
  t.is(await balance(user), 95);
  await until('the job running', async () => (await user.get(`/generate/${jobId}`)).body.status === 'running');

  await page.getByRole('button', { name: 'Refresh' }).click();
  const row = page.getByRole('row', { name: new RegExp(me.email) });
  await row.getByRole('cell', { name: 'running', exact: true }).waitFor();
  await screenshot(page, 'admin-01-jobs');
  await page.getByRole('button', { name: `Cancel job ${jobId} of ${me.email}` }).click();
  await page.getByRole('status').filter({ hasText: `Job ${jobId} of ${me.email} cancelled; 5 coins refunded.` }).waitFor();
  t.is((await user.get(`/generate/${jobId}`)).body.status, 'cancelled');
  t.is(await balance(user), 100, 'the user got the 5 coins back');
  await page.getByRole('cell', { name: 'No jobs.' }).waitFor();

  // Its message, once the cancelled run let go of it, made a dead letter (as if a worker had died at the wrong time).
  await until('the message settled', async () => (await messageOf(jobId))?.status === 'done');
  const { id: messageId } = (await messageOf(jobId))!;
  await database().sequelize.query("UPDATE queue_messages SET status = 'dead', last_error = 'worker lost' WHERE message_id = :messageId", { replacements: { messageId } });

  await page.getByRole('link', { name: 'Queue' }).click();
  await page.getByRole('heading', { name: 'Dead letters' }).waitFor();
  const dead = page.getByRole('row', { name: new RegExp(messageId) });
  await dead.getByRole('cell', { name: 'worker lost' }).waitFor();
  t.is(await dead.getByRole('cell', { name: jobId }).count(), 1);
  await screenshot(page, 'admin-02-queue');
  await page.getByRole('button', { name: `Redrive message ${messageId}` }).click();
  await page.getByRole('status').filter({ hasText: `Message ${messageId} is back on the queue.` }).waitFor();
  await page.getByRole('cell', { name: 'No dead letters.' }).waitFor();
  // The worker takes it again and runs nothing: the job ended.
  await until('the redriven message settled', async () => (await messageOf(jobId))?.status === 'done');
  t.is((await user.get(`/generate/${jobId}`)).body.status, 'cancelled');
  t.is(await balance(user), 100, 'no second charge or refund');
  const audit = (await (async () => {
    const res = await page.request.get('/api/v1/admin/audit?limit=10');
    return (await res.json()) as { items: { action: string; details: { jobId?: string; messageId?: string } }[] };
  })()).items;
  t.deepEqual(audit.filter((e) => e.details.jobId === jobId).map((e) => e.action).sort(), ['job.cancel', 'queue.redrive']);

  await page.setViewportSize({ width: 390, height: 844 });
  for (const [link, heading] of [['Jobs', 'Jobs'], ['Queue', 'Queue'], ['Fleet', 'Fleet'], ['Template health', 'Template health']] as const) {
    await page.goto(`/${link === 'Template health' ? 'admin/template-health' : `admin/${link.toLowerCase()}`}`);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    await page.getByRole('table').first().waitFor();
    t.true(await fitsPhone(page), `${link} overflows at 390 px`);
  }
  await page.goto('/admin/fleet');
  await page.getByRole('rowheader', { name: 'builtin' }).waitFor();
  await screenshot(page, 'admin-03-fleet-phone');
  t.deepEqual(problems.problems, []);
});
