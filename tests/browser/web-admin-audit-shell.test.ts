import test from 'ava';
import { ADMIN, navLinks, pageOf, PASSWORD, setUp, USER } from './web-admin-audit-support.ts';

// The web client's shell guards: main.ts (routing, admin access, navigation) and dom.ts (tests/mutation/mutations/web-admin.mutations.ts).
setUp();

// ---------------------------------------------------------------------------------------------------------------
// The shell: who may open which page, what the navigation offers, signing out.

test.serial('a user is turned away from an admin page, and offered no admin link; only the current link is marked; a public page sends a signed-in user home', async (t) => {
  await pageOf(USER, async (page) => {
    await page.goto('/admin/templates');
    await page.waitForURL((url) => url.pathname === '/' && url.search === '?denied=admin');
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    t.is(await page.getByRole('heading', { name: 'Templates' }).count(), 0, 'the admin page is not shown');
    t.deepEqual(await navLinks(page), ['Generate', 'History', 'API keys'], 'no admin links, no Connections or Chat without the features');
    const marked = await page.locator('nav a').evaluateAll((links) => links.map((link) => `${link.textContent}=${link.getAttribute('aria-current')}`));
    t.deepEqual(marked, ['Generate=page', 'History=null', 'API keys=null'], 'only the current page is marked');

    await page.goto('/admin/jobs');
    await page.waitForURL((url) => url.search === '?denied=admin');
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    t.deepEqual(await page.locator('main h1').allTextContents(), ['Generate']);

    await page.goto('/login');
    await page.waitForURL((url) => url.pathname === '/' && url.search === '');
    await page.getByRole('heading', { name: 'Generate' }).waitFor();
    t.is(await page.getByRole('button', { name: 'Sign in' }).count(), 0);

    // The server serves only the client's routes; an unknown path is met inside the app (a stale link, history).
    await page.evaluate(() => {
      history.pushState(null, '', '/no/such/page');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    t.is(await page.title(), 'Not found · Media studio');
  });
});

test.serial('an administrator is offered every admin page and opens them', async (t) => {
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/fleet');
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    t.deepEqual(await navLinks(page), ['Generate', 'History', 'API keys', 'Templates', 'Users', 'Audit log', 'Jobs', 'Queue', 'Fleet', 'Template health']);
    t.is(await page.title(), 'Fleet · Media studio');
  });
});

test.serial('the features decide the Connections and Chat links', async (t) => {
  await pageOf(USER, async (page) => {
    await page.route('**/api/v1/features', (route) => route.fulfill({ json: { oidcProviders: [], socialPlatforms: ['mastodon'], chat: true } }));
    await page.goto('/history');
    await page.getByRole('heading', { name: 'History' }).waitFor();
    t.deepEqual(await navLinks(page), ['Generate', 'History', 'Connections', 'Chat', 'API keys']);
  });
});

test.serial('signing out forgets the session in the page; an admin page then asks to sign in and comes back to it', async (t) => {
  await pageOf(ADMIN, async (page) => {
    await page.goto('/admin/queue');
    await page.getByRole('heading', { name: 'Queue' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    t.is(await page.evaluate(() => localStorage.getItem('signed-in')), null);
    t.deepEqual(await navLinks(page), []);
    await page.goto('/admin/queue');
    await page.waitForURL((url) => url.pathname === '/login' && url.search === '?next=%2Fadmin%2Fqueue');
    await page.getByLabel('Email').fill(ADMIN);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Queue' }).waitFor();
    t.is(new URL(page.url()).pathname, '/admin/queue');
  });
});

