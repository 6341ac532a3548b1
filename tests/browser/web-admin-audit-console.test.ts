import test from 'ava';
import { ADMIN, pageOf, refusal, setUp, until } from './web-admin-audit-support.ts';

// The admin console's guards (web/src/pages/admin-console.ts) (tests/mutation/mutations/web-admin.mutations.ts).
setUp();

// ---------------------------------------------------------------------------------------------------------------
// The admin console, with the server's answers the test's own.

test.serial('fleet: healthy and down servers, unknown counts, VRAM and models; a failed load says why', async (t) => {
  await pageOf(ADMIN, async (page) => {
    let answer: 'ok' | 'refused' | 'unreachable' = 'ok';
    await page.route('**/api/v1/admin/fleet', (route) => {
      if (answer === 'refused') return route.fulfill(refusal(503, 'The fleet is being probed (test).'));
      if (answer === 'unreachable') return route.abort();
      return route.fulfill({
        json: {
          jobs: { queued: 3, running: 1 },
          servers: [
            { server: 0, name: 'gpu-a', healthy: true, error: null, running: 1, waiting: 0, version: '1', devices: [{ name: 'cuda:0', vramTotalMiB: 24000, vramFreeMiB: 8000 }], models: { ckpt_name: ['a.safetensors', 'b.safetensors'] } },
            { server: 1, name: 'gpu-b', healthy: false, error: null, running: null, waiting: null, version: null, devices: [], models: {} },
            { server: 2, name: 'gpu-c', healthy: false, error: 'connection refused', running: null, waiting: null, version: null, devices: [], models: {} },
          ],
        },
      });
    });
    await page.goto('/admin/fleet');
    await page.getByRole('rowheader', { name: 'gpu-a' }).waitFor();
    const cells = (name: string) => page.getByRole('row', { name: new RegExp(name) }).getByRole('cell').allTextContents();
    t.deepEqual(await cells('gpu-a'), ['Healthy', '1', '0', 'cuda:0: 8000 of 24000 MiB free', 'ckpt_name: a.safetensors, b.safetensors']);
    t.deepEqual(await cells('gpu-b'), ['Down: no answer', '—', '—', '—', '—']);
    t.is((await cells('gpu-c'))[0], 'Down: connection refused');
    await page.getByText('3 jobs queued, 1 running.').waitFor();

    answer = 'refused';
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').filter({ hasText: 'The fleet is being probed (test).' }).waitFor();
    t.is(await page.getByRole('status').getAttribute('class'), 'status error');
    answer = 'unreachable';
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').filter({ hasText: 'Could not load the fleet.' }).waitFor();
  });
});

test.serial('queue: waiting counts, an incomplete list, a dead letter without a job or reason; discard deletes, a refused redrive says why', async (t) => {
  await pageOf(ADMIN, async (page) => {
    let complete = false;
    const actions: string[] = [];
    await page.route(/\/api\/v1\/admin\/queue\?/, (route) =>
      route.fulfill({ json: complete ? { messages: [], waiting: {}, complete } : { messages: [{ id: 'w1', taskType: 'generate', environment: 'test', jobId: 'job-w1', userId: null, summary: 's', reason: null }], waiting: { generate: 51, social: 2 }, complete } }),
    );
    await page.route(/\/api\/v1\/admin\/dead-letters\?/, (route) =>
      route.fulfill({ json: { items: [{ id: 'd1', taskType: 'social', environment: 'test', jobId: null, userId: null, summary: 'post to mastodon', reason: null }] } }),
    );
    await page.route(/\/api\/v1\/admin\/dead-letters\/d1(\/redrive)?$/, (route) => {
      actions.push(`${route.request().method()} ${new URL(route.request().url()).pathname}`);
      return route.request().method() === 'DELETE' ? route.fulfill({ status: 204, body: '' }) : route.fulfill(refusal(409, 'The message is being redriven (test).'));
    });
    await page.goto('/admin/queue');
    await page.getByText('Waiting: generate: 51, social: 2 (the first 50 shown; more wait).').waitFor();
    t.deepEqual(await page.getByRole('row', { name: /w1/ }).getByRole('cell').allTextContents(), ['w1', 'generate', 'job-w1']);
    t.deepEqual(await page.getByRole('row', { name: /d1/ }).getByRole('cell').allTextContents(), ['d1', 'social', 'post to mastodon', '—', 'RedriveDiscard']);

    await page.getByRole('button', { name: 'Redrive message d1' }).click();
    await page.getByRole('status').filter({ hasText: 'The message is being redriven (test).' }).waitFor();
    t.is(await page.getByRole('status').getAttribute('class'), 'status error');
    complete = true;
    await page.getByRole('button', { name: 'Discard message d1' }).click();
    await page.getByRole('status').filter({ hasText: 'Message d1 was discarded.' }).waitFor();
    t.is(await page.getByRole('status').getAttribute('class'), 'status');
    await page.getByText('Waiting: nothing.').waitFor();
    await page.getByRole('cell', { name: 'Nothing waits.' }).waitFor();
    t.deepEqual(actions, ['POST /api/v1/admin/dead-letters/d1/redrive', 'DELETE /api/v1/admin/dead-letters/d1']);
  });
});

test.serial("jobs: a test run is marked, a user without an email by id; a new filter starts at page 1; a refused cancel says why", async (t) => {
  await pageOf(ADMIN, async (page) => {
    const asked: string[] = [];
    const adminJob = (id: string, extra: Record<string, unknown> = {}) => ({
      id, status: 'running', templateId: null, progress: { value: 1, max: 2 }, statusText: '', paidCoins: 3, testRun: false,
      createdAt: '2026-01-02T03:04:05.000Z', userId: `user-of-${id}`, userEmail: `${id}@example.com`, engineServer: 1, ...extra,
    });
    await page.route(/\/api\/v1\/admin\/jobs\?/, (route) => {
      const url = new URL(route.request().url());
      asked.push(`${url.searchParams.get('status')} ${url.searchParams.get('page')}`);
      const page_ = Number(url.searchParams.get('page'));
      return route.fulfill({
        json: { items: [adminJob(`j${page_}`, page_ === 1 ? { testRun: true, userEmail: null } : {})], page: page_, limit: 25, total: 26, totalPages: 2 },
      });
    });
    await page.route('**/api/v1/admin/jobs/j2/cancel', (route) => route.fulfill(refusal(409, 'The job has ended already (test).')));
    await page.goto('/admin/jobs');
    const first = page.getByRole('row', { name: /user-of-j1/ });
    await first.waitFor();
    const cells = await first.getByRole('cell').allTextContents();
    t.deepEqual(cells.slice(1), ['user-of-j1', 'running (test run)', '', '3', 'server 1', 'Cancel']);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('row', { name: /j2@example\.com/ }).getByRole('cell', { name: 'running', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Cancel job j2 of j2@example.com' }).click();
    await page.getByRole('status').filter({ hasText: 'The job has ended already (test).' }).waitFor();
    t.is(await page.getByRole('status').getAttribute('class'), 'status error');
    await page.getByLabel('Show').selectOption('queued');
    await until(() => asked.some((line) => line.startsWith('queued ')), 'the queued jobs asked for');
    t.deepEqual(asked.filter((line) => line.startsWith('queued ')), ['queued 1'], 'a new filter starts at its first page');
  });
});

test.serial('template health: a deleted template by id, failure rate in percent or a dash, run times in seconds; the window is asked for', async (t) => {
  await pageOf(ADMIN, async (page) => {
    const hours: string[] = [];
    await page.route(/\/api\/v1\/admin\/templates\/stats\?/, (route) => {
      hours.push(new URL(route.request().url()).searchParams.get('hours')!);
      return route.fulfill({
        json: {
          templates: [
            { templateId: 'tpl-1', name: 'Square', jobs: 8, succeeded: 7, failed: 1, cancelled: 0, failureRate: 0.125, p50RunMs: 1234, p95RunMs: 12_345 },
            { templateId: 'tpl-2', name: null, jobs: 0, succeeded: 0, failed: 0, cancelled: 0, failureRate: null, p50RunMs: null, p95RunMs: 9_999 },
          ],
        },
      });
    });
    await page.goto('/admin/template-health');
    await page.getByRole('rowheader', { name: 'Square' }).waitFor();
    t.deepEqual(await page.getByRole('row', { name: /^Square/ }).getByRole('cell').allTextContents(), ['8', '7', '1', '0', '13 %', '1.2 s', '12 s']);
    t.deepEqual(await page.getByRole('row', { name: /tpl-2/ }).locator('th, td').allTextContents(), ['tpl-2 (deleted)', '0', '0', '0', '0', '—', '—', '10.0 s']);
    await page.getByLabel('Window').selectOption('168');
    await until(() => hours.includes('168'), 'the week asked for');
    t.is(hours[0], '24');
  });
});
