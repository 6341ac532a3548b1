import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Browser, BrowserContext, Page, Route, WebSocketRoute } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { fakeOutput, launchChromium, until } from './browser-support.ts';

// The Generate page's guards and its parameter form (web/src/pages/generate.ts, parameter-form.ts):
// tests/mutation/mutations/web-user-form.mutations.ts. The application is real (SQLite: sign-in, the profile); the
// catalogue, the answers to POST /generate and /uploads, the jobs list and the socket are the test's own, so that each
// state of the form is shown on demand. Every expectation is written out literally.
const PASSWORD = 'correct horse battery';

let app: TestApp;
let browser: Browser;

test.before(async () => {
  app = await startTestApp('sqlite', { SEED_TEMPLATES: 'false' });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const PLAIN = {
  id: 'tpl-plain',
  name: 'Plain',
  description: null,
  category: 'text-to-image',
  cost: 1,
  outputType: 'image',
  parameters: [{ key: 'prompt', label: 'Prompt', type: 'string' }],
};
const FORM = {
  id: 'tpl-form',
  name: 'Form check',
  description: 'Checks every kind of field.',
  category: 'text-to-image',
  cost: 3,
  outputType: 'image',
  parameters: [
    { key: 'prompt', label: 'Prompt', type: 'string', required: true },
    { key: 'title', label: 'Title', type: 'string', default: 'untitled' },
    { key: 'steps', label: 'Steps', type: 'integer', min: 1, max: 50, default: 20, description: 'Sampling steps.' },
    { key: 'cfg', label: 'CFG', type: 'number', max: 10 },
    { key: 'seed', label: 'Seed', type: 'seed', min: 0, max: 4294967295, default: -1 },
    { key: 'tiled', label: 'Tiled', type: 'boolean', default: true },
    { key: 'hires', label: 'Hires', type: 'boolean', default: false },
    { key: 'color', label: 'Colour', type: 'integer', min: 0, max: 16777215, default: 255 },
    { key: 'color_steps', label: 'Colour steps', type: 'integer', min: 0, max: 8, default: 4 },
    { key: 'sampler', label: 'Sampler', type: 'enum', options: ['euler', 'ddim'], default: 'ddim' },
  ],
};
const IMAGE = {
  id: 'tpl-image',
  name: 'Restyle',
  description: null,
  category: 'image-to-image',
  cost: 2,
  outputType: 'image',
  parameters: [
    { key: 'prompt', label: 'Prompt', type: 'string' },
    { key: 'image', label: 'Input image', type: 'image' },
  ],
};
const REQUIRED_IMAGE = { ...IMAGE, id: 'tpl-required-image', name: 'Restyle strictly', parameters: [{ key: 'image', label: 'Input image', type: 'image', required: true }] };
const DEAR = { id: 'tpl-dear', name: 'Too dear', description: null, category: 'text-to-image', cost: 150, outputType: 'image', parameters: [] };

// A 1×1 PNG (the uploads are the test's own answers; the preview shows it).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const file = (name: string) => ({ name, mimeType: 'image/png', buffer: PNG });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Sent {
  body: { templateId: string; parameters: Record<string, unknown>; requestId: string };
  key: string | undefined;
}

/** A page of a user of its own, with the catalogue, the jobs list, the socket and POST /generate the test's own. */
interface Harness {
  context: BrowserContext;
  page: Page;
  email: string;
  sent: Sent[];
  /** How POST /generate answers: a job (202) by default. */
  answer: (route: Route, sent: Sent) => Promise<void> | void;
  /** When set, GET /auth/profile reports this balance (else the real one). */
  balance: number | null;
  /** When set, GET /auth/profile answers with this status. */
  profileStatus: number | null;
  socket: { connections: WebSocketRoute[]; send(event: Record<string, unknown>): void };
  templates: unknown[];
  jobs: unknown[];
}

const jobOf = (id: string, status = 'queued', templateId: string | null = FORM.id) => ({
  id,
  status,
  templateId,
  progress: { value: 0, max: 1 },
  statusText: null,
  outputs: [],
  usedParameters: { prompt: `prompt of ${id}` },
  error: null,
  refundedCoins: 0,
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

async function register(page: Page, email: string): Promise<void> {
  const registered = await page.request.post('/api/v1/auth/register', { data: { email, password: PASSWORD, displayName: 'Form User' } });
  if (registered.status() !== 201) throw new Error(`register: ${registered.status()} ${await registered.text()}`);
}

async function harness(templates: unknown[] = [PLAIN, FORM, IMAGE, REQUIRED_IMAGE, DEAR]): Promise<Harness> {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const email = `form-${randomUUID()}@example.com`;
  await register(page, email);
  const login = await page.request.post('/api/v1/auth/login', { data: { email, password: PASSWORD } });
  if (login.status() !== 200) throw new Error(`login: ${login.status()} ${await login.text()}`);
  await context.addInitScript(() => localStorage.setItem('signed-in', '1'));
  let seq = 0;
  const made: Harness = {
    context,
    page,
    email,
    sent: [],
    answer: (route, sent) => route.fulfill({ status: 202, json: jobOf(sent.body.requestId) }),
    balance: null,
    profileStatus: null,
    socket: { connections: [], send: (event) => made.socket.connections.at(-1)!.send(JSON.stringify({ seq: ++seq, ...event })) },
    templates,
    jobs: [],
  };
  await page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => void made.socket.connections.push(ws));
  await page.route('**/api/v1/templates', (route) => route.fulfill({ json: made.templates }));
  await page.route('**/api/v1/generate?limit=50', (route) => route.fulfill({ json: { items: made.jobs, page: 1, limit: 50, total: made.jobs.length, totalPages: 1 } }));
  await page.route('**/api/v1/generate', (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    const sent = { body: route.request().postDataJSON() as Sent['body'], key: route.request().headers()['idempotency-key'] };
    made.sent.push(sent);
    return made.answer(route, sent);
  });
  await page.route('**/api/v1/auth/profile', async (route) => {
    if (made.profileStatus !== null) return route.fulfill({ status: made.profileStatus, body: '' });
    try {
      const response = await route.fetch();
      const profile = (await response.json()) as { coinBalance: number };
      await route.fulfill({ response, json: made.balance === null ? profile : { ...profile, coinBalance: made.balance } });
    } catch {
      // The page was closed while its profile was read.
    }
  });
  return made;
}

const generateButton = (page: Page) => page.getByRole('button', { name: 'Generate', exact: true });
const status = (page: Page) => page.locator('form p.status');
const hintOf = (page: Page, label: string) => page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('small');


async function open(h: Harness, path = '/'): Promise<void> {
  await h.page.goto(path);
  await h.page.getByRole('heading', { name: 'Generate' }).waitFor();
  await h.page.getByTestId('cost').filter({ hasText: /\w/ }).or(h.page.getByText('No templates are available yet.')).waitFor();
}

test.serial('the fields of each type: labels, hints, limits, defaults; what is sent, with its request id as the Idempotency-Key; after it, the job, the new balance and Generate again', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    await open(h);
    t.deepEqual(await page.getByLabel('Template', { exact: true }).locator('option').allTextContents(), [
      'Plain (1 coin, image)',
      'Form check (3 coins, image)',
      'Restyle (2 coins, image)',
      'Restyle strictly (2 coins, image)',
      'Too dear (150 coins, image)',
    ]);
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-form');
    await page.getByText('Checks every kind of field.').waitFor();
    t.is(await page.getByTestId('cost').textContent(), 'Costs 3 coins; you have 100.');

    // Labels: "(required)" on the required one; a prompt is a text area, other text a line.
    t.is(await page.getByLabel('Prompt (required)', { exact: true }).evaluate((el) => el.tagName), 'TEXTAREA');
    t.is(await page.getByLabel('Title', { exact: true }).evaluate((el) => `${el.tagName} ${(el as HTMLInputElement).type}`), 'INPUT text');
    t.is(await page.getByLabel('Title', { exact: true }).inputValue(), 'untitled');
    // Hints: the description and the range; a seed starts at -1 whatever its min; a colour is picked.
    t.is(await hintOf(page, 'Steps').textContent(), 'Sampling steps. From 1 to 50.');
    t.is(await hintOf(page, 'CFG').textContent(), 'From … to 10.');
    t.is(await hintOf(page, 'Seed').textContent(), 'From -1 to 4294967295.');
    t.is(await hintOf(page, 'Colour').textContent(), 'Pick a colour.');
    t.is(await hintOf(page, 'Prompt (required)').count(), 0, 'no hint without a description or a range');
    const attributes = (label: string) =>
      page.getByLabel(label, { exact: true }).evaluate((el: HTMLInputElement) => ({ type: el.type, min: el.min, max: el.max, step: el.step, value: el.value }));
    t.deepEqual(await attributes('Steps'), { type: 'number', min: '1', max: '50', step: '1', value: '20' });
    t.deepEqual(await attributes('CFG'), { type: 'number', min: '', max: '10', step: 'any', value: '' });
    t.deepEqual(await attributes('Seed'), { type: 'number', min: '-1', max: '4294967295', step: '1', value: '-1' });
    t.deepEqual(await attributes('Colour'), { type: 'color', min: '', max: '', step: '', value: '#0000ff' });
    t.deepEqual(await attributes('Colour steps'), { type: 'number', min: '0', max: '8', step: '1', value: '4' }, 'a colour-named integer of another range is a number');
    t.true(await page.getByLabel('Tiled', { exact: true }).isChecked());
    t.false(await page.getByLabel('Hires', { exact: true }).isChecked());
    t.is(await page.getByLabel('Sampler', { exact: true }).inputValue(), 'ddim');

    // What is sent: the defaults, a decimal, a seed of -1, both booleans, the colour as its integer.
    await page.getByLabel('Prompt (required)').fill('a red fox');
    await page.getByLabel('CFG', { exact: true }).fill('2.5');
    h.balance = 97;
    await generateButton(page).click();
    await until(() => h.sent.length === 1, 'the submit');
    const [sent] = h.sent;
    t.is(sent!.body.templateId, 'tpl-form');
    t.deepEqual(sent!.body.parameters, { prompt: 'a red fox', title: 'untitled', steps: 20, cfg: 2.5, seed: -1, tiled: true, hires: false, color: 255, color_steps: 4, sampler: 'ddim' });
    t.regex(sent!.body.requestId, UUID);
    t.is(sent!.key, sent!.body.requestId, 'the request id is the Idempotency-Key');

    // After it: the job in the panel, the balance read again (header and cost line), Generate offered again.
    await page.locator(`.jobs li[data-job-id="${sent!.body.requestId}"]`).waitFor();
    await page.getByTestId('balance').filter({ hasText: '97 coins' }).waitFor();
    t.is(await page.getByTestId('cost').textContent(), 'Costs 3 coins; you have 97.');
    t.true(await generateButton(page).isEnabled());
    t.is(await status(page).textContent(), '');

    // Random draws a seed from 0 to 2^31 - 1.
    await page.getByRole('button', { name: 'Random' }).click();
    const seed = Number(await page.getByLabel('Seed', { exact: true }).inputValue());
    t.true(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31, `seed ${seed}`);
  } finally {
    await h.context.close();
  }
});

test.serial('the browser holds back what the form limits: above max, a fraction for an integer, an empty required field; the corrected form is sent once', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    await open(h);
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-form');
    const valid = (label: string) => page.getByLabel(label, { exact: true }).evaluate((el: HTMLInputElement) => el.validity.valid);
    t.false(await valid('Prompt (required)'), 'the prompt is required');
    await page.getByLabel('Prompt (required)').fill('a fox');
    await page.getByLabel('Steps', { exact: true }).fill('51');
    t.false(await valid('Steps'), '51 is above max');
    await page.getByLabel('Steps', { exact: true }).fill('0');
    t.false(await valid('Steps'), '0 is below min');
    await page.getByLabel('Steps', { exact: true }).fill('2.5');
    t.false(await valid('Steps'), 'an integer takes no fraction');
    await page.getByLabel('CFG', { exact: true }).fill('10.5');
    t.false(await valid('CFG'), '10.5 is above max');
    await page.getByLabel('Seed', { exact: true }).fill('-2');
    t.false(await valid('Seed'), 'a seed below -1');
    await generateButton(page).click();
    await page.getByLabel('Steps', { exact: true }).fill('7');
    await page.getByLabel('CFG', { exact: true }).fill('9.75');
    await page.getByLabel('Seed', { exact: true }).fill('12');
    await generateButton(page).click();
    await until(() => h.sent.length > 0, 'the submit');
    await page.locator('.jobs li').first().waitFor();
    t.is(h.sent.length, 1, 'only the corrected form was sent');
    t.deepEqual(h.sent[0]!.body.parameters, { prompt: 'a fox', title: 'untitled', steps: 7, cfg: 9.75, seed: 12, tiled: true, hires: false, color: 255, color_steps: 4, sampler: 'ddim' });
  } finally {
    await h.context.close();
  }
});

test.serial('an image: Generate waits for an upload in flight and sends its id, with its preview; a file taken away is not sent', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const uploads: string[] = [];
    await page.route('**/api/v1/uploads', async (route) => {
      uploads.push(route.request().method());
      await held;
      await route.fulfill({ status: 201, json: { id: 'upload-1', mimeType: 'image/png', width: 1, height: 1, sizeBytes: PNG.length, createdAt: new Date().toISOString() } });
    });
    await open(h);
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-image');
    t.false(await page.getByLabel('Input image').evaluate((el: HTMLInputElement) => el.required));
    await page.getByLabel('Input image').setInputFiles(file('fox.png'));
    await until(() => uploads.length === 1, 'the upload');
    await page.getByLabel('Prompt', { exact: true }).fill('in watercolour');
    await generateButton(page).click();
    t.true(await generateButton(page).isDisabled(), 'Generate is pressed once while the upload runs');
    t.is(h.sent.length, 0, 'not sent before the upload has its id');
    release();
    await until(() => h.sent.length === 1, 'the submit');
    t.deepEqual(h.sent[0]!.body.parameters, { prompt: 'in watercolour', image: 'upload-1' });
    await page.getByRole('img', { name: 'Chosen Input image' }).waitFor();

    await page.getByLabel('Input image').setInputFiles([]);
    t.is(await page.getByRole('img', { name: 'Chosen Input image' }).count(), 0, 'the preview goes with the file');
    await generateButton(page).click();
    await until(() => h.sent.length === 2, 'the second submit');
    t.deepEqual(h.sent[1]!.body.parameters, { prompt: 'in watercolour' });
    t.deepEqual(uploads, ['POST']);
  } finally {
    await h.context.close();
  }
});

test.serial('a remix: its template chosen and its values filled in (that template only), the rest from the defaults; a gone template and unreadable values are said', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    const remix = `/?${new URLSearchParams({ template: 'tpl-form', parameters: JSON.stringify({ prompt: 'from the remix', steps: 7, hires: true, sampler: 'euler', color: 0x00ff00 }) })}`;
    await open(h, remix);
    t.is(await page.getByLabel('Template', { exact: true }).inputValue(), 'tpl-form');
    const note = page.locator('form p.notice');
    t.is(await note.textContent(), 'Remixing an output of Form check: its parameters are filled in.');
    t.is(await note.getAttribute('class'), 'notice info');
    t.is(await page.getByLabel('Prompt (required)').inputValue(), 'from the remix');
    t.is(await page.getByLabel('Steps', { exact: true }).inputValue(), '7');
    t.true(await page.getByLabel('Hires', { exact: true }).isChecked());
    t.is(await page.getByLabel('Sampler', { exact: true }).inputValue(), 'euler');
    t.is(await page.getByLabel('Colour', { exact: true }).inputValue(), '#00ff00');
    t.is(await page.getByLabel('Title', { exact: true }).inputValue(), 'untitled', 'a value the remix lacks is the default');
    // Another template with a field of the same key does not take the remixed value.
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-plain');
    t.is(await page.getByLabel('Prompt', { exact: true }).inputValue(), '');

    await open(h, `/?${new URLSearchParams({ template: 'tpl-gone', parameters: '{"prompt":"x"}' })}`);
    t.is(await note.textContent(), 'The template of that output is no longer available.');
    t.is(await note.getAttribute('class'), 'notice');
    t.is(await page.getByLabel('Template', { exact: true }).inputValue(), 'tpl-plain');

    await open(h, `/?${new URLSearchParams({ template: 'tpl-form', parameters: '{not json' })}`);
    t.is(await note.textContent(), 'Remixing an output of Form check: its parameters are filled in.');
    t.is(await page.getByLabel('Prompt (required)').inputValue(), '');
    t.is(await page.getByLabel('Steps', { exact: true }).inputValue(), '20');
  } finally {
    await h.context.close();
  }
});

test.serial('the page around the form: a sent-away user is told why; no templates means nothing to press; a refusal is cleared by a new template and by a new submit; a lost service is said; a submit in flight is not sent twice', async (t) => {
  const h = await harness([]);
  const { page } = h;
  try {
    await open(h, '/?denied=admin');
    t.is(await page.getByRole('alert').textContent(), 'That page is for administrators only.');
    await page.getByText('No templates are available yet.').waitFor();
    t.is(await page.getByLabel('Template', { exact: true }).count(), 0);
    t.true(await generateButton(page).isDisabled());
    t.is(await page.getByTestId('cost').textContent(), '');

    h.templates = [PLAIN, FORM];
    await open(h);
    t.is(await page.getByRole('alert').count(), 0, 'no notice without ?denied=admin');
    h.answer = (route) => route.fulfill({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'The template changed meanwhile (test).' } });
    await generateButton(page).click();
    await status(page).filter({ hasText: 'The template changed meanwhile (test).' }).waitFor();
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-form');
    t.is(await status(page).textContent(), '', 'a new template clears the refusal');
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-plain');
    await generateButton(page).click();
    await status(page).filter({ hasText: 'The template changed meanwhile (test).' }).waitFor();

    // A submit in flight: the refusal is cleared, Generate cannot be pressed again; then a service that cannot be reached.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.answer = async (route) => {
      await held;
      await route.abort();
    };
    await generateButton(page).click();
    await until(() => h.sent.length === 3, 'the third submit');
    t.is(await status(page).textContent(), '', 'a new submit clears the refusal');
    t.true(await generateButton(page).isDisabled());
    await generateButton(page).click({ force: true });
    await page.keyboard.press('Enter');
    release();
    await status(page).filter({ hasText: /\w/ }).waitFor();
    t.is(await status(page).textContent(), 'The service could not be reached.');
    t.is(h.sent.length, 3, 'the submit in flight was sent once');
    t.true(await generateButton(page).isEnabled());
  } finally {
    await h.context.close();
  }
});

test.serial("the session's outputs: each once, newest first, twenty at most; a job's end reads the balance again and prices the template anew", async (t) => {
  const h = await harness([PLAIN, DEAR]);
  const { page } = h;
  try {
    h.jobs = [jobOf('run-1', 'running', PLAIN.id), jobOf('run-2', 'running', PLAIN.id), jobOf('run-3', 'running', PLAIN.id), jobOf('run-4', 'running', 'tpl-unknown')];
    await open(h);
    await page.locator('.jobs li[data-job-id="run-4"]').waitFor();
    t.is(await page.locator('.jobs li[data-job-id="run-1"] strong').textContent(), 'Plain');
    t.is(await page.locator('.jobs li[data-job-id="run-4"] strong').textContent(), 'Unavailable template');
    await until(() => h.socket.connections.length > 0, 'the socket');
    const tiles = page.getByRole('list', { name: 'Outputs of this session' }).locator('li .hint');
    h.socket.send({ type: 'job.completed', jobId: 'run-1', outputs: [fakeOutput('o1'), fakeOutput('o2')] });
    h.socket.send({ type: 'job.completed', jobId: 'run-2', outputs: [fakeOutput('o2'), fakeOutput('o3')] });
    await tiles.filter({ hasText: 'o3.png' }).waitFor();
    t.deepEqual(await tiles.allTextContents(), ['o3.png', 'o2.png', 'o1.png']);
    h.socket.send({ type: 'job.completed', jobId: 'run-3', outputs: Array.from({ length: 20 }, (_, index) => fakeOutput(`x${index + 1}`)) });
    await tiles.filter({ hasText: 'x20.png' }).waitFor();
    const names = await tiles.allTextContents();
    t.is(names.length, 20);
    t.is(names[0], 'x20.png');
    t.is(names[19], 'x1.png');

    // A template the balance cannot pay; a refund (a job that ended) makes it payable.
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-dear');
    await status(page).filter({ hasText: 'Not enough coins for this template.' }).waitFor();
    t.is(await page.getByTestId('cost').textContent(), 'Costs 150 coins; you have 100.');
    t.true(await generateButton(page).isDisabled());
    h.balance = 200;
    h.socket.send({ type: 'job.failed', jobId: 'run-4', error: { code: 'ENGINE', message: 'out of memory' }, refunded: 100 });
    await page.getByTestId('cost').filter({ hasText: 'Costs 150 coins; you have 200.' }).waitFor();
    t.true(await generateButton(page).isEnabled());
  } finally {
    await h.context.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Product faults this audit found, fixed (ADR 057): each title says what the page did before the fix.

test.serial("fixed fault: the session's outputs of one user are shown to the next user who signs in in the same tab", async (t) => {
  const h = await harness([PLAIN]);
  const { page } = h;
  try {
    const other = `form-other-${randomUUID()}@example.com`;
    await register(page, other);
    h.jobs = [jobOf('run-a', 'running', PLAIN.id)];
    await open(h);
    await page.locator('.jobs li[data-job-id="run-a"]').waitFor();
    await until(() => h.socket.connections.length > 0, 'the socket');
    h.socket.send({ type: 'job.completed', jobId: 'run-a', outputs: [fakeOutput('private-of-a')] });
    const tiles = page.getByRole('list', { name: 'Outputs of this session' }).locator('li');
    await tiles.filter({ hasText: 'private-of-a.png' }).waitFor();

    h.jobs = [];
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(other);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    await page.getByTestId('cost').filter({ hasText: /\w/ }).waitFor();
    t.deepEqual(await tiles.allTextContents(), [], "the other user's session starts empty");
  } finally {
    await h.context.close();
  }
});

test.serial('fixed fault: a remix of a template whose image is required cannot be sent: the empty file field holds the form back', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    await open(h, `/?${new URLSearchParams({ template: 'tpl-required-image', parameters: JSON.stringify({ image: 'output-7' }) })}`);
    await page.getByText('Using the input image of the output you remix.').waitFor();
    t.true(await page.getByLabel('Input image (required)').evaluate((el: HTMLInputElement) => el.validity.valid), 'the remixed image fills the field');
    t.true(await page.locator('form.card').evaluate((form: HTMLFormElement) => form.checkValidity()));
  } finally {
    await h.context.close();
  }
});

test.serial('fixed fault: two files chosen one after the other: the first, slower upload wins and is sent', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    let releaseFirst: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    let count = 0;
    await page.route('**/api/v1/uploads', async (route) => {
      const id = ++count === 1 ? 'upload-first' : 'upload-second';
      if (id === 'upload-first') await first;
      await route.fulfill({ status: 201, json: { id, mimeType: 'image/png', width: 1, height: 1, sizeBytes: PNG.length, createdAt: new Date().toISOString() } });
    });
    await open(h);
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-image');
    await page.getByLabel('Input image').setInputFiles(file('first.png'));
    await until(() => count === 1, 'the first upload');
    await page.getByLabel('Input image').setInputFiles(file('second.png'));
    await page.getByRole('img', { name: 'Chosen Input image' }).waitFor();
    const finished = page.waitForEvent('requestfinished', (request) => request.url().endsWith('/api/v1/uploads'));
    releaseFirst();
    await finished;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await generateButton(page).click();
    await until(() => h.sent.length === 1, 'the submit');
    t.deepEqual(h.sent[0]!.body.parameters, { image: 'upload-second' }, 'the file chosen last is sent');
  } finally {
    await h.context.close();
  }
});

test.serial('fixed fault: a refused upload is not said when the file is chosen, and its refusal stays after the file is taken away: the form cannot be sent without an image', async (t) => {
  const h = await harness();
  const { page } = h;
  try {
    let uploads = 0;
    await page.route('**/api/v1/uploads', (route) => {
      uploads += 1;
      return route.fulfill({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'The file is not an image (test).' } });
    });
    await open(h);
    await page.getByLabel('Template', { exact: true }).selectOption('tpl-image');
    await page.getByLabel('Input image').setInputFiles(file('not-an-image.png'));
    await until(() => uploads === 1, 'the upload');
    await page.getByLabel('Input image').setInputFiles([]);
    await page.getByLabel('Prompt', { exact: true }).fill('no image after all');
    await generateButton(page).click();
    await Promise.race([until(() => h.sent.length === 1, 'the submit'), status(page).filter({ hasText: /\w/ }).waitFor()]);
    t.is(await status(page).textContent(), '', 'no refusal of a file no longer chosen');
    t.deepEqual(h.sent.map((sent) => sent.body.parameters), [{ prompt: 'no image after all' }]);
  } finally {
    await h.context.close();
  }
});

test.serial('fixed fault: a job made, then a failed read of the balance: the page says the submit failed', async (t) => {
  const h = await harness([PLAIN]);
  const { page } = h;
  try {
    await open(h);
    h.profileStatus = 503;
    await generateButton(page).click();
    await until(() => h.sent.length === 1, 'the submit');
    const id = h.sent[0]!.body.requestId;
    await page.locator(`.jobs li[data-job-id="${id}"]`).waitFor();
    await generateButton(page).and(page.locator(':enabled')).waitFor();
    t.is(await status(page).textContent(), '', 'the job was made: no failure is told');
  } finally {
    await h.context.close();
  }
});

test.serial('fixed fault: "Not enough coins" stays after a refund makes the template payable', async (t) => {
  const h = await harness([DEAR]);
  const { page } = h;
  try {
    h.jobs = [jobOf('run-r', 'running', DEAR.id)];
    await open(h);
    await page.locator('.jobs li[data-job-id="run-r"]').waitFor();
    await until(() => h.socket.connections.length > 0, 'the socket');
    await status(page).filter({ hasText: 'Not enough coins for this template.' }).waitFor();
    h.balance = 250;
    h.socket.send({ type: 'job.failed', jobId: 'run-r', error: { code: 'ENGINE', message: 'out of memory' }, refunded: 150 });
    await page.getByTestId('cost').filter({ hasText: 'Costs 150 coins; you have 250.' }).waitFor();
    t.true(await generateButton(page).isEnabled());
    t.is(await status(page).textContent(), '', 'the template is payable now');
  } finally {
    await h.context.close();
  }
});

test.serial('fixed fault: a job that ends while a submit is in flight enables Generate again: the form can be sent twice', async (t) => {
  const h = await harness([PLAIN]);
  const { page } = h;
  try {
    h.jobs = [jobOf('run-e', 'running', PLAIN.id)];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.answer = async (route, sent) => {
      await held;
      await route.fulfill({ status: 202, json: jobOf(sent.body.requestId) });
    };
    await open(h);
    await page.locator('.jobs li[data-job-id="run-e"]').waitFor();
    await until(() => h.socket.connections.length > 0, 'the socket');
    await generateButton(page).click();
    await until(() => h.sent.length === 1, 'the submit');
    h.balance = 105;
    h.socket.send({ type: 'job.failed', jobId: 'run-e', error: { code: 'ENGINE', message: 'out of memory' }, refunded: 5 });
    await page.getByTestId('cost').filter({ hasText: 'you have 105.' }).waitFor();
    const enabledMidFlight = await generateButton(page).isEnabled();
    release();
    await page.locator('.jobs li').nth(1).waitFor();
    t.false(enabledMidFlight, 'Generate stays disabled until the submit in flight is answered');
  } finally {
    await h.context.close();
  }
});

test.serial("fixed fault: a checkbox or a colour without a default is always sent (false, black 0), over the template's own value", async (t) => {
  const UNSET = {
    ...PLAIN,
    id: 'tpl-unset',
    name: 'Unset',
    parameters: [
      { key: 'prompt', label: 'Prompt', type: 'string' },
      { key: 'upscale', label: 'Upscale', type: 'boolean' },
      { key: 'background_color', label: 'Background', type: 'integer', min: 0, max: 16777215 },
    ],
  };
  const h = await harness([UNSET]);
  const { page } = h;
  try {
    await open(h);
    await page.getByLabel('Prompt', { exact: true }).fill('left alone');
    await generateButton(page).click();
    await until(() => h.sent.length === 1, 'the submit');
    // The server keeps the workflow's own value for an optional parameter without a default that is left out.
    t.deepEqual(h.sent[0]!.body.parameters, { prompt: 'left alone' }, 'fields the user did not touch are left out');
  } finally {
    await h.context.close();
  }
});
