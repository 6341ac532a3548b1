import test from 'ava';
import type { Route } from 'playwright-core';
import { ADMIN, fakeSocket, pageOf, refusal, setUp, template, until } from './web-admin-audit-support.ts';
import { fakeOutput } from './browser-support.ts';

// The guards of a test run's card (web/src/pages/template-test-run.ts) (tests/mutation/mutations/web-admin.mutations.ts).
setUp();

// ---------------------------------------------------------------------------------------------------------------
// A test run's card, followed on a socket the test plays the server of.

const runOutput = (id: string) => fakeOutput(id, { jobId: 'run-1' });

const fakeRun = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  status: 'queued',
  templateId: 't',
  templateVersion: 2,
  progress: { value: 0, max: 1 },
  statusText: null,
  outputs: [],
  textOutputs: [],
  usedParameters: {},
  error: null,
  refundedCoins: 0,
  paidCoins: 0,
  testRun: true,
  createdAt: '2026-01-02T03:04:05.000Z',
  updatedAt: '2026-01-02T03:04:05.000Z',
  ...extra,
});

test.serial("a test run's card: early events kept, other jobs' events ignored, progress, a refused cancel, its ending and outputs; the recent runs as the server lists them", async (t) => {
  await template('Card square');
  await pageOf(ADMIN, async (page) => {
    const socket = await fakeSocket(page);
    let runs: unknown[] = [
      fakeRun('old-failed', { status: 'failed', templateVersion: null, error: { code: 'ENGINE', message: 'out of memory (test)' } }),
      fakeRun('old-text', { status: 'succeeded', textOutputs: [{ nodeId: '4', text: 'one' }, { nodeId: '5', text: 'two' }] }),
    ];
    await page.route(/\/api\/v1\/admin\/templates\/[^/]+\/test-runs$/, async (route: Route) => {
      if (route.request().method() === 'GET') return route.fulfill({ json: runs });
      // Its first events come before the 202.
      socket.send({ type: 'job.started', jobId: 'run-1' });
      socket.send({ type: 'job.progress', jobId: 'run-1', value: 1, max: 4 });
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
      return route.fulfill({ status: 202, json: fakeRun('run-1') });
    });
    await page.route('**/api/v1/generate/run-1/cancel', (route) => route.fulfill(refusal(409, 'This job has already ended (test).')));
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Test run Card square' }).click();
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Test run of Card square' }) });
    const recent = card.getByRole('list', { name: 'Recent test runs of Card square' });
    await recent.locator('li[data-job-id="old-failed"]').waitFor();
    const failed = recent.locator('li[data-job-id="old-failed"]');
    t.regex((await failed.locator('strong').textContent())!, /, version \?$/);
    t.is(await failed.locator('.hint.error').textContent(), 'out of memory (test)');
    t.is(await failed.locator('.job-prompt').count(), 0);
    t.is(await recent.locator('li[data-job-id="old-text"] .job-prompt').textContent(), 'one · two');
    t.is(await recent.locator('li[data-job-id="old-text"] .hint.error').count(), 0);
    t.notRegex((await recent.textContent())!, /null|undefined|false/, 'nothing absent is written out');
    await until(() => socket.connections.length > 0);

    const start = card.getByRole('button', { name: 'Start test run' });
    await card.getByLabel('prompt (required)').fill('a square');
    await start.click();
    const line = card.locator('.job-status');
    await line.filter({ hasText: /^Running$/ }).waitFor();
    const bar = card.locator('progress');
    t.deepEqual(await bar.evaluate((el) => [(el as HTMLProgressElement).value, (el as HTMLProgressElement).max]), [1, 4], 'the early progress counts');
    t.true(await start.isDisabled(), 'no second run while one runs');
    t.true(await card.getByRole('button', { name: 'Cancel test run' }).isVisible());

    // Another job's ending is not this run's.
    socket.send({ type: 'job.completed', jobId: 'someone-else', outputs: [runOutput('not-mine')] });
    socket.send({ type: 'job.status', jobId: 'run-1', text: 'Sampling' });
    await line.filter({ hasText: /^Sampling$/ }).waitFor();
    t.is(await card.getByRole('list', { name: 'Outputs of this test run' }).count(), 0);
    socket.send({ type: 'job.progress', jobId: 'run-1', value: 3, max: 4 });
    await page.waitForFunction(() => (document.querySelector('section.card progress') as HTMLProgressElement).value === 3);

    await card.getByRole('button', { name: 'Cancel test run' }).click();
    await card.locator('p[role="status"]').filter({ hasText: 'This job has already ended (test).' }).waitFor();
    t.false(await card.getByRole('button', { name: 'Cancel test run' }).isDisabled(), 'Cancel can be pressed again');

    runs = [fakeRun('run-1', { status: 'succeeded', outputs: [runOutput('out-a'), runOutput('out-b')] }), ...runs];
    socket.send({ type: 'job.completed', jobId: 'run-1', outputs: [runOutput('out-a'), runOutput('out-b')] });
    await line.filter({ hasText: /^Done: 2 outputs\.$/ }).waitFor();
    t.deepEqual(await bar.evaluate((el) => [(el as HTMLProgressElement).value, (el as HTMLProgressElement).max]), [4, 4]);
    t.is(await card.getByRole('list', { name: 'Outputs of this test run' }).getByRole('listitem').count(), 2);
    t.false(await start.isDisabled(), 'a new run can start');
    t.true(await card.getByRole('button', { name: 'Cancel test run' }).isHidden());
    await recent.locator('li[data-job-id="run-1"]').waitFor();

    // A late event of the ended run changes nothing.
    socket.send({ type: 'job.failed', jobId: 'run-1', error: { message: 'late' } });
    socket.send({ type: 'job.completed', jobId: 'someone-else', outputs: [] });
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    t.is(await line.textContent(), 'Done: 2 outputs.');
  });
});

test.serial("a test run's endings: failed with its reason, cancelled, expired, one output; a refused start is shown and Start comes back", async (t) => {
  await template('Ending square');
  await pageOf(ADMIN, async (page) => {
    const socket = await fakeSocket(page);
    let next = 0;
    let refuse = false;
    await page.route(/\/api\/v1\/admin\/templates\/[^/]+\/test-runs$/, (route: Route) => {
      if (route.request().method() === 'GET') return route.fulfill({ json: [] });
      if (refuse) return route.fulfill(refusal(409, 'The template has no workflow (test).'));
      return route.fulfill({ status: 202, json: fakeRun(`end-${++next}`) });
    });
    await page.goto('/admin/templates');
    await page.getByRole('button', { name: 'Test run Ending square' }).click();
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Test run of Ending square' }) });
    await card.getByText('No test runs yet.').waitFor();
    await until(() => socket.connections.length > 0);
    await card.getByLabel('prompt (required)').fill('a square');
    const start = card.getByRole('button', { name: 'Start test run' });
    const line = card.locator('.job-status');
    const endings: [Record<string, unknown>, string][] = [
      [{ type: 'job.failed', error: { message: 'the engine crashed (test)' } }, 'Failed: the engine crashed (test)'],
      [{ type: 'job.failed' }, 'Failed: unknown error'],
      [{ type: 'job.cancelled' }, 'Cancelled.'],
      [{ type: 'job.expired' }, 'Expired before it started.'],
      [{ type: 'job.completed', outputs: [runOutput('single')] }, 'Done: 1 output.'],
    ];
    for (const [event, shown] of endings) {
      await start.click();
      await line.filter({ hasText: /^Queued$/ }).waitFor();
      socket.send({ ...event, jobId: `end-${next}` });
      await line.filter({ hasText: new RegExp(`^${shown.replace(/[.()]/g, '\\$&')}$`) }).waitFor();
      t.false(await start.isDisabled(), `Start is back after: ${shown}`);
    }
    refuse = true;
    await start.click();
    await card.locator('p[role="status"]').filter({ hasText: 'The template has no workflow (test).' }).waitFor();
    t.false(await start.isDisabled());
  });
});


