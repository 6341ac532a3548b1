import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { fakeOutput, launchChromium, sleep, until } from './browser-support.ts';

// The guards the fixes of the web user audit added (tests/mutation/mutations/web-user-fixes.mutations.ts), beside the
// audit's own tests of the faults: view URLs asked for again, an administrator's adjustment sent once under one key,
// the image field's upload refusals, and an error body that is not the service's. The application is real (SQLite);
// the lists, uploads and some answers are the test's own (page.route). Every expectation is written out literally.
const ADMIN = `admin-${randomUUID()}@fixes.example`;
const USER = `user-${randomUUID()}@fixes.example`;
const PASSWORD = 'correct horse battery';

let app: TestApp;
let browser: Browser;
let userId: string;

test.before(async () => {
  app = await startTestApp('sqlite', { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false' });
  browser = await launchChromium();
  await app.client().signUp({ email: ADMIN, password: PASSWORD, displayName: 'Fixes Admin' });
  userId = (await app.client().signUp({ email: USER, password: PASSWORD, displayName: 'Fixes User' })).id;
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});



/** A signed-in page of `email`, whose uncaught errors (an unhandled rejection too) are collected. */
async function pageOf(email: string, run: (page: Page, errors: string[], context: BrowserContext) => Promise<void>): Promise<void> {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 900 } });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const login = await page.request.post('/api/v1/auth/login', { data: { email, password: PASSWORD } });
    if (login.status() !== 200) throw new Error(`login: ${login.status()} ${await login.text()}`);
    await context.addInitScript(() => localStorage.setItem('signed-in', '1'));
    await page.routeWebSocket(/\/api\/v1\/ws$/, () => undefined);
    await run(page, errors, context);
  } finally {
    await context.close();
  }
}

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const file = (name: string) => ({ name, mimeType: 'image/png', buffer: PNG });

test.serial('history: a view URL that stopped working is asked for again once per picture and kept for the viewer, which asks again only when that one fails too', async (t) => {
  await pageOf(USER, async (page) => {
    await page.route(/\/api\/v1\/my-outputs\?/, (route) =>
      route.fulfill({
        json: { items: [fakeOutput('first', { viewUrl: '/expired/first.png' }), fakeOutput('second', { viewUrl: '/expired/second.png' })], page: 1, limit: 12, total: 2, totalPages: 1 },
      }),
    );
    // first: the fresh link the server gives stops working too; second: its fresh link works.
    const fresh: Record<string, string[]> = { first: ['/expired/again.png', '/fresh/first.png'], second: ['/fresh/second.png'] };
    const renewals: Record<string, number> = { first: 0, second: 0 };
    await page.route(/\/api\/v1\/my-outputs\/\w+\/view-url$/, (route) => {
      const id = route.request().url().split('/').at(-2)!;
      renewals[id] = (renewals[id] ?? 0) + 1;
      return route.fulfill({ json: { viewUrl: fresh[id]!.shift() ?? `/fresh/${id}-later.png` } });
    });
    await page.route('**/expired/**', (route) => route.fulfill({ status: 403, contentType: 'text/plain', body: 'Request has expired' }));
    await page.route('**/fresh/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PNG }));
    await page.goto('/history');
    const picture = (id: string) => page.locator(`li.tile[data-output="${id}"] img`);
    await until(async () => (await picture('first').getAttribute('src')) === '/expired/again.png', 'the first tile to take its fresh link');
    await until(async () => (await picture('second').getAttribute('src')) === '/fresh/second.png', 'the second tile to take its fresh link');
    await page.waitForFunction((img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0, await picture('second').elementHandle());
    await sleep(500);
    t.deepEqual(renewals, { first: 1, second: 1 }, 'each tile asks once, although the first one got a link that fails too');

    // The viewer opens with the links the tiles got: the second shows at once; the first asks once more.
    await page.locator('li.tile[data-output="second"]').getByRole('button', { name: /^View/ }).click();
    const full = page.getByRole('dialog').locator('img');
    await page.waitForFunction((img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0, await full.elementHandle());
    t.is(await full.getAttribute('src'), '/fresh/second.png');
    await page.keyboard.press('ArrowLeft');
    await until(async () => (await full.getAttribute('src')) === '/fresh/first.png', 'the viewer to take a fresh link for the first');
    await page.waitForFunction((img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0, await full.elementHandle());
    t.deepEqual(renewals, { first: 2, second: 1 }, 'the viewer asked again for the first only');
  });
});

test.serial('history: a page number past the end shows the last page and writes it into the address', async (t) => {
  await pageOf(USER, async (page) => {
    await page.route(/\/api\/v1\/my-outputs\?/, (route) => {
      const asked = Number(new URL(route.request().url()).searchParams.get('page'));
      return route.fulfill({ json: { items: asked <= 2 ? [fakeOutput(`on-${asked}`)] : [], page: asked, limit: 12, total: 2, totalPages: 2 } });
    });
    await page.goto('/history?page=7');
    await page.locator('li.tile[data-output="on-2"]').waitFor();
    t.is(new URL(page.url()).search, '?page=2');
  });
});

test.serial('Users: an adjustment whose answer was lost is sent again under the same key; a refusal, a success or another amount takes a new one; Apply comes back', async (t) => {
  await pageOf(ADMIN, async (page) => {
    const sent: { key: string; amount: number }[] = [];
    // applied-lost: the server made the adjustment, its answer never came back (a dropped connection).
    const answers: ('applied-lost' | 'lost' | 'refused' | 'real')[] = ['applied-lost', 'real', 'refused', 'real', 'lost', 'real'];
    await page.route(/\/api\/v1\/admin\/coin\//, async (route) => {
      const request = route.request();
      sent.push({ key: request.headers()['idempotency-key']!, amount: (request.postDataJSON() as { amount: number }).amount });
      const answer = answers.shift();
      if (answer === 'applied-lost') await route.fetch();
      if (answer === 'applied-lost' || answer === 'lost') return route.abort('connectionreset');
      if (answer === 'refused') return route.fulfill({ status: 402, json: { statusCode: 402, error: 'Payment Required', message: 'Not enough coins (test).' } });
      return route.continue();
    });
    await page.goto(`/admin/users`);
    const amount = page.getByLabel(`Coins for ${USER}`);
    const apply = page.getByRole('row', { name: new RegExp(USER) }).getByRole('button', { name: 'Apply' });
    const status = page.locator('main > p[role="status"]');
    await amount.fill('5');
    await apply.click();
    await status.filter({ hasText: 'The change failed.' }).waitFor();
    t.true(await apply.isEnabled(), 'Apply comes back after a failure');
    await apply.click();
    await status.filter({ hasText: 'now has' }).waitFor();
    t.is(await status.textContent(), `${USER} now has 105 coins.`);
    t.is(sent[1]!.key, sent[0]!.key, 'the send that got no answer is sent again under its key (and answered once)');
    // The list is read again after a change: its row is drawn anew (wait for it before typing into it).
    const coins = (value: string) => page.getByRole('row', { name: new RegExp(USER) }).getByRole('cell', { name: value, exact: true }).waitFor();
    await coins('105');

    await page.getByLabel(`Coins for ${USER}`).fill('5');
    await page.getByRole('row', { name: new RegExp(USER) }).getByRole('button', { name: 'Apply' }).click();
    await status.filter({ hasText: 'Not enough coins (test).' }).waitFor();
    await page.getByRole('row', { name: new RegExp(USER) }).getByRole('button', { name: 'Apply' }).click();
    await status.filter({ hasText: 'now has 110' }).waitFor();
    t.not(sent[2]!.key, sent[1]!.key, 'after a success, a new adjustment');
    t.not(sent[3]!.key, sent[2]!.key, 'after a refusal, a new adjustment');
    await coins('110');

    await page.getByLabel(`Coins for ${USER}`).fill('2');
    await page.getByRole('row', { name: new RegExp(USER) }).getByRole('button', { name: 'Apply' }).click();
    await status.filter({ hasText: 'The change failed.' }).waitFor();
    await page.getByLabel(`Coins for ${USER}`).fill('3');
    await page.getByRole('row', { name: new RegExp(USER) }).getByRole('button', { name: 'Apply' }).click();
    await status.filter({ hasText: 'now has 113' }).waitFor();
    t.deepEqual(sent.map((one) => one.amount), [5, 5, 5, 5, 2, 3]);
    t.not(sent[5]!.key, sent[4]!.key, 'another amount is another adjustment');
    t.is(new Set(sent.map((one) => one.key)).size, 5);
    const balance = (await (await page.request.get(`/api/v1/admin/users?q=${encodeURIComponent(USER)}`)).json()) as { items: { id: string; coinBalance: number }[] };
    t.deepEqual(balance.items.map((user) => [user.id, user.coinBalance]), [[userId, 113]], 'each adjustment counted once');
  });
});

test.serial('Users: an adjustment made, then a list that could not be read again: both are said, and the next press is a new adjustment', async (t) => {
  await pageOf(ADMIN, async (page) => {
    const keys: string[] = [];
    await page.route(/\/api\/v1\/admin\/coin\//, (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      return route.continue();
    });
    let reads = 0;
    await page.route(/\/api\/v1\/admin\/users\?/, (route) => {
      reads += 1;
      return reads === 2 ? route.fulfill({ status: 503, json: { statusCode: 503, error: 'Service Unavailable', message: 'Busy (test)' } }) : route.continue();
    });
    await page.goto('/admin/users');
    const row = page.getByRole('row', { name: new RegExp(USER) });
    const before = Number(await row.getByRole('cell').nth(3).textContent());
    await page.getByLabel(`Coins for ${USER}`).fill('1');
    await row.getByRole('button', { name: 'Apply' }).click();
    const status = page.locator('main > p[role="status"]');
    await status.filter({ hasText: 'could not be read again' }).waitFor();
    t.is(await status.textContent(), `${USER} now has ${before + 1} coins. The list could not be read again: Busy (test)`);
    await row.getByRole('button', { name: 'Apply' }).click();
    await status.filter({ hasText: `now has ${before + 2} coins.` }).waitFor();
    t.is(keys.length, 2);
    t.not(keys[1], keys[0], 'the same form, a new adjustment');
  });
});

test.serial('the image field: a refused upload is said at once, a stale answer changes nothing, nothing is left unhandled; a remixed image cleared makes the field required again', async (t) => {
  await pageOf(USER, async (page, errors) => {
    const IMAGE = { id: 'tpl-image', name: 'Restyle', description: null, category: 'image-to-image', cost: 1, outputType: 'image', parameters: [{ key: 'image', label: 'Input image', type: 'image', required: true }] };
    await page.route('**/api/v1/templates', (route) => route.fulfill({ json: [IMAGE] }));
    await page.route('**/api/v1/generate?limit=50', (route) => route.fulfill({ json: { items: [], page: 1, limit: 50, total: 0, totalPages: 1 } }));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let uploads = 0;
    await page.route('**/api/v1/uploads', async (route) => {
      uploads += 1;
      if (uploads === 1) return route.fulfill({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'The file is not an image (test).' } });
      if (uploads === 2) {
        // Slow, and refused: by then another file was chosen.
        await held;
        return route.fulfill({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'Too late to matter (test).' } });
      }
      return route.fulfill({ status: 201, json: { id: 'upload-third', mimeType: 'image/png', width: 1, height: 1, sizeBytes: PNG.length, createdAt: new Date().toISOString() } });
    });
    const alert = page.locator('.thumb [role="alert"]');
    await page.goto('/');
    const input = page.getByLabel('Input image (required)');
    await input.setInputFiles(file('not-an-image.png'));
    await alert.waitFor();
    t.is(await alert.textContent(), 'The file is not an image (test).', 'said when the file is chosen');

    await input.setInputFiles(file('slow.png'));
    await until(() => uploads === 2, 'the slow upload');
    t.is(await alert.count(), 0, 'the refusal goes with its file');
    await input.setInputFiles(file('third.png'));
    await page.getByRole('img', { name: 'Chosen Input image' }).waitFor();
    release();
    await sleep(500);
    t.is(await alert.count(), 0, "the slow upload's refusal is not shown");
    t.is(await page.getByRole('img', { name: 'Chosen Input image' }).count(), 1, 'the preview of the file chosen last stays');
    t.deepEqual(errors, [], 'no unhandled rejection');

    // A remix of that template: its image is reused, the field is not required until it is cleared.
    await page.goto(`/?${new URLSearchParams({ template: 'tpl-image', parameters: JSON.stringify({ image: 'output-7' }) })}`);
    const remixed = page.getByLabel('Input image (required)');
    await page.getByText('Using the input image of the output you remix.').waitFor();
    t.false(await remixed.evaluate((element: HTMLInputElement) => element.validity.valueMissing));
    await remixed.setInputFiles(file('third.png'));
    await page.getByRole('img', { name: 'Chosen Input image' }).waitFor();
    await remixed.setInputFiles([]);
    t.true(await remixed.evaluate((element: HTMLInputElement) => element.validity.valueMissing), 'no image any more: the field is required again');
  });
});

test.serial('the form: a checkbox or colour without a default is sent once the user changed it, also back to its first look', async (t) => {
  await pageOf(USER, async (page) => {
    const UNSET = {
      id: 'tpl-unset',
      name: 'Unset',
      description: null,
      category: 'text-to-image',
      cost: 1,
      outputType: 'image',
      parameters: [
        { key: 'upscale', label: 'Upscale', type: 'boolean' },
        { key: 'tiled', label: 'Tiled', type: 'boolean' },
        { key: 'background_color', label: 'Background', type: 'integer', min: 0, max: 16777215 },
      ],
    };
    await page.route('**/api/v1/templates', (route) => route.fulfill({ json: [UNSET] }));
    await page.route('**/api/v1/generate?limit=50', (route) => route.fulfill({ json: { items: [], page: 1, limit: 50, total: 0, totalPages: 1 } }));
    const sent: Record<string, unknown>[] = [];
    await page.route('**/api/v1/generate', (route) => {
      const body = route.request().postDataJSON() as { parameters: Record<string, unknown>; requestId: string };
      sent.push(body.parameters);
      const now = new Date().toISOString();
      return route.fulfill({
        status: 202,
        json: { id: body.requestId, status: 'queued', templateId: 'tpl-unset', progress: { value: 0, max: 1 }, statusText: null, outputs: [], usedParameters: body.parameters, error: null, refundedCoins: 0, createdAt: now, updatedAt: now },
      });
    });
    await page.goto('/');
    await page.getByLabel('Upscale').check();
    // Ticked and unticked again: the user chose false.
    await page.getByLabel('Tiled').check();
    await page.getByLabel('Tiled').uncheck();
    await page.getByLabel('Background').fill('#ff8000');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await until(() => sent.length === 1, 'the submit');
    t.deepEqual(sent[0], { upscale: true, tiled: false, background_color: 0xff8000 });
  });
});

test.serial('requests: an error whose JSON body is not the service\'s is told by its status text', async (t) => {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl });
  try {
    const page = await context.newPage();
    await page.route('**/api/v1/auth/login', (route) => route.fulfill({ status: 503, json: { upstream: 'down' } }));
    await page.goto('/login');
    await page.getByLabel('Email').fill(USER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const status = page.locator('form p[role="status"]');
    await status.filter({ hasText: /\w/ }).waitFor();
    t.is(await status.textContent(), 'Service Unavailable');
  } finally {
    await context.close();
  }
});

