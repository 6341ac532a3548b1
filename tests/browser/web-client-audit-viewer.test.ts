import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { fakeOutput, launchChromium } from './browser-support.ts';

// The output viewer's guards (web-client.mutations.ts): the History page on outputs of the test's own (page.route),
// opened full size in the dialog: Left from the first wraps to the last, Tab stays inside, Escape gives focus back.
const PASSWORD = 'correct horse battery';

let app: TestApp;
let browser: Browser;

test.before(async () => {
  app = await startTestApp('sqlite');
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const output = (id: string) => fakeOutput(id, { usedParameters: { prompt: `prompt of ${id}` } });

test('the viewer: arrows wrap around, Tab stays in the dialog, Escape gives focus back; one output has nowhere to move', async (t) => {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 800 } });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const email = `viewer-${randomUUID()}@example.com`;
    t.is((await page.request.post('/api/v1/auth/register', { data: { email, password: PASSWORD, displayName: 'Viewer' } })).status(), 201);
    t.is((await page.request.post('/api/v1/auth/login', { data: { email, password: PASSWORD } })).status(), 200);
    await context.addInitScript(() => localStorage.setItem('signed-in', '1'));
    let items = [output('alpha'), output('beta'), output('gamma')];
    await page.route(/\/api\/v1\/my-outputs\?/, (route) => route.fulfill({ json: { items, page: 1, limit: 12, total: items.length, totalPages: 1 } }));
    await page.goto('/history');
    const view = page.locator('li.tile[data-output="alpha"]').getByRole('button', { name: /^View/ });
    await view.click();
    const dialog = page.getByRole('dialog');
    const counter = dialog.getByText(/^Output \d+ of \d+$/);
    t.is(await counter.textContent(), 'Output 1 of 3');
    await page.keyboard.press('ArrowLeft');
    t.is(await counter.textContent(), 'Output 3 of 3', 'Left from the first shows the last');
    t.regex((await dialog.getByRole('heading').textContent())!, /^Output: prompt of gamma, made /);
    await page.keyboard.press('ArrowRight');
    t.is(await counter.textContent(), 'Output 1 of 3', 'Right from the last shows the first');
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      t.true(await page.evaluate(() => document.activeElement?.closest('dialog') !== null), `Tab ${i + 1} left the dialog`);
    }
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Shift+Tab');
      t.true(await page.evaluate(() => document.activeElement?.closest('dialog') !== null), `Shift+Tab ${i + 1} left the dialog`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    t.true(await view.evaluate((button) => document.activeElement === button), 'focus is back on the View button');

    items = [output('single')];
    await page.reload();
    await page.locator('li.tile[data-output="single"]').getByRole('button', { name: /^View/ }).click();
    t.is(await counter.textContent(), 'Output 1 of 1');
    t.true(await dialog.getByRole('button', { name: 'Previous output' }).isDisabled());
    t.true(await dialog.getByRole('button', { name: 'Next output' }).isDisabled());
  } finally {
    await context.close();
  }
});
