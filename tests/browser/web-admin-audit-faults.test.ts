import test from 'ava';
import { ADMIN, pageOf, refusal, setUp, template } from './web-admin-audit-support.ts';

// Faults of the web client's admin pages found by the web-admin audit, fixed: each test failed before its fix.
setUp();

test.serial('a page left while it loaded does not replace the page opened after it', async (t) => {
  await pageOf(ADMIN, async (page) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/workflow-templates/categories', async (route) => {
      await held;
      await route.fallback();
    });
    await page.goto('/admin/fleet');
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    const asked = page.waitForRequest('**/api/v1/workflow-templates/categories');
    await page.getByRole('link', { name: 'Templates' }).click();
    await asked;
    // The administrator changes their mind while the templates page loads.
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.locator('main h1', { hasText: 'Jobs' }).waitFor();
    const listed = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v1/workflow-templates');
    release();
    await listed;
    t.is(new URL(page.url()).pathname, '/admin/jobs');
    t.deepEqual(await page.locator('main h1').allTextContents(), ['Jobs'], 'the Jobs page, at its address');
  });
});

test.serial('a page whose data is refused says why and offers to try again (it was blank)', async (t) => {
  await pageOf(ADMIN, async (page) => {
    await page.route('**/api/v1/workflow-templates/categories', (route) => route.fulfill(refusal(503, 'The template store is down (test).')));
    const answered = page.waitForResponse('**/api/v1/workflow-templates/categories');
    await page.goto('/admin/templates');
    await answered;
    await page.getByRole('alert').filter({ hasText: 'This page could not be loaded: The template store is down (test).' }).waitFor();
    t.is(await page.locator('main h1').textContent(), 'Templates');
    // Trying again once the store is back shows the page.
    await page.unroute('**/api/v1/workflow-templates/categories');
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.getByRole('table', { name: 'Workflow templates' }).waitFor();
    t.is(await page.getByRole('alert').count(), 0);
  });
});

test.serial('a saved map is announced as a success after an earlier refusal (it kept the error style)', async (t) => {
  const id = await template('Styled square');
  await pageOf(ADMIN, async (page) => {
    await page.route(`**/api/v1/templates/${id}/publish`, (route) => route.fulfill(refusal(409, 'Not yet (test).')));
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Publish Styled square' }).click();
    await page.getByRole('status').filter({ hasText: 'Not yet (test).' }).waitFor();
    await page.getByRole('button', { name: 'Edit parameters of Styled square' }).click();
    await page.getByRole('button', { name: 'Save parameter map' }).click();
    await page.getByRole('status').filter({ hasText: /^Saved Styled square: version \d+, 2 parameters\.$/ }).waitFor();
    t.is(await page.locator('main > p[role="status"]').getAttribute('class'), 'status', 'a success is not shown as an error');
  });
});

test.serial('two parameters with the same key are refused before anything is sent (one was silently dropped)', async (t) => {
  await template('Doubled square');
  await pageOf(ADMIN, async (page) => {
    const sent: Record<string, unknown>[] = [];
    await page.route(/\/parameter-map$/, (route) => {
      sent.push(route.request().postDataJSON() as Record<string, unknown>);
      return route.fallback();
    });
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Edit parameters of Doubled square' }).click();
    await page.getByRole('button', { name: 'Add custom parameter' }).click();
    const custom = page.locator('.map-rows > li').last();
    await custom.getByLabel('Key').fill('width');
    await custom.getByLabel('Type').selectOption('integer');
    await custom.getByLabel('Node for custom parameter').selectOption('1');
    await custom.getByLabel('Input for custom parameter').selectOption('height');
    await custom.getByLabel('Min of custom parameter').fill('16');
    await custom.getByLabel('Max of custom parameter').fill('256');
    t.is(await page.locator('.map-rows > li').count(), 3, 'three rows on screen');
    await page.getByRole('button', { name: 'Save parameter map' }).click();
    // Before, the page sent two of the three rows (the new "width" replaced the old one) and said "Saved …, 2 parameters".
    await page.getByText('Two parameters have the key "width": give each its own.').waitFor();
    t.deepEqual(sent, [], 'nothing is sent');
    // Another key for the new row: all three rows are saved.
    await custom.getByLabel('Key').fill('tall');
    await page.getByRole('button', { name: 'Save parameter map' }).click();
    await page.getByRole('status').filter({ hasText: /^Saved Doubled square: version \d+, 3 parameters\.$/ }).waitFor();
    t.deepEqual(Object.keys(sent[0] ?? {}).sort(), ['prompt', 'tall', 'width']);
  });
});

test.serial('a change whose list cannot be read again says so beside what was done (the refusal was unhandled)', async (t) => {
  await template('Relisted square');
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Publish Relisted square' }).waitFor();
    // From now on the list is refused: the publish itself goes through.
    await page.route('**/api/v1/workflow-templates', (route) => (route.request().method() === 'GET' ? route.fulfill(refusal(503, 'The list is down (test).')) : route.fallback()));
    await page.getByRole('button', { name: 'Publish Relisted square' }).click();
    const status = page.getByRole('status').filter({ hasText: 'The list could not be read again: The list is down (test).' });
    await status.waitFor();
    t.regex((await status.textContent()) ?? '', /^Published Relisted square: users can now run it\. The list could not be read again: The list is down \(test\)\.$/);
    t.is(await status.getAttribute('class'), 'status error');
  });
});
