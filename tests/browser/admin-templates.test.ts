import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { launchChromium, PageProblems, screenshot, shownText } from './browser-support.ts';

// Issue 24 as a new administrator meets it in Chromium: drafts, publishing, editing, step 2, on a phone too.
const ADMIN = 'admin@templates.example';
const PASSWORD = 'correct horse battery';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const workflow = (color = 0x3366cc) => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'square' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'a blue square' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});

let app: TestApp;
let browser: Browser;
const problems = new PageProblems();

test.before(async () => {
  app = await startTestApp('sqlite', { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false', SIGNUP_BONUS_COINS: '100' });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

/** No sideways scrolling of the page itself (tables scroll inside themselves). */
const fitsPhone = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** axe-core's WCAG checks in the page; its source goes in through the debugger protocol, which the CSP does not govern. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

test.serial('create a draft (hidden from users), map it with min/max, publish, edit its workflow as a new version, deactivate, delete; a11y and phone width', async (t) => {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 900 } });
  await problems.watch(context);
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto('/signup');
  await page.getByLabel('Display name').fill('Template Admin');
  await page.getByLabel('Email').fill(ADMIN);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();

  const user = app.client();
  const account = await user.signUp();
  // The same user in the web app: what the Generate page offers.
  const userContext = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 900 } });
  await problems.watch(userContext);
  t.teardown(() => userContext.close());
  const userPage = await userContext.newPage();
  await userPage.goto('/login');
  await userPage.getByLabel('Email').fill(account.email);
  await userPage.getByLabel('Password').fill(account.password);
  await userPage.getByRole('button', { name: 'Sign in' }).click();
  await userPage.getByRole('heading', { name: 'Generate' }).waitFor();
  const offeredInApp = async (): Promise<string[]> => {
    await userPage.reload();
    await userPage.getByRole('heading', { name: 'Generate' }).waitFor();
    await userPage.getByLabel('Template').or(userPage.getByText('No templates are available yet.')).waitFor();
    return (await userPage.getByLabel('Template').count()) === 0 ? [] : userPage.getByLabel('Template').locator('option').allTextContents();
  };
  const catalogue = async () => ((await user.get('/templates')).body as { id: string; name: string }[]).map((x) => x.name);
  const adminApi = async (path: string) => (await page.request.get(`/api/v1${path}`)).json();

  // Step 1, twice: the second form must still hold the default cost (it came back blank after the first).
  const create = async (name: string, cost: string) => {
    const costField = page.getByLabel('Cost in coins');
    t.is(await costField.inputValue(), '1', `cost before creating ${name}`);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Category').selectOption('text-to-image');
    await costField.fill(cost);
    await page.getByLabel('Workflow (ComfyUI API format JSON)').fill(JSON.stringify(workflow()));
    await page.getByRole('button', { name: 'Create and map parameters' }).click();
    await page.getByRole('heading', { name: `Step 2: parameters of ${name}` }).waitFor();
  };
  await create('Blue square', '3');
  await page.getByRole('row', { name: /Blue square/ }).getByRole('cell', { name: 'draft, active' }).waitFor();
  t.false((await catalogue()).includes('Blue square'), 'a draft is not in the user catalogue');

  // Step 2: the prompt row is there (the workflow has a text input), a custom parameter gets min, max and default.
  await page.getByLabel('Node for parameter prompt').selectOption('3');
  await page.getByLabel('Input for parameter prompt').selectOption('value');
  await page.getByRole('button', { name: 'Add custom parameter' }).click();
  await page.getByLabel('Key').fill('width');
  await page.getByLabel('Type').selectOption('integer');
  await page.getByLabel('Node for custom parameter').selectOption('1');
  await page.getByLabel('Input for custom parameter').selectOption('width');
  await page.getByLabel('Min of custom parameter').fill('64');
  await page.getByLabel('Max of custom parameter').fill('32');
  await page.getByLabel('Default', { exact: true }).fill('48');
  t.is(await page.getByLabel('Min of custom parameter').evaluate((el) => (el as HTMLInputElement).validationMessage), 'Min must not be above max.');
  await page.getByLabel('Min of custom parameter').fill('16');
  await page.getByLabel('Max of custom parameter').fill('256');
  await page.getByLabel('Default', { exact: true }).fill('300');
  t.is(await page.getByLabel('Default', { exact: true }).evaluate((el) => (el as HTMLInputElement).validationMessage), 'The default must lie between min and max.');
  t.deepEqual(await axeViolations(page), [], 'axe on step 2');
  await screenshot(page, 'admin-templates-01-step2');
  await page.getByLabel('Default', { exact: true }).fill('64');
  await page.getByRole('button', { name: 'Save parameter map' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved Blue square: version 2, 2 parameters.' }).waitFor();
  const [stored] = ((await adminApi('/workflow-templates')) as { id: string; name: string; cost: number; status: string; parameter_map: Record<string, Record<string, unknown>> }[]).filter((x) => x.name === 'Blue square');
  t.like(stored!.parameter_map['width'], { type: 'integer', node_id: '1', input_name: 'width', min: 16, max: 256, default: 64 });
  t.like(stored!.parameter_map['prompt'], { node_id: '3', input_name: 'value' });
  t.like(stored, { cost: 3, status: 'draft' });
  t.false((await catalogue()).includes('Blue square'));
  t.false((await offeredInApp()).some((option) => option.includes('Blue square')), 'the Generate page does not offer a draft');

  // Publish: now users see and run it.
  await page.getByRole('button', { name: 'Publish Blue square' }).click();
  await page.getByRole('status').filter({ hasText: 'Published Blue square: users can now run it.' }).waitFor();
  await page.getByRole('row', { name: /Blue square/ }).getByRole('cell', { name: 'published, active' }).waitFor();
  t.true((await catalogue()).includes('Blue square'));
  t.true((await offeredInApp()).some((option) => option.includes('Blue square')), 'the Generate page offers it once published');
  const job = await user.post('/generate', { templateId: stored!.id, parameters: { prompt: 'a fox', width: 32 } });
  t.is(job.status, 202, JSON.stringify(job.body));
  t.is(job.body.templateVersion, 2);

  // A new workflow is a new version; the job keeps the version it ran.
  await page.getByRole('button', { name: 'Edit workflow of Blue square' }).click();
  const workflowForm = page.locator('form', { has: page.getByRole('heading', { name: /Workflow of Blue square/ }) });
  await workflowForm.getByLabel('Workflow (ComfyUI API format JSON)').fill(JSON.stringify(workflow(0xff0000)));
  await workflowForm.getByRole('button', { name: 'Save workflow' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved the workflow of Blue square: version 3.' }).waitFor();
  t.is((await user.get(`/generate/${job.body.id}`)).body.templateVersion, 2);

  // Each row's buttons show the action alone; the template's name, already in the row, is in the name a screen reader hears.
  const row = page.getByRole('row', { name: /Blue square/ });
  t.deepEqual(await Promise.all((await row.getByRole('button').all()).map((button) => shownText(button))), [
    'Edit parameters',
    'Edit workflow',
    'Test run',
    'Back to draft',
    'Deactivate',
    'Delete',
  ]);

  // Deactivate, then delete (soft: the job's history stays).
  await page.getByRole('button', { name: 'Deactivate Blue square' }).click();
  await page.getByRole('row', { name: /Blue square/ }).getByRole('cell', { name: 'published, inactive' }).waitFor();
  t.false((await catalogue()).includes('Blue square'));
  await page.getByRole('button', { name: 'Delete Blue square' }).click();
  await page.getByRole('status').filter({ hasText: 'Deleted Blue square.' }).waitFor();
  t.is(await page.getByRole('row', { name: /Blue square/ }).count(), 0);
  t.is((await page.request.get(`/api/v1/workflow-templates/${stored!.id}`)).status(), 404);
  t.is((await user.get(`/generate/${job.body.id}`)).status, 200);
  const actions = ((await adminApi('/admin/audit?limit=50')) as { items: { action: string; details: { templateId?: string } }[] }).items
    .filter((e) => e.details.templateId === stored!.id)
    .map((e) => e.action)
    .reverse();
  t.deepEqual(actions, ['template.create', 'template.parameter_map', 'template.publish', 'template.update', 'template.deactivate', 'template.delete']);

  // A second template: the cost field is back at its default, and step 2 fits a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await create('Phone square', '2');
  t.true(await fitsPhone(page), `step 2 overflows at 390 px: ${await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => !e.closest('table') && e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 6).map((e) => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().width)}`).join(', '))}`);
  t.deepEqual(await axeViolations(page), [], 'axe on the templates page at phone width');
  await screenshot(page, 'admin-templates-02-phone');
  t.deepEqual(problems.problems, []);
});
