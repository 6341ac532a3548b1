import test from 'ava';
import type { Browser, Page, Route } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { fakeOutput, fakeSocket, launchChromium, signedInPage, sleep, until } from './browser-support.ts';

// The History page's guards (tests/mutation/mutations/web-user-history.mutations.ts), against the real application
// (SQLite): the outputs, templates, features and publications are the test's own (page.route) so that every state is
// shown on demand; the socket is played by the test. View URLs live 3 s here (VIEW_URL_TTL), to show one expire.
const PASSWORD = 'correct horse battery';

let app: TestApp;
let browser: Browser;
let solidId: string;

test.before(async () => {
  app = await startTestApp('sqlite', { VIEW_URL_TTL: '3' });
  browser = await launchChromium();
  const client = app.client();
  await client.signUp({ email: `history-${Date.now()}@example.com`, password: PASSWORD });
  const templates = (await client.get('/templates')).body as { id: string; name: string }[];
  solidId = templates.find((template) => template.name === 'Solid colour image')!.id;
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

/** A page of a user of its own, signed in. */
const userPage = () => signedInPage(browser, app.app.config.publicUrl, { prefix: 'history', password: PASSWORD, displayName: 'History User', timeoutMs: 10_000 });

type Output = ReturnType<typeof fakeOutput>;

/** The outputs the page lists (GET /my-outputs), the test's own and changeable; `asked` is every page asked for. */
async function outputs(page: Page, pages: Record<number, Output[]>, totalPages: number): Promise<{ pages: Record<number, Output[]>; totalPages: number; asked: string[] }> {
  const state = { pages, totalPages, asked: [] as string[] };
  await page.route(/\/api\/v1\/my-outputs\?/, (route) => {
    const asked = new URL(route.request().url()).searchParams.get('page')!;
    state.asked.push(asked);
    const items = state.pages[Number(asked)] ?? [];
    const total = Object.values(state.pages).flat().length;
    return route.fulfill({ json: { items, page: Number(asked), limit: 12, total, totalPages: state.totalPages } });
  });
  return state;
}

/** The server's features, with the social platforms the test chooses. */
async function platforms(page: Page, list: string[]): Promise<void> {
  await page.route('**/api/v1/features', async (route) => {
    const response = await route.fetch();
    const features = (await response.json()) as Record<string, unknown>;
    await route.fulfill({ response, json: { ...features, socialPlatforms: list } });
  });
}

const tile = (page: Page, id: string) => page.locator(`li.tile[data-output="${id}"]`);
const statusLine = (page: Page) => page.locator('main p.status');

test.serial('history: a page number that is none reads page 1, no outputs says so, the pager writes its page into the address', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    const state = await outputs(page, {}, 0);
    await page.goto('/history?page=-3');
    await page.locator('[aria-label="Outputs"] li').filter({ hasText: 'Nothing yet' }).waitFor();
    t.deepEqual(await page.locator('[aria-label="Outputs"] li').allTextContents(), ['Nothing yet: generate something first.']);
    t.deepEqual(state.asked, ['1'], 'a negative page asks for page 1');
    t.is(await page.locator('nav.pager span').textContent(), 'Page 1 of 1');
    t.true(await page.getByRole('button', { name: 'Next' }).isDisabled());
    t.true(await page.getByRole('button', { name: 'Previous' }).isDisabled());

    await page.goto('/history?page=abc');
    await page.getByText('Nothing yet: generate something first.').waitFor();
    t.deepEqual(state.asked, ['1', '1'], 'a page that is no number asks for page 1');

    state.pages = { 1: [fakeOutput('on-one')], 2: [fakeOutput('on-two')] };
    state.totalPages = 2;
    await page.goto('/history');
    await tile(page, 'on-one').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await tile(page, 'on-two').waitFor();
    t.is(new URL(page.url()).pathname + new URL(page.url()).search, '/history?page=2');
    await page.reload();
    await tile(page, 'on-two').waitFor();
    t.is(await page.locator('nav.pager span').textContent(), 'Page 2 of 2', 'a reload stays on the page shown');
  } finally {
    await context.close();
  }
});

test.serial('history: a tile: Remix only for a known template, parameters by their label, colours as swatches, an input image by name', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await page.route('**/api/v1/templates', async (route) => {
      const response = await route.fetch();
      const templates = (await response.json()) as unknown[];
      await route.fulfill({
        response,
        json: [
          ...templates,
          {
            id: 'fake-remix',
            name: 'Remix check',
            description: null,
            category: 'text-to-image',
            cost: 1,
            outputType: 'image',
            parameters: [
              { key: 'prompt', label: 'Prompt', type: 'string', required: true },
              { key: 'background_colour', label: 'Background', type: 'integer', min: 0, max: 16777215 },
              { key: 'colour_steps', label: 'Colour steps', type: 'integer', min: 1, max: 8 },
              { key: 'source', label: 'Source image', type: 'image' },
              { key: 'steps', label: 'Steps', type: 'integer', min: 1, max: 50 },
            ],
          },
        ],
      });
    });
    await outputs(
      page,
      {
        1: [
          fakeOutput('known', {
            templateId: 'fake-remix',
            templateName: 'Remix check',
            usedParameters: { prompt: 'a red door', background_colour: 0xff0000, colour_steps: 4, source: 'upload-1', steps: 20 },
          }),
          fakeOutput('raw', { usedParameters: { prompt: 'raw', color: 255 } }),
          fakeOutput('gone', { templateId: 'deleted-template', usedParameters: { prompt: 'gone' } }),
        ],
      },
      1,
    );
    await page.goto('/history');
    const known = tile(page, 'known');
    await known.waitFor();
    t.is(
      await known.getByRole('link', { name: /^Remix/ }).getAttribute('href'),
      '/?template=fake-remix&parameters=%7B%22prompt%22%3A%22a+red+door%22%2C%22background_colour%22%3A16711680%2C%22colour_steps%22%3A4%2C%22source%22%3A%22upload-1%22%2C%22steps%22%3A20%7D',
    );
    t.is(await tile(page, 'raw').getByRole('link', { name: /^Remix/ }).count(), 0, 'no template, no Remix');
    t.is(await tile(page, 'gone').getByRole('link', { name: /^Remix/ }).count(), 0, 'a template no longer offered, no Remix');
    t.is(await tile(page, 'gone').locator('details.params').count(), 0, 'a prompt alone makes no Parameters list');

    await known.getByText('Parameters').click();
    t.deepEqual(await known.locator('dt').allTextContents(), ['Background', 'Colour steps', 'Source image', 'Steps']);
    t.deepEqual(await known.locator('dd').allTextContents(), ['#ff0000', '4', 'an input image', '20']);
    t.is(await known.locator('.swatch').count(), 1);
    t.is(await known.locator('.swatch').evaluate((swatch: HTMLElement) => swatch.style.backgroundColor), 'rgb(255, 0, 0)');

    const raw = tile(page, 'raw');
    await raw.getByText('Parameters').click();
    t.deepEqual(await raw.locator('dt').allTextContents(), ['color']);
    t.deepEqual(await raw.locator('dd').allTextContents(), ['#0000ff'], 'without a template a number named colour is a colour');
    t.is(await raw.locator('.swatch').count(), 1);

    await raw.getByRole('button', { name: /^View/ }).click();
    t.regex((await page.getByRole('dialog').getByRole('heading').textContent())!, /^Output: raw, made /);
    await page.keyboard.press('Escape');
    await known.getByRole('button', { name: /^View/ }).click();
    t.regex((await page.getByRole('dialog').getByRole('heading').textContent())!, /^Remix check: a red door, made /);
  } finally {
    await context.close();
  }
});

test.serial('history: delete: the button is disabled while it runs, then says so and reads the list again; a network failure says Delete failed', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    const state = await outputs(page, { 1: [fakeOutput('first'), fakeOutput('second')] }, 1);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const deletes: string[] = [];
    await page.route(/\/api\/v1\/my-outputs\/[^/?]+$/, async (route: Route) => {
      if (route.request().method() !== 'DELETE') return route.fallback();
      const id = route.request().url().split('/').at(-1)!;
      deletes.push(id);
      if (id === 'second') return route.abort('connectionrefused');
      await held;
      state.pages = { 1: [fakeOutput('second')] };
      return route.fulfill({ status: 204, body: '' });
    });
    await page.goto('/history');
    const first = tile(page, 'first');
    await first.getByRole('button', { name: /^Delete/ }).click();
    await first.getByRole('button', { name: /^Confirm delete/ }).click();
    await until(() => deletes.length === 1, 'the DELETE');
    t.true(await first.getByRole('button', { name: /^Confirm delete/ }).isDisabled(), 'no second DELETE while the first runs');
    const reads = state.asked.length;
    release();
    await statusLine(page).filter({ hasText: 'deleted' }).waitFor();
    t.is(await statusLine(page).textContent(), 'first.png deleted.');
    await first.waitFor({ state: 'detached' });
    t.is(state.asked.length, reads + 1, 'the list is read again');

    const second = tile(page, 'second');
    await second.getByRole('button', { name: /^Delete/ }).click();
    await second.getByRole('button', { name: /^Confirm delete/ }).click();
    await statusLine(page).filter({ hasText: 'failed' }).waitFor();
    t.is(await statusLine(page).textContent(), 'Delete failed.');
    t.deepEqual(deletes, ['first', 'second']);
  } finally {
    await context.close();
  }
});

test.serial('history: Download fetches a fresh link and downloads it under the file name, leaving no link behind', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await outputs(page, { 1: [fakeOutput('first')] }, 1);
    const asked: string[] = [];
    await page.route('**/api/v1/my-outputs/first/download-url', (route) => {
      asked.push(route.request().url());
      return route.fulfill({ json: { downloadUrl: '/dl/signed-first' } });
    });
    await page.route('**/dl/signed-first', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: 'not really a png' }));
    await page.goto('/history');
    const downloading = page.waitForEvent('download', { timeout: 10_000 });
    await tile(page, 'first').getByRole('button', { name: /^Download/ }).click();
    const download = await downloading;
    t.is(download.suggestedFilename(), 'first.png');
    t.true(download.url().endsWith('/dl/signed-first'));
    t.is(asked.length, 1);
    t.is(await page.locator('a[download]').count(), 0, 'the helper link is gone');
    t.is(new URL(page.url()).pathname, '/history', 'the page stays');
  } finally {
    await context.close();
  }
});

test.serial('fixed fault history: a refused download link (the output expired or was deleted meanwhile) is not shown', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await outputs(page, { 1: [fakeOutput('first')] }, 1);
    await page.route('**/api/v1/my-outputs/first/download-url', (route) =>
      route.fulfill({ status: 404, json: { statusCode: 404, error: 'Not Found', message: 'Output not found' } }),
    );
    await page.goto('/history');
    await tile(page, 'first').getByRole('button', { name: /^Download/ }).click();
    await statusLine(page).filter({ hasText: /\w/ }).waitFor({ timeout: 3_000 }).catch(() => undefined);
    t.is(await statusLine(page).textContent(), 'Output not found');
  } finally {
    await context.close();
  }
});

test.serial('history: publishing: videos only, each platform with its state, a publish says so and reads the state again, events of the page only', async (t) => {
  const { context, page } = await userPage();
  try {
    const socket = await fakeSocket(page);
    await platforms(page, ['YOUTUBE', 'TIKTOK']);
    const video = (id: string) => fakeOutput(id, { mimeType: 'video/mp4', viewUrl: `/missing/${id}.mp4`, fileName: `${id}.mp4` });
    await outputs(page, { 1: [video('clip'), fakeOutput('still')], 2: [video('clip2')] }, 2);
    const updatedAt = new Date().toISOString();
    const publications: Record<string, unknown[]> = {
      clip: [{ platform: 'YOUTUBE', status: 'failed', error: 'quota exceeded', updatedAt }],
      clip2: [],
    };
    const reads: Record<string, number> = {};
    await page.route(/\/api\/v1\/my-outputs\/[^/?]+\/publications$/, (route) => {
      const id = route.request().url().split('/').at(-2)!;
      reads[id] = (reads[id] ?? 0) + 1;
      return route.fulfill({ json: publications[id] ?? [] });
    });
    const bodies: unknown[] = [];
    const answers: ((route: Route) => Promise<void>)[] = [
      (route) => {
        publications.clip = [...publications.clip!, { platform: 'TIKTOK', status: 'pending', updatedAt }];
        return route.fulfill({ status: 202, json: { message: 'Publishing to TikTok started.' } });
      },
      (route) => route.fulfill({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'TikTok is not connected.' } }),
      (route) => route.abort('connectionrefused'),
    ];
    await page.route('**/api/v1/my-outputs/clip/publish', (route) => {
      bodies.push(route.request().postDataJSON());
      return answers.shift()!(route);
    });
    await page.goto('/history');
    const clip = tile(page, 'clip');
    const lines = clip.locator('.publications span');
    await lines.first().waitFor();
    t.is(await tile(page, 'still').getByRole('button', { name: 'Publish' }).count(), 0, 'an image is not published');
    t.deepEqual(await lines.allTextContents(), ['YouTube: failed (quota exceeded)']);
    t.is(await lines.first().getAttribute('class'), 'hint error');

    await clip.getByLabel('Publish clip.mp4 to').selectOption('TIKTOK');
    await clip.getByRole('button', { name: 'Publish' }).click();
    await statusLine(page).filter({ hasText: 'started' }).waitFor();
    t.is(await statusLine(page).textContent(), 'Publishing to TikTok started.');
    t.deepEqual(bodies, [{ platforms: ['TIKTOK'] }]);
    await lines.nth(1).waitFor();
    t.deepEqual(await lines.allTextContents(), ['YouTube: failed (quota exceeded)', 'TikTok: pending']);
    t.is(await lines.nth(1).getAttribute('class'), 'hint');

    // The upload ends: its event shows the new state, with the post's link.
    publications.clip = [publications.clip![0], { platform: 'TIKTOK', status: 'published', url: 'https://example.org/v/1', updatedAt }];
    socket.send({ type: 'publish.failed', seq: 1, outputId: 'not-on-this-page', platform: 'YOUTUBE', error: 'x' });
    socket.send({ type: 'publish.completed', seq: 2, outputId: 'clip', platform: 'TIKTOK', url: 'https://example.org/v/1' });
    await lines.filter({ hasText: 'published' }).waitFor();
    t.deepEqual(await lines.allTextContents(), ['YouTube: failed (quota exceeded)', 'TikTok: published view post']);
    t.is(await lines.nth(1).getByRole('link', { name: 'view post' }).getAttribute('href'), 'https://example.org/v/1');
    t.false('not-on-this-page' in reads, 'an output not shown is not asked about');

    await clip.getByRole('button', { name: 'Publish' }).click();
    await statusLine(page).filter({ hasText: 'not connected' }).waitFor();
    t.is(await statusLine(page).textContent(), 'TikTok is not connected.');
    await clip.getByRole('button', { name: 'Publish' }).click();
    await statusLine(page).filter({ hasText: 'Publishing failed.' }).waitFor();
    t.is(await statusLine(page).textContent(), 'Publishing failed.');

    // Another page: events of the outputs no longer shown are not asked about.
    await page.getByRole('button', { name: 'Next' }).click();
    await tile(page, 'clip2').waitFor();
    await until(() => reads.clip2 === 1, 'the state of clip2');
    const clipReads = reads.clip;
    socket.send({ type: 'publish.completed', seq: 3, outputId: 'clip', platform: 'TIKTOK', url: 'https://example.org/v/1' });
    socket.send({ type: 'publish.failed', seq: 4, outputId: 'clip2', platform: 'YOUTUBE', error: 'x' });
    await until(() => reads.clip2 === 2, 'the state of clip2 read again');
    t.is(reads.clip, clipReads, 'clip is on the other page');

    // Another page of the site: the History page no longer listens, and leaves no viewer behind.
    await page.getByRole('link', { name: 'Generate' }).click();
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    socket.send({ type: 'publish.failed', seq: 5, outputId: 'clip2', platform: 'YOUTUBE', error: 'x' });
    await sleep(500);
    t.is(reads.clip2, 2, 'no longer listening');
    t.is(await page.locator('dialog.viewer').count(), 0, 'the viewer is gone with its page');
  } finally {
    await context.close();
  }
});

test.serial('fixed fault history: Publish pressed twice while the first request runs publishes twice', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await platforms(page, ['YOUTUBE']);
    await outputs(page, { 1: [fakeOutput('clip', { mimeType: 'video/mp4', viewUrl: '/missing/clip.mp4', fileName: 'clip.mp4' })] }, 1);
    await page.route(/\/api\/v1\/my-outputs\/clip\/publications$/, (route) => route.fulfill({ json: [] }));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let posts = 0;
    await page.route('**/api/v1/my-outputs/clip/publish', async (route) => {
      posts += 1;
      await held;
      await route.fulfill({ status: 202, json: { message: 'Publishing started.' } });
    });
    await page.goto('/history');
    const publish = tile(page, 'clip').getByRole('button', { name: 'Publish' });
    await publish.click();
    await until(() => posts === 1, 'the first publish');
    // A user who sees nothing happen presses again (the button stays enabled).
    await publish.click({ timeout: 2_000 }).catch(() => undefined);
    await sleep(500);
    release();
    await statusLine(page).filter({ hasText: 'Publishing started.' }).waitFor();
    t.is(posts, 1, 'one publish');
  } finally {
    await context.close();
  }
});

test.serial('the viewer: arrows in a focused video seek it rather than move, closing empties the stage (a video stops) and gives focus back', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    await outputs(page, { 1: [fakeOutput('picture'), fakeOutput('movie', { mimeType: 'video/mp4', viewUrl: '/missing/movie.mp4', fileName: 'movie.mp4' })] }, 1);
    await page.goto('/history');
    const view = tile(page, 'picture').getByRole('button', { name: /^View/ });
    await view.waitFor();
    t.is(await tile(page, 'movie').getByRole('button', { name: 'Publish' }).count(), 0, 'no social platform, no Publish');
    await view.click();
    const dialog = page.getByRole('dialog');
    const counter = dialog.getByText(/^Output \d+ of \d+$/);
    await page.keyboard.press('ArrowRight');
    t.is(await counter.textContent(), 'Output 2 of 2');
    await dialog.locator('video').focus();
    await page.keyboard.press('ArrowLeft');
    t.is(await counter.textContent(), 'Output 2 of 2', 'the arrow belongs to the video');
    await page.keyboard.press('ArrowRight');
    t.is(await counter.textContent(), 'Output 2 of 2', 'the arrow belongs to the video');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.is(await page.locator('dialog.viewer .viewer-stage').evaluate((stage) => stage.childElementCount), 0, 'nothing left playing');
    t.true(await view.evaluate((button) => document.activeElement === button), 'focus is back on the View button');
  } finally {
    await context.close();
  }
});

test.serial('fixed fault history: a delete that worked, followed by a list that could not be read again, is reported as failed', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    let reads = 0;
    await page.route(/\/api\/v1\/my-outputs\?/, (route) => {
      reads += 1;
      if (reads > 1) return route.fulfill({ status: 503, json: { statusCode: 503, error: 'Service Unavailable', message: 'Storage is busy, try again' } });
      return route.fulfill({ json: { items: [fakeOutput('first')], page: 1, limit: 12, total: 1, totalPages: 1 } });
    });
    await page.route(/\/api\/v1\/my-outputs\/first$/, (route) => (route.request().method() === 'DELETE' ? route.fulfill({ status: 204, body: '' }) : route.fallback()));
    await page.goto('/history');
    await tile(page, 'first').getByRole('button', { name: /^Delete/ }).click();
    await tile(page, 'first').getByRole('button', { name: /^Confirm delete/ }).click();
    await until(() => reads === 2, 'the list read again');
    await statusLine(page).filter({ hasText: 'could not be read again' }).waitFor({ timeout: 3_000 }).catch(() => undefined);
    // The output is gone on the server; the page says the refusal of the list instead, and offers "Confirm delete" again.
    t.is(await statusLine(page).textContent(), 'first.png deleted. The list could not be read again: Storage is busy, try again');
  } finally {
    await context.close();
  }
});

test.serial('fixed fault history: a page that answers late replaces the page asked for after it (Next, then Previous)', async (t) => {
  const { context, page } = await userPage();
  try {
    await fakeSocket(page);
    let releaseThree!: () => void;
    const threeHeld = new Promise<void>((resolve) => (releaseThree = resolve));
    await page.route(/\/api\/v1\/my-outputs\?/, async (route) => {
      const asked = Number(new URL(route.request().url()).searchParams.get('page'));
      if (asked === 3) await threeHeld;
      await route.fulfill({ json: { items: [fakeOutput(`on-${asked}`)], page: asked, limit: 12, total: 3, totalPages: 3 } });
    });
    await page.goto('/history?page=2');
    await tile(page, 'on-2').waitFor();
    const threeAsked = page.waitForRequest((request) => request.url().includes('page=3'));
    await page.getByRole('button', { name: 'Next' }).click();
    await threeAsked;
    // Page 3 is slow; the user goes back instead.
    await page.getByRole('button', { name: 'Previous' }).click();
    await tile(page, 'on-1').waitFor();
    await page.locator('nav.pager').evaluate((nav) => nav.setAttribute('data-before', ''));
    releaseThree();
    // The late answer, if taken, draws the pager again (the page drawn before it is marked).
    await until(async () => (await page.locator('nav.pager[data-before]').count()) === 0, 'the late page drawn', 3_000).catch(() => undefined);
    t.is(await page.locator('nav.pager span').textContent(), 'Page 1 of 3');
    t.deepEqual(await page.locator('li.tile').evaluateAll((tiles) => tiles.map((item) => item.getAttribute('data-output'))), ['on-1'], 'page 1 is shown, as the pager says');
  } finally {
    await context.close();
  }
});
