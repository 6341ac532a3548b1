import test from 'ava';
import type { Browser, Page, Route, WebSocketRoute } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { fakeOutput, fakeSocket, launchChromium, signedInPage, sleep, until } from './browser-support.ts';

// The web client's guards (tests/mutation/mutations/web-client.mutations.ts), against the real application (SQLite):
// what the server says is real where the outcome needs it (sign-in, refresh, CSRF); the jobs list, the socket's
// events and some answers are the test's own (page.route, a socket the test plays the server of), so that every
// state a user can meet is shown on demand, without waiting for jobs to run.
const PASSWORD = 'correct horse battery';
const EMAIL = `audit-${Date.now()}@example.com`;

let app: TestApp;
let browser: Browser;
let solidId: string;

test.before(async () => {
  app = await startTestApp('sqlite');
  browser = await launchChromium();
  const client = app.client();
  await client.signUp({ email: EMAIL, password: PASSWORD });
  const templates = (await client.get('/templates')).body as { id: string; name: string }[];
  solidId = templates.find((template) => template.name === 'Solid colour image')!.id;
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

interface FakeJob {
  id: string;
  status: string;
  templateId: string | null;
  progress: { value: number; max: number };
  statusText: string | null;
  outputs: unknown[];
  usedParameters: Record<string, unknown>;
  error: { code: string; message: string } | null;
  refundedCoins: number;
  createdAt: string;
  updatedAt: string;
  position?: number;
  textOutputs?: { nodeId: string; text: string }[];
}

const job = (id: string, status: string, minutes: number, extra: Partial<FakeJob> = {}): FakeJob => ({
  id,
  status,
  templateId: solidId,
  progress: { value: 0, max: 1 },
  statusText: null,
  outputs: [],
  usedParameters: { prompt: `prompt of ${id}` },
  error: null,
  refundedCoins: 0,
  createdAt: minutesAgo(minutes + 1),
  updatedAt: minutesAgo(minutes),
  ...extra,
});

const output = (id: string, extra: Record<string, unknown> = {}) =>
  fakeOutput(id, { templateId: solidId, templateName: 'Solid colour image', usedParameters: { prompt: `prompt of ${id}`, width: 64 }, createdAt: minutesAgo(5), ...extra });

/** The jobs list the page reads (GET /generate?limit=50): the test's own, changeable. */
async function jobsList(page: Page, jobs: FakeJob[]): Promise<{ jobs: FakeJob[] }> {
  const list = { jobs };
  await page.route('**/api/v1/generate?limit=50', (route) =>
    route.fulfill({ json: { items: list.jobs, page: 1, limit: 50, total: list.jobs.length, totalPages: 1 } }),
  );
  return list;
}

/** A page of a user of its own (its own session and balance: the tests run at once). */
const userPage = () => signedInPage(browser, app.app.config.publicUrl, { prefix: 'audit', password: PASSWORD, displayName: 'Audit User' });

const row = (page: Page, id: string) => page.locator(`.jobs li[data-job-id="${id}"]`);
const statusOfRow = (page: Page, id: string) => row(page, id).locator('.job-status');

test.serial('the jobs panel from the list: recent endings only (five at most), active jobs whatever their age, failures with their refund', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    const long = 'a lighthouse on a cliff at dusk, waves crashing below, seagulls circling, warm light in every window, oil painting';
    const list = await jobsList(page, [
      job('queued-old', 'queued', 120, { statusText: 'Waiting for a GPU', usedParameters: { prompt: long }, createdAt: minutesAgo(120.5) }),
      job('unknown-template', 'running', 1, { templateId: 'no-such-template' }),
      job('failed', 'failed', 2, { error: { code: 'ENGINE', message: 'the engine ran out of memory' }, refundedCoins: 5 }),
      job('done', 'succeeded', 3, { outputs: [output('earlier-output')], textOutputs: [{ nodeId: '7', text: 'first' }, { nodeId: '8', text: 'second' }] }),
      job('ended-3', 'cancelled', 4),
      job('ended-4', 'cancelled', 5),
      job('ended-5', 'expired', 6, { refundedCoins: 1 }),
      job('ended-6', 'cancelled', 7),
      job('too-old', 'cancelled', 61),
    ]);
    await page.goto('/');
    await row(page, 'ended-5').waitFor();
    const ids = await page.locator('.jobs li').evaluateAll((items) => items.map((item) => item.getAttribute('data-job-id')));
    t.deepEqual(ids, ['queued-old', 'unknown-template', 'failed', 'done', 'ended-3', 'ended-4', 'ended-5'], 'five endings of the last hour, active jobs of any age');

    t.is(await statusOfRow(page, 'queued-old').textContent(), 'Waiting for a GPU', "the server's status text of a queued job");
    t.is(await row(page, 'queued-old').locator('.job-prompt').textContent(), `${long.slice(0, 79)}…`);
    // Hours and minutes (the minutes depend on how long this page took to load on a busy machine).
    t.regex((await row(page, 'queued-old').locator('.job-elapsed').textContent())!, /^2 h \d+ min so far$/);
    t.true(await row(page, 'queued-old').getByRole('button', { name: /^Cancel/ }).isVisible());
    t.is(await row(page, 'unknown-template').locator('strong').textContent(), 'Unavailable template');
    t.is(await row(page, 'done').locator('strong').textContent(), 'Solid colour image');

    t.is(await statusOfRow(page, 'failed').textContent(), 'Failed: the engine ran out of memory (5 coins refunded)');
    t.is(await statusOfRow(page, 'ended-5').textContent(), 'Expired: not started before its deadline (1 coin refunded)');
    t.is(await statusOfRow(page, 'ended-3').textContent(), 'Cancelled');
    t.is(await statusOfRow(page, 'done').textContent(), 'Done');
    t.deepEqual(await row(page, 'done').locator('.job-texts').evaluate((el) => [...el.children].map((child) => child.textContent)), ['Text outputs', 'first', 'second']);
    for (const id of ['failed', 'ended-3']) t.true(await row(page, id).locator('.job-texts').isHidden(), `no text output on ${id}`);
    for (const id of ['failed', 'done', 'ended-3', 'ended-5']) t.true(await row(page, id).getByRole('button', { name: /^Cancel/ }).isHidden(), `no Cancel on ${id}`);
    t.is(await row(page, 'failed').locator('.job-elapsed').textContent(), '1 min 0 s', 'an ended job shows the time it took, frozen');
    // Outputs of jobs that had ended before the page loaded belong to History, not to this session.
    t.is(await page.locator('[aria-label="Outputs of this session"] li').count(), 0);

    // Fewer than five endings (read again on a snapshot): one that ended more than an hour ago is still left out.
    list.jobs = [job('still-queued', 'queued', 0), job('recent', 'cancelled', 10), job('hour-old', 'cancelled', 61)];
    socket.send({ type: 'job.snapshot', seq: 1, jobs: [] });
    await row(page, 'still-queued').waitFor();
    const after = await page.locator('.jobs li').evaluateAll((items) => items.map((item) => item.getAttribute('data-job-id')));
    t.deepEqual(after, ['still-queued', 'recent'], 'no ending older than an hour');
  } finally {
    await context.close();
  }
});

test.serial('live events: progress, status, a failure with its refund and the new balance; an ended row ignores late events; an unknown job is fetched', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    const list = await jobsList(page, [job('live', 'running', 0)]);
    let refunded = false;
    await page.route('**/api/v1/auth/profile', async (route) => {
      const response = await route.fetch();
      const profile = (await response.json()) as { coinBalance: number };
      await route.fulfill({ response, json: refunded ? { ...profile, coinBalance: profile.coinBalance + 5 } : profile });
    });
    // A cancel the server refuses: its reason is shown and the button can be pressed again.
    await page.route('**/api/v1/generate/live/cancel', (route) =>
      route.fulfill({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'This job has already ended.' } }),
    );
    await page.goto('/');
    await row(page, 'live').waitFor();
    await until(() => socket.sent.length === 1 && socket.sent[0]!.length > 0, 'the first sync');
    const balance = (await page.getByTestId('balance').textContent())!;
    const cancel = row(page, 'live').getByRole('button', { name: /^Cancel/ });
    await cancel.click();
    await row(page, 'live').getByRole('alert').filter({ hasText: 'This job has already ended.' }).waitFor();
    t.true(await cancel.isEnabled());

    socket.send({ type: 'job.progress', jobId: 'live', seq: 1, value: 3, max: 4 });
    socket.send({ type: 'job.status', jobId: 'live', seq: 2, text: 'Sampling' });
    await statusOfRow(page, 'live').filter({ hasText: 'Sampling' }).waitFor();
    t.deepEqual(await row(page, 'live').locator('progress').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max]), [3, 4]);
    // A replayed (older) event is not shown again over a newer one.
    socket.send({ type: 'job.status', jobId: 'live', seq: 1, text: 'Loading the model' });
    socket.send({ type: 'job.status', jobId: 'live', seq: 3, text: 'Decoding' });
    await statusOfRow(page, 'live').filter({ hasText: 'Decoding' }).waitFor();
    socket.send({ type: 'job.status', jobId: 'live', seq: 3, text: 'Loading the model' });
    socket.send({ type: 'job.progress', jobId: 'live', seq: 4, value: 4, max: 4 });
    await until(async () => (await row(page, 'live').locator('progress').evaluate((bar: HTMLProgressElement) => bar.value)) === 4, 'the last progress');
    t.is(await statusOfRow(page, 'live').textContent(), 'Decoding');

    refunded = true;
    socket.send({ type: 'job.failed', jobId: 'live', seq: 5, error: { code: 'ENGINE', message: 'the sampler crashed' }, refunded: 5 });
    await statusOfRow(page, 'live').filter({ hasText: 'Failed' }).waitFor();
    t.is(await statusOfRow(page, 'live').textContent(), 'Failed: the sampler crashed (5 coins refunded)');
    t.true(await cancel.isHidden());
    // The header's balance is read again once a job ends.
    await page.getByTestId('balance').filter({ hasText: `${Number.parseInt(balance, 10) + 5} coins` }).waitFor();

    // Late events of an ended job change nothing.
    socket.send({ type: 'job.status', jobId: 'live', seq: 6, text: 'Sampling again' });
    socket.send({ type: 'job.completed', jobId: 'live', seq: 7, outputs: [output('late-output')], texts: ['a late text'] });
    // An unknown job (submitted in another tab) is fetched; what arrives meanwhile is applied once it is shown.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let fetches = 0;
    await page.route(/\/api\/v1\/generate\/other-tab$/, async (route: Route) => {
      fetches += 1;
      await held;
      await route.fulfill({ json: job('other-tab', 'queued', 0) });
    });
    socket.send({ type: 'job.queued', jobId: 'other-tab', seq: 8, position: 1 });
    await until(() => fetches === 1, 'the fetch of the unknown job');
    socket.send({ type: 'job.started', jobId: 'other-tab', seq: 9 });
    socket.send({ type: 'job.status', jobId: 'other-tab', seq: 10, text: 'Warming up' });
    await sleep(1_000);
    t.is(fetches, 1, 'fetched once, whatever arrives meanwhile');
    release();
    await statusOfRow(page, 'other-tab').filter({ hasText: 'Warming up' }).waitFor();
    // Its start event told no time left (an event stored before job.started carried etaSeconds): the job is read again.
    await until(() => fetches === 2, 'the read of what is left of a job whose start told nothing');
    t.is(await statusOfRow(page, 'live').textContent(), 'Failed: the sampler crashed (5 coins refunded)');
    t.is(await page.locator('[aria-label="Outputs of this session"] li').count(), 0, 'the late completion showed no output');
    t.true(await row(page, 'live').locator('.job-texts').isHidden(), 'nor its text');
    // A completion's texts (a workflow's text nodes) show under the row; an empty one is left out.
    socket.send({ type: 'job.completed', jobId: 'other-tab', seq: 11, outputs: [], texts: ['a caption\non two lines', '  '] });
    await statusOfRow(page, 'other-tab').filter({ hasText: 'Done' }).waitFor();
    t.deepEqual(await row(page, 'other-tab').locator('.job-texts').evaluate((el) => [...el.children].map((child) => `${child.tagName} ${child.textContent}`)), [
      'SPAN Text output',
      'P a caption\non two lines',
    ]);

    // A snapshot (sent after a reconnect) reads the list again.
    list.jobs = [job('from-snapshot', 'queued', 0), ...list.jobs];
    socket.send({ type: 'job.snapshot', seq: 12, jobs: [] });
    await row(page, 'from-snapshot').waitFor();
    t.pass();
  } finally {
    await context.close();
  }
});

test.serial('the socket: a dropped connection comes back and syncs from its last seq; 4001 refreshes the session first; 4003 stays closed', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    await jobsList(page, [job('socket-job', 'running', 0)]);
    const refreshes: number[] = [];
    let profiles = 0;
    page.on('response', (response) => {
      if (response.url().endsWith('/api/v1/auth/refresh')) refreshes.push(response.status());
      if (response.url().endsWith('/api/v1/auth/profile')) profiles += 1;
    });
    await page.goto('/');
    await row(page, 'socket-job').waitFor();
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    const profilesOnLoad = profiles;
    t.deepEqual(JSON.parse(socket.sent[0]![0]!), { type: 'sync' });
    socket.send({ type: 'job.status', jobId: 'socket-job', seq: 41, text: 'Step 1' });
    await statusOfRow(page, 'socket-job').filter({ hasText: 'Step 1' }).waitFor();

    await socket.connections[0]!.close({ code: 4000, reason: 'network dropped (test)' });
    await until(() => socket.sent[1]?.length === 1, 'the second connection');
    t.deepEqual(JSON.parse(socket.sent[1]![0]!), { type: 'sync', since: 41 });
    t.deepEqual(refreshes, [], 'a dropped connection needs no refresh');
    // Only a socket refused before it opened asks for the profile first (to renew the session): this one had opened.
    t.is(profiles, profilesOnLoad, 'a dropped connection asks for no profile');
    socket.send({ type: 'job.status', jobId: 'socket-job', seq: 42, text: 'Step 2' });
    await statusOfRow(page, 'socket-job').filter({ hasText: 'Step 2' }).waitFor();

    // Closed because the access token expired: the session is refreshed, then the socket opens again.
    await socket.connections[1]!.close({ code: 4001, reason: 'token expired (test)' });
    await until(() => socket.sent[2]?.length === 1, 'the third connection');
    t.deepEqual(refreshes, [200]);
    t.deepEqual(JSON.parse(socket.sent[2]![0]!), { type: 'sync', since: 42 });
    socket.send({ type: 'job.status', jobId: 'socket-job', seq: 43, text: 'Step 3' });
    await statusOfRow(page, 'socket-job').filter({ hasText: 'Step 3' }).waitFor();

    // The session was revoked: no reconnecting (it would be refused again and again).
    await socket.connections[2]!.close({ code: 4003, reason: 'session revoked (test)' });
    await sleep(3_000);
    t.is(socket.connections.length, 3);
  } finally {
    await context.close();
  }
});

test.serial('the socket: after a 4001 the session is renewed at once, not after the backoff of a dropped connection', async (t) => {
  const { context, page } = await userPage();
  try {
    // The page's own clock: when it asked for the refresh.
    await context.addInitScript(() => {
      const nativeFetch = window.fetch;
      window.fetch = (input, init) => {
        if (String(input).endsWith('/auth/refresh')) (window as unknown as { refreshAt: number }).refreshAt = performance.now();
        return nativeFetch(input, init);
      };
    });
    const socket = await fakeSocket(page);
    await jobsList(page, []);
    await page.goto('/');
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    const closedAt = await page.evaluate(() => performance.now());
    await socket.connections[0]!.close({ code: 4001, reason: 'token expired (test)' });
    await until(() => socket.sent[1]?.length === 1, 'the second connection');
    const waited = (await page.evaluate(() => (window as unknown as { refreshAt: number }).refreshAt)) - closedAt;
    // A dropped connection's first retry waits 250 ms; a 4001 does not wait (the time includes the close's trip to the page).
    t.true(waited >= 0 && waited < 150, `the refresh left ${waited} ms after the close`);
  } finally {
    await context.close();
  }
});

test.serial('the socket: 4001 with a session that cannot be renewed signs the page out instead of reconnecting', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    await jobsList(page, []);
    await page.goto('/history');
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    // The refresh token is gone too (expired): the refresh is refused.
    await context.clearCookies();
    await socket.connections[0]!.close({ code: 4001, reason: 'token expired (test)' });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.is(new URL(page.url()).pathname + new URL(page.url()).search, '/login?next=%2Fhistory');
    await sleep(1_000);
    t.is(socket.connections.length, 1, 'no further connection');
  } finally {
    await context.close();
  }
});

test.serial('the socket: refused before it opened (its access token expired while it was down), it renews the session and comes back', async (t) => {
  const { context, page } = await userPage();
  try {
    // Every connection goes through to the real server; the test can drop one as a network would.
    const routes: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => {
      routes.push(ws);
      ws.connectToServer();
    });
    const refreshes: number[] = [];
    let listReads = 0;
    page.on('response', (response) => {
      if (response.url().endsWith('/api/v1/auth/refresh')) refreshes.push(response.status());
      if (response.url().endsWith('/api/v1/generate?limit=50')) listReads += 1;
    });
    await page.goto('/');
    await page.getByText('Costs', { exact: false }).waitFor();
    await until(() => routes.length === 1, 'the first connection');
    // The first sync is answered by a job.snapshot, which reads the list again. Had that read come after the token
    // was spoiled below, its 401 would renew the session before the socket's next try, which would then be let in.
    await until(() => listReads >= 2, 'the list read again after the snapshot');
    // While the socket is down, its access token stops being valid; the refresh token still is.
    await context.addCookies([{ name: 'access_token', value: 'expired.while.asleep', url: app.app.config.publicUrl }]);
    await routes[0]!.close({ code: 1001, reason: 'gone (test)' });
    // Its next try is refused at the upgrade (401); the page asks for its profile, which renews the session, and the
    // try after that is let in: a job's events reach the page again.
    await until(() => refreshes.includes(200), 'a renewed session', 30_000);
    await until(() => routes.length >= 3, 'a connection after the renewal');
    await page.getByLabel('Template').selectOption(solidId);
    await page.getByLabel(/^Prompt/).fill('after the sleep');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.locator('.jobs li .job-status', { hasText: 'Done' }).first().waitFor({ timeout: 30_000 });
    t.deepEqual(refreshes, [200], 'one renewal');
  } finally {
    await context.close();
  }
});

test.serial('requests: the XSRF header goes with a POST, an expired access token is refreshed and the request retried, a lost session leads to sign-in', async (t) => {
  const { context, page } = await userPage();
  try {
    await page.goto('/');
    await page.getByText('Costs', { exact: false }).waitFor();
    await page.getByLabel('Template').selectOption(solidId);
    await page.getByLabel(/^Prompt/).fill('a real job');
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/v1/generate') && response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    t.is((await answered).status(), 202, 'the POST carried its XSRF token');
    await page.locator('.jobs li').first().waitFor();
    t.is(await page.locator('form p.status').textContent(), '', 'no error shown');

    // The access token is gone (expired), the refresh token is not: the page carries on.
    await context.clearCookies({ name: 'access_token' });
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.locator('[aria-label="Outputs"] li').first().waitFor();
    t.is(new URL(page.url()).pathname, '/history');

    // Both gone: the next request finds the session over, and the page asks to sign in again.
    await context.clearCookies();
    await page.getByRole('link', { name: 'Generate' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.is(new URL(page.url()).pathname + new URL(page.url()).search, '/login?next=%2F');
  } finally {
    await context.close();
  }
});

test.serial('the Generate form: a refusal shows its message and details, a bare error its status text; a template the balance cannot pay is refused', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await jobsList(page, []);
    const sent: Record<string, unknown>[] = [];
    const answers: { status: number; json?: unknown }[] = [
      { status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'Invalid parameters', details: [{ field: 'parameters.steps', message: 'must be at most 50' }] } },
      { status: 502 },
    ];
    await page.route('**/api/v1/generate', (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      sent.push(route.request().postDataJSON() as Record<string, unknown>);
      const answer = answers.shift()!;
      return answer.json ? route.fulfill({ status: answer.status, json: answer.json }) : route.fulfill({ status: answer.status, body: '' });
    });
    await page.route('**/api/v1/templates', async (route) => {
      const response = await route.fetch();
      const templates = (await response.json()) as unknown[];
      await route.fulfill({
        response,
        json: [
          ...templates,
          {
            id: 'fake-form',
            name: 'Form check',
            description: null,
            category: 'text-to-image',
            cost: 1,
            outputType: 'image',
            parameters: [
              { key: 'prompt', label: 'Prompt', type: 'string', required: true },
              { key: 'style', label: 'Style', type: 'string' },
              { key: 'steps', label: 'Steps', type: 'integer', min: 1, max: 50 },
              { key: 'scale', label: 'Scale', type: 'enum', options: [1, 2, 4] },
              { key: 'sampler', label: 'Sampler', type: 'enum', options: ['euler', 'ddim'], required: true },
            ],
          },
          { id: 'fake-dear', name: 'Too dear', description: null, category: 'text-to-image', cost: 100_000, outputType: 'image', parameters: [] },
        ],
      });
    });
    await page.goto('/');
    const status = page.locator('form p.status');
    await page.getByLabel('Template').selectOption('fake-form');
    t.deepEqual(await page.getByLabel(/^Scale/).locator('option').allTextContents(), ['(default)', '1', '2', '4']);
    t.deepEqual(await page.getByLabel(/^Sampler/).locator('option').allTextContents(), ['euler', 'ddim'], 'a required choice has no "(default)"');
    await page.getByLabel(/^Prompt/).fill('checking the form');
    await page.getByLabel(/^Scale/).selectOption('2');
    await page.getByLabel(/^Sampler/).selectOption('ddim');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await status.filter({ hasText: 'Invalid parameters' }).waitFor();
    t.is(await status.textContent(), 'Invalid parameters: parameters.steps must be at most 50');
    // Empty fields are left out; a choice is sent as the option it is (a number here).
    t.deepEqual(sent[0]!.parameters, { prompt: 'checking the form', scale: 2, sampler: 'ddim' });
    t.true(await page.getByRole('button', { name: 'Generate', exact: true }).isEnabled());

    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await status.filter({ hasText: /\w/ }).waitFor();
    t.is(await status.textContent(), 'Bad Gateway');

    await page.getByLabel('Template').selectOption('fake-dear');
    await status.filter({ hasText: 'Not enough coins for this template.' }).waitFor();
    t.true(await page.getByRole('button', { name: 'Generate', exact: true }).isDisabled());
    t.is(sent.length, 2);
  } finally {
    await context.close();
  }
});

test.serial('history: pages bound the pager, a page past the end shows the last one, delete asks to confirm and shows a refusal', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    const pages: Record<number, ReturnType<typeof output>[]> = {
      1: [output('first', { templateName: null, templateId: 'deleted-template', sizeBytes: 1025 }), output('second', { templateName: null, templateId: null })],
      2: [output('third')],
    };
    const deletes: string[] = [];
    await page.route(/\/api\/v1\/my-outputs\?/, (route) => {
      const asked = Number(new URL(route.request().url()).searchParams.get('page'));
      const items = pages[asked] ?? [];
      return route.fulfill({ json: { items, page: asked, limit: 12, total: 3, totalPages: 2 } });
    });
    await page.route(/\/api\/v1\/my-outputs\/[^/?]+$/, (route) => {
      if (route.request().method() !== 'DELETE') return route.fallback();
      deletes.push(route.request().url());
      return route.fulfill({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'This output is being published.' } });
    });
    await page.goto('/history?page=7');
    await page.getByText('Page 2 of 2').waitFor();
    t.is(await page.locator('[aria-label="Outputs"] li.tile').count(), 1, 'the last page, not an empty one');
    t.true(await page.getByRole('button', { name: 'Next' }).isDisabled());
    t.true(await page.getByRole('button', { name: 'Previous' }).isEnabled());
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Page 1 of 2').waitFor();
    t.true(await page.getByRole('button', { name: 'Previous' }).isDisabled());
    t.true(await page.getByRole('button', { name: 'Next' }).isEnabled());

    const first = page.locator('li.tile[data-output="first"]');
    t.is(await first.locator('.tile-title').textContent(), 'Deleted template');
    t.is(await page.locator('li.tile[data-output="second"] .tile-title').textContent(), 'Raw workflow');
    t.is(await first.getByText(/KiB$/).textContent(), 'first.png · 2 KiB');
    await first.getByText('Parameters').click();
    t.deepEqual(await first.locator('dt').allTextContents(), ['width'], 'the prompt has its own line, not a parameter row');

    const remove = first.getByRole('button', { name: /Delete first.png$/ });
    await remove.click();
    await first.getByRole('button', { name: /^Confirm delete/ }).waitFor();
    await sleep(200);
    t.deepEqual(deletes, [], 'one click only asks to confirm');
    await first.getByRole('button', { name: /^Confirm delete/ }).click();
    await page.getByRole('status').filter({ hasText: 'This output is being published.' }).waitFor();
    t.is(deletes.length, 1);
    t.true(await first.getByRole('button', { name: /^Confirm delete/ }).isEnabled(), 'the user can try again');
  } finally {
    await context.close();
  }
});

test.serial('outputs: a sound gets an audio player and a video a video player, not an image', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    const items = [
      output('sound', { mimeType: 'audio/flac', fileName: 'sound.flac', viewUrl: '/missing/sound.flac', width: null, height: null }),
      output('clip', { mimeType: 'video/mp4', fileName: 'clip.mp4', viewUrl: '/missing/clip.mp4' }),
    ];
    await page.route(/\/api\/v1\/my-outputs\?/, (route) => route.fulfill({ json: { items, page: 1, limit: 12, total: 2, totalPages: 1 } }));
    await page.goto('/history');
    await page.locator('li.tile[data-output="clip"]').waitFor();
    const tile = (id: string) => page.locator(`li.tile[data-output="${id}"]`);
    t.deepEqual([await tile('sound').locator('audio').count(), await tile('sound').locator('video, img').count()], [1, 0], 'the sound');
    t.deepEqual([await tile('clip').locator('video').count(), await tile('clip').locator('audio, img').count()], [1, 0], 'the video');
  } finally {
    await context.close();
  }
});

// Ctrl and Shift: a new tab or window, the page stays. (Meta opens nothing on Linux: the browser follows the link.)
test.serial("the page's links: a click with Ctrl or Shift is left to the browser, a plain click moves within the page, a click on the page shown adds no step to Back", async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await jobsList(page, []);
    await page.goto('/');
    const history = page.locator('a[data-link][href="/history"]').first();
    await history.waitFor();
    for (const modifier of ['Control', 'Shift'] as const) {
      await history.click({ modifiers: [modifier] });
      await sleep(300);
      t.is(new URL(page.url()).pathname, '/', `${modifier}+click`);
    }
    await history.click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    t.is(new URL(page.url()).pathname, '/history');
    // The same link again: the page is drawn again, and Back still leads to the page before it.
    await history.click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    t.is(new URL(page.url()).pathname, '/');
  } finally {
    await context.close();
  }
});

test.serial('signing out closes the socket and opens no other', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page, { answerCloses: true });
    await jobsList(page, []);
    await page.goto('/');
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await until(() => socket.closed.length === 1, 'the socket closed');
    await sleep(1_500);
    t.deepEqual(socket.closed, [1000]);
    t.is(socket.connections.length, 1, 'no connection after signing out');
  } finally {
    await context.close();
  }
});

test.serial('a refusal that comes back after signing out leaves the sign-in page as it is', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await jobsList(page, []);
    // The Generate page's templates are still on their way when the user signs out; they come back refused.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    await page.route('**/api/v1/templates', async (route) => {
      asked = true;
      await released;
      await route.fulfill({ status: 401, json: { statusCode: 401, error: 'Unauthorized', message: 'Sign in (test)' } });
    });
    await page.goto('/');
    await until(() => asked, 'the templates asked for');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('typed@example.com');
    const refreshed = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/refresh'));
    release();
    t.is((await refreshed).status(), 401, 'the session is gone');
    await sleep(500);
    t.is(new URL(page.url()).pathname + new URL(page.url()).search, '/login');
    t.is(await page.getByLabel('Email').inputValue(), 'typed@example.com', 'what the user typed is kept');
  } finally {
    await context.close();
  }
});

test.serial('queue position: an update without one keeps the last; a running job shows none', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    await jobsList(page, [job('waiting', 'queued', 0), job('busy', 'running', 0, { position: 2 })]);
    await page.goto('/');
    await row(page, 'busy').waitFor();
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    const queueOf = (id: string) => row(page, id).locator('.job-queue');
    socket.send({ type: 'job.queue', jobId: 'waiting', seq: 1, position: 3 });
    await queueOf('waiting').filter({ hasText: 'position 3' }).waitFor();
    socket.send({ type: 'job.queue', jobId: 'waiting', seq: 2, etaSeconds: 90 });
    await queueOf('waiting').filter({ hasText: 'done in about' }).waitFor();
    t.regex((await queueOf('waiting').textContent()) ?? '', /^position 3, done in about/);
    t.notRegex((await queueOf('busy').textContent()) ?? '', /position/);
  } finally {
    await context.close();
  }
});

test.serial("a publishing event names its output's job: the jobs panel neither fetches nor shows that job", async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    await jobsList(page, [job('here', 'running', 0)]);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/^\/api\/v1\/generate\/[^/]+$/.test(new URL(request.url()).pathname)) asked.push(new URL(request.url()).pathname);
    });
    await page.goto('/');
    await row(page, 'here').waitFor();
    await until(() => socket.sent[0]?.length === 1, 'the first sync');
    socket.send({ type: 'publish.completed', jobId: 'published-long-ago', seq: 1, outputId: 'o1', platform: 'YOUTUBE', url: 'https://example.com/v' });
    socket.send({ type: 'publish.failed', jobId: 'here', seq: 2, outputId: 'o2', platform: 'TIKTOK', error: 'quota' });
    socket.send({ type: 'job.status', jobId: 'here', seq: 3, text: 'Still here' });
    await statusOfRow(page, 'here').filter({ hasText: 'Still here' }).waitFor();
    await sleep(300);
    t.deepEqual(asked, []);
    t.is(await row(page, 'published-long-ago').count(), 0);
  } finally {
    await context.close();
  }
});

test.serial('sign-in follows a local next, never one to another site', async (t) => {
  for (const [next, expected] of [
    ['/history', '/history'],
    ['//example.org/phish', '/'],
    // A browser reads the backslash as a slash: another site too (before, pushState threw and the form said the
    // service could not be reached, although the user was signed in).
    ['/\\example.org/phish', '/'],
  ] as const) {
    const context = await browser.newContext({ baseURL: app.app.config.publicUrl });
    try {
      const page = await context.newPage();
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: expected === '/' ? 'Generate' : 'History' }).waitFor();
      t.is(new URL(page.url()).origin, app.app.config.publicUrl.replace(/\/$/, ''));
      t.is(new URL(page.url()).pathname, expected);
    } finally {
      await context.close();
    }
  }
});
