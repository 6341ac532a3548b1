import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Browser, Page, Route } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { fakeOutput, fakeSocket, freshPage, launchChromium, signedInPage, sleep, until } from './browser-support.ts';

// The sign-in forms (auth.ts), the request helper (api.ts) and the socket's sign-out (socket.ts): guards listed in
// tests/mutation/mutations/web-user-history.mutations.ts. The real application (SQLite) answers where the outcome
// needs it (sign-in, registration, refresh); other answers are the test's own (page.route).
const PASSWORD = 'correct horse battery';
const EMAIL = `session-${Date.now()}@example.com`;

let app: TestApp;
let browser: Browser;
let solidId: string;

test.before(async () => {
  app = await startTestApp('sqlite');
  browser = await launchChromium();
  const client = app.client();
  await client.signUp({ email: EMAIL, password: PASSWORD, displayName: 'Session User' });
  const templates = (await client.get('/templates')).body as { id: string; name: string }[];
  solidId = templates.find((template) => template.name === 'Solid colour image')!.id;
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const newPage = () => freshPage(browser, app.app.config.publicUrl, 10_000);

/** A page of a user of its own, signed in. */
const userPage = () => signedInPage(browser, app.app.config.publicUrl, { prefix: 'session', password: PASSWORD, displayName: 'Session User', timeoutMs: 10_000 });

/** The server's features, changed as the test says. */
async function features(page: Page, change: Record<string, unknown>): Promise<void> {
  await page.route('**/api/v1/features', async (route) => {
    const response = await route.fetch();
    const json = (await response.json()) as Record<string, unknown>;
    await route.fulfill({ response, json: { ...json, ...change } });
  });
}

const formStatus = (page: Page) => page.locator('form p.status');

test.serial('sign-in: a refusal shows its message without a refresh, an unreachable or bare error says so, the button waits for the answer', async (t) => {
  const { context, page } = await newPage();
  try {
    const refreshes: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/auth/refresh')) refreshes.push(request.url());
    });
    const answers: ((route: Route) => Promise<void>)[] = [];
    await page.route('**/api/v1/auth/login', (route) => (answers.length > 0 ? answers.shift()!(route) : route.fallback()));
    await page.goto('/login');
    t.true(await page.getByLabel('Email').evaluate((input) => document.activeElement === input), 'the email field has the focus');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    const submit = page.getByRole('button', { name: 'Sign in' });
    await submit.click();
    await formStatus(page).filter({ hasText: /\w/ }).waitFor();
    t.is(await formStatus(page).textContent(), 'Invalid email or password');
    t.deepEqual(refreshes, [], 'a refused sign-in is no expired session');
    t.true(await submit.isEnabled());
    t.is(new URL(page.url()).pathname, '/login');

    answers.push((route) => route.abort('connectionrefused'));
    await submit.click();
    await formStatus(page).filter({ hasText: 'reached' }).waitFor();
    t.is(await formStatus(page).textContent(), 'The service could not be reached.');
    t.true(await submit.isEnabled());

    answers.push((route) => route.fulfill({ status: 503, body: '' }));
    await submit.click();
    await formStatus(page).filter({ hasText: 'Unavailable' }).waitFor();
    t.is(await formStatus(page).textContent(), 'Service Unavailable', 'an error without a body says its status');

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let sent = 0;
    answers.push(async (route) => {
      sent += 1;
      await held;
      await route.fallback();
    });
    await page.getByLabel('Password').fill(PASSWORD);
    await submit.click();
    await until(() => sent === 1, 'the sign-in');
    t.true(await submit.isDisabled(), 'no second sign-in while the first runs');
    t.is(await formStatus(page).textContent(), '', 'the earlier error is gone');
    release();
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    t.is(new URL(page.url()).pathname, '/');
    t.deepEqual(refreshes, []);
  } finally {
    await context.close();
  }
});

test.serial('the sign-in page: provider errors by code, provider buttons that remember the sign-in, registration then sign-in to next', async (t) => {
  const { context, page } = await newPage();
  try {
    await features(page, { oidcProviders: ['google'] });
    await page.route('**/api/v1/auth/google', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>the provider</p>' }));
    await page.goto('/login?error=access_denied');
    await formStatus(page).filter({ hasText: /\w/ }).waitFor();
    t.is(await formStatus(page).textContent(), 'The sign-in was cancelled.');
    await page.goto('/login?error=temporarily_unavailable');
    await formStatus(page).filter({ hasText: /\w/ }).waitFor();
    t.is(await formStatus(page).textContent(), 'Sign-in with the provider failed (temporarily_unavailable).');
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.is(await formStatus(page).textContent(), '', 'no error without one');

    const google = page.getByRole('link', { name: 'Google', exact: true });
    t.is(await google.textContent(), 'Google', 'named as people write it');
    t.is(await google.getAttribute('href'), '/api/v1/auth/google');
    t.is(await page.evaluate(() => localStorage.getItem('signed-in')), null);
    await google.click();
    await page.getByText('the provider').waitFor();
    t.is(await page.evaluate(() => localStorage.getItem('signed-in')), '1', 'back from the provider, the page reads the profile');
    await page.evaluate(() => localStorage.removeItem('signed-in'));

    const registrations: unknown[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/auth/register')) registrations.push(request.postDataJSON());
    });
    await page.goto('/signup?next=%2Fhistory');
    t.true(await page.getByLabel('Display name').evaluate((input) => document.activeElement === input), 'the first field has the focus');
    await page.getByLabel('Display name').fill('New Person');
    await page.getByLabel('Email').fill(EMAIL);
    t.is(await page.getByLabel('Password').evaluate((input) => document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent), '8 to 128 characters.', 'the hint describes the field');
    await page.getByLabel('Password').fill('short12');
    await page.getByRole('button', { name: 'Create account' }).click();
    await sleep(300);
    t.deepEqual(registrations, [], 'a password under 8 characters is not sent');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await formStatus(page).filter({ hasText: /\w/ }).waitFor();
    t.is(await formStatus(page).textContent(), 'An account with this email already exists');

    const email = `signup-${randomUUID()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    t.is(new URL(page.url()).pathname, '/history');
    t.deepEqual(registrations.at(-1), { email, password: PASSWORD, displayName: 'New Person' });
    t.is(await page.locator('header .who a[href="/account"]').textContent(), 'New Person');
  } finally {
    await context.close();
  }
});

test.serial('requests: 401s at once share one refresh and are each retried; a later 401 refreshes again; a refresh that cannot be sent signs out', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    await features(page, { socialPlatforms: ['YOUTUBE'] });
    const video = (id: string) => fakeOutput(id, { mimeType: 'video/mp4', viewUrl: `/missing/${id}.mp4`, fileName: `${id}.mp4` });
    await page.route(/\/api\/v1\/my-outputs\?/, (route) =>
      route.fulfill({ json: { items: [video('a'), video('b'), video('c')], page: 1, limit: 12, total: 3, totalPages: 1 } }),
    );
    // Each output's state: refused (401) as many times as the test says, then answered.
    const refusals: Record<string, number> = { a: 1, b: 1, c: 1 };
    const reads: Record<string, number> = {};
    let refusedSoFar = 0;
    await page.route(/\/api\/v1\/my-outputs\/[^/?]+\/publications$/, (route) => {
      const id = route.request().url().split('/').at(-2)!;
      reads[id] = (reads[id] ?? 0) + 1;
      if ((refusals[id] ?? 0) > 0) {
        refusals[id]! -= 1;
        refusedSoFar += 1;
        return route.fulfill({ status: 401, json: { statusCode: 401, error: 'Unauthorized', message: 'Token expired' } });
      }
      return route.fulfill({ json: [{ platform: 'YOUTUBE', status: 'published', url: `https://example.org/${id}`, updatedAt: new Date().toISOString() }] });
    });
    let refreshes = 0;
    let refreshAnswer: (route: Route) => Promise<void> = async (route) => {
      // Held until the three refusals are in: they overlap, as requests of one page do.
      await until(() => refusedSoFar >= 3, 'the three refusals');
      await route.fulfill({ json: { message: 'Tokens refreshed' } });
    };
    await page.route('**/api/v1/auth/refresh', (route) => {
      refreshes += 1;
      return refreshAnswer(route);
    });
    await page.goto('/history');
    for (const id of ['a', 'b', 'c']) await page.locator(`li.tile[data-output="${id}"] .publications span`).waitFor();
    t.is(refreshes, 1, 'one refresh for the three');
    t.deepEqual(reads, { a: 2, b: 2, c: 2 }, 'each retried once');

    // Later the access token expires again: a new refresh.
    refreshAnswer = (route) => route.fulfill({ json: { message: 'Tokens refreshed' } });
    refusals.a = 1;
    await until(() => socket.connections.length === 1, 'the socket');
    socket.send({ type: 'publish.completed', seq: 1, outputId: 'a', platform: 'YOUTUBE', url: 'https://example.org/a' });
    await until(() => reads.a === 4, 'a read again after its refusal');
    t.is(refreshes, 2, 'a later expiry is refreshed again');
    t.is(new URL(page.url()).pathname, '/history');

    // The refresh cannot even be sent: the session is treated as gone.
    refreshAnswer = (route) => route.abort('connectionrefused');
    refusals.b = 5;
    socket.send({ type: 'publish.completed', seq: 2, outputId: 'b', platform: 'YOUTUBE', url: 'https://example.org/b' });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.is(new URL(page.url()).pathname + new URL(page.url()).search, '/login?next=%2Fhistory');
  } finally {
    await context.close();
  }
});

test.serial('a Generate request carries an idempotency key of its own', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    const keys: (string | undefined)[] = [];
    const bodies: { requestId?: string }[] = [];
    await page.route('**/api/v1/generate', (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push(route.request().headers()['idempotency-key']);
      bodies.push(route.request().postDataJSON() as { requestId?: string });
      return route.fallback();
    });
    await page.goto('/');
    await page.getByLabel('Template').selectOption(solidId);
    await page.getByLabel(/^Prompt/).fill('keyed');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await until(() => keys.length === 1, 'the first POST');
    await page.locator('.jobs li').first().waitFor();
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await until(() => keys.length === 2, 'the second POST');
    t.regex(keys[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.is(keys[0], bodies[0]!.requestId, 'the key is the request id');
    t.not(keys[0], keys[1], 'each submit has its own');
  } finally {
    await context.close();
  }
});

test.serial('signing out closes the socket; the next sign-in syncs from the start, not from the last session', async (t) => {
  const { context, page } = await newPage();
  try {
    const socket = await fakeSocket(page);
    await page.goto('/login');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    t.deepEqual(JSON.parse(socket.sent[0]![0]!), { type: 'sync' });
    // A snapshot reads the jobs list again: once read, the page has taken seq 57.
    const reread = page.waitForResponse((response) => response.url().endsWith('/api/v1/generate?limit=50'));
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // A message that is no JSON is ignored, not thrown.
    socket.connections[0]!.send('not json');
    socket.send({ type: 'job.snapshot', seq: 57, jobs: [] });
    await reread;
    t.deepEqual(problems, []);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await until(() => socket.closed.length === 1, 'the socket closed');
    t.deepEqual(socket.closed, [1000]);

    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    await until(() => socket.sent[1]?.length === 1, 'the sync of the new session');
    t.deepEqual(JSON.parse(socket.sent[1]![0]!), { type: 'sync' });
    t.is(socket.connections.length, 2);
  } finally {
    await context.close();
  }
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const job = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  status,
  templateId: solidId,
  progress: { value: 0, max: 1 },
  statusText: null,
  outputs: [],
  usedParameters: { prompt: `prompt of ${id}` },
  error: null,
  refundedCoins: 0,
  createdAt: minutesAgo(2),
  updatedAt: minutesAgo(1),
  ...extra,
});

test.serial('the jobs panel: no jobs says so; Cancel waits for its answer and clears its last error; a failed fetch is tried again; test runs and jobs already shown are not fetched or added again', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    const list = { jobs: [] as unknown[] };
    await page.route('**/api/v1/generate?limit=50', (route) => route.fulfill({ json: { items: list.jobs, page: 1, limit: 50, total: list.jobs.length, totalPages: 1 } }));
    const known: Record<string, unknown> = {
      tr: job('tr', 'queued', { testRun: true }),
      flaky: job('flaky', 'queued'),
      probe: job('probe', 'queued'),
      submitted: job('submitted', 'queued'),
    };
    const fetches: Record<string, number> = {};
    await page.route(/\/api\/v1\/generate\/[^/?]+$/, (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const id = route.request().url().split('/').at(-1)!;
      fetches[id] = (fetches[id] ?? 0) + 1;
      if (id === 'flaky' && fetches[id] === 1) return route.fulfill({ status: 500, json: { statusCode: 500, error: 'Internal Server Error', message: 'boom' } });
      return route.fulfill({ json: known[id] });
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let cancels = 0;
    await page.route('**/api/v1/generate/live/cancel', async (route) => {
      cancels += 1;
      if (cancels === 1) return route.fulfill({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'Try again in a moment.' } });
      await held;
      return route.fulfill({ json: job('live', 'cancelled') });
    });
    const row = (id: string) => page.locator(`.jobs li[data-job-id="${id}"]`);
    const empty = page.getByText('No jobs yet.');

    await page.goto('/');
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    await empty.waitFor({ timeout: 5_000 });
    t.true(await empty.isVisible(), 'no jobs says so');
    list.jobs = [job('live', 'running')];
    socket.send({ type: 'job.snapshot', seq: 1, jobs: [] });
    await row('live').waitFor();
    t.true(await empty.isHidden());

    const cancel = row('live').getByRole('button', { name: /^Cancel/ });
    const alert = row('live').getByRole('alert');
    await cancel.click();
    await alert.filter({ hasText: 'Try again in a moment.' }).waitFor();
    await cancel.click();
    await until(() => cancels === 2, 'the second cancel');
    t.true(await cancel.isDisabled(), 'no second cancel while one runs');
    t.is(await alert.textContent(), '', 'the last error is gone');
    release();
    await row('live').locator('.job-status').filter({ hasText: 'Cancelled' }).waitFor();

    // A test run (shown in the template editor): fetched once, its later events fetch nothing.
    const trFetched = page.waitForResponse((response) => response.url().endsWith('/api/v1/generate/tr'));
    socket.send({ type: 'job.queued', jobId: 'tr', seq: 2 });
    await trFetched;
    // A job whose fetch failed: its next event tries again.
    const flakyFetched = page.waitForResponse((response) => response.url().endsWith('/api/v1/generate/flaky'));
    socket.send({ type: 'job.queued', jobId: 'flaky', seq: 3 });
    await flakyFetched;
    // (The page forgets the failed fetch just after its answer: an event sent before that waits with it, so events are
    // sent until one fetches the job again.)
    let seq = 4;
    await until(() => {
      if (fetches.flaky === 1) socket.send({ type: 'job.status', jobId: 'flaky', seq: seq++, text: 'Warming up' });
      return fetches.flaky === 2;
    }, 'flaky fetched again', 5_000);
    await row('flaky').waitFor();
    // The test run's fetch ended long ago: its next event is not fetched again.
    socket.send({ type: 'job.started', jobId: 'tr', seq: 100 });
    socket.send({ type: 'job.queued', jobId: 'probe', seq: 101 });
    await row('probe').waitFor();
    t.is(fetches.tr, 1, 'a test run is fetched once');
    t.is(fetches.flaky, 2);
    t.is(await page.locator('.jobs li[data-job-id="tr"]').count(), 0);

    // A job shown from its event, then answered by the POST that submitted it: one row.
    socket.send({ type: 'job.queued', jobId: 'submitted', seq: 102 });
    await row('submitted').waitFor();
    await page.route('**/api/v1/generate', (route) => (route.request().method() === 'POST' ? route.fulfill({ status: 202, json: known.submitted }) : route.fallback()));
    await page.getByLabel('Template').selectOption(solidId);
    await page.getByLabel(/^Prompt/).fill('shown twice?');
    const profileRead = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/profile'));
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await profileRead;
    t.is(await row('submitted').count(), 1, 'one row per job');
  } finally {
    await context.close();
  }
});

test.serial('fixed fault requests: an error answered with a non-JSON body (a proxy page) is told as "could not be reached", its status lost', async (t) => {
  const { context, page } = await newPage();
  try {
    await page.route('**/api/v1/auth/login', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body>502 Bad Gateway</body></html>' }));
    await page.goto('/login');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await formStatus(page).filter({ hasText: /\w/ }).waitFor();
    // The service was reached (a gateway answered): as for an error without a body, its status says what happened.
    t.is(await formStatus(page).textContent(), 'Bad Gateway');
  } finally {
    await context.close();
  }
});
