import './app.css';
import { api, errorText, setSignedOutHandler, type User } from './api.ts';
import { coins, h, replace } from './dom.ts';
import { EventSocket } from './socket.ts';
import { authPage } from './pages/auth.ts';
import { generatePage } from './pages/generate.ts';
import { historyPage } from './pages/history.ts';
import { adminTemplatesPage } from './pages/admin-templates.ts';
import { adminUsersPage } from './pages/admin-users.ts';
import { auditPage } from './pages/audit.ts';
import { fleetPage, jobsPage, queuePage, templateHealthPage } from './pages/admin-console.ts';
import { chatPage, connectionsPage } from './pages/extras.ts';
import type { ClientRoutePath } from './client-routes.ts';
import { apiKeysPage } from './pages/api-keys.ts';
import { accountPage, resetPasswordPage } from './pages/account.ts';
import { forgotPasswordPage } from './pages/forgot-password.ts';
import { confirmEmailPage } from './pages/confirm-email.ts';

export interface Features {
  oidcProviders: string[];
  socialPlatforms: string[];
  chat: boolean;
  /** The service mails reset links: the sign-in page offers "Forgot your password?". */
  passwordResetByMail: boolean;
  /** The service mails links to confirm a new email: the Account page offers a change of email. */
  emailChange: boolean;
}

/** What every page gets: the signed-in user, the server's features, the socket and navigation. */
export interface Ctx {
  user: User | null;
  features: Features;
  socket: EventSocket;
  navigate(path: string): void;
  setUser(user: User | null): void;
  /** Reloads the profile (balance) into the header. */
  refreshUser(): Promise<void>;
}

type Page = (ctx: Ctx, main: HTMLElement) => void | (() => void) | Promise<void | (() => void)>;
interface Route {
  /** Listed in client-routes.ts too, so that the server reloads it into the client. */
  path: ClientRoutePath;
  title: string;
  page: Page;
  /** `public`: signed-out only (a signed-in user goes to the start); `open`: anyone. */
  access: 'public' | 'open' | 'user' | 'admin';
  nav?: (ctx: Ctx) => boolean;
}

const ROUTES: Route[] = [
  { path: '/login', title: 'Sign in', page: authPage('login'), access: 'public' },
  { path: '/signup', title: 'Sign up', page: authPage('signup'), access: 'public' },
  { path: '/reset-password', title: 'Set a new password', page: resetPasswordPage, access: 'open' },
  { path: '/forgot-password', title: 'Forgot your password?', page: forgotPasswordPage, access: 'public' },
  { path: '/confirm-email', title: 'Confirm your new email', page: confirmEmailPage, access: 'open' },
  { path: '/', title: 'Generate', page: generatePage, access: 'user', nav: () => true },
  { path: '/history', title: 'History', page: historyPage, access: 'user', nav: () => true },
  { path: '/connections', title: 'Connections', page: connectionsPage, access: 'user', nav: (ctx) => ctx.features.socialPlatforms.length > 0 },
  { path: '/chat', title: 'Chat', page: chatPage, access: 'user', nav: (ctx) => ctx.features.chat },
  { path: '/api-keys', title: 'API keys', page: apiKeysPage, access: 'user', nav: () => true },
  { path: '/account', title: 'Account', page: accountPage, access: 'user' },
  { path: '/admin/templates', title: 'Templates', page: adminTemplatesPage, access: 'admin', nav: () => true },
  { path: '/admin/users', title: 'Users', page: adminUsersPage, access: 'admin', nav: () => true },
  { path: '/admin/audit', title: 'Audit log', page: auditPage, access: 'admin', nav: () => true },
  { path: '/admin/jobs', title: 'Jobs', page: jobsPage, access: 'admin', nav: () => true },
  { path: '/admin/queue', title: 'Queue', page: queuePage, access: 'admin', nav: () => true },
  { path: '/admin/fleet', title: 'Fleet', page: fleetPage, access: 'admin', nav: () => true },
  { path: '/admin/template-health', title: 'Template health', page: templateHealthPage, access: 'admin', nav: () => true },
];

const SIGNED_IN_HINT = 'signed-in';

const root = document.getElementById('app')!;
const header = h('header', { className: 'top' });
const newMain = () => h('main', { id: 'main', tabIndex: -1 });
/** The page shown: each render gets a main of its own, so a page still loading when the next one opened writes into one no longer shown. */
let main = newMain();
replace(root, h('a', { className: 'skip', href: '#main' }, 'Skip to content'), header, main);

let cleanup: (() => void) | void = undefined;
/** Renders started: a page that finishes loading after a later render began is dropped (its cleanup run at once). */
let renders = 0;

const ctx: Ctx = {
  user: null,
  features: { oidcProviders: [], socialPlatforms: [], chat: false, passwordResetByMail: false, emailChange: false },
  socket: new EventSocket(),
  navigate(path) {
    if (path !== location.pathname + location.search) history.pushState(null, '', path);
    void render();
  },
  setUser(user) {
    ctx.user = user;
    if (user) {
      localStorage.setItem(SIGNED_IN_HINT, '1');
      ctx.socket.start();
    } else {
      localStorage.removeItem(SIGNED_IN_HINT);
      ctx.socket.stop();
    }
    renderHeader();
  },
  async refreshUser() {
    ctx.user = await api.get<User>('/auth/profile');
    renderHeader();
  },
};

function renderHeader(): void {
  const current = location.pathname;
  const links = ctx.user
    ? ROUTES.filter((route) => route.nav?.(ctx) && (route.access !== 'admin' || ctx.user?.role === 'admin')).map((route) =>
        h('li', null, h('a', { href: route.path, 'aria-current': route.path === current ? 'page' : undefined, 'data-link': '' }, route.title)),
      )
    : [];
  replace(
    header,
    h('a', { className: 'brand', href: '/', 'data-link': '' }, 'Media studio'),
    h('nav', { 'aria-label': 'Main' }, h('ul', null, links)),
    ctx.user
      ? h(
          'div',
          { className: 'who' },
          h('span', { className: 'balance', 'data-testid': 'balance' }, coins(ctx.user.coinBalance)),
          h('a', { href: '/account', 'data-link': '', 'aria-current': current === '/account' ? 'page' : undefined, title: 'Account' }, ctx.user.displayName),
          h('button', { type: 'button', className: 'link', on: { click: () => void signOut() } }, 'Sign out'),
        )
      : null,
  );
}

async function signOut(): Promise<void> {
  await api.post('/auth/logout').catch(() => undefined);
  ctx.setUser(null);
  ctx.navigate('/login');
}

async function render(): Promise<void> {
  const mine = ++renders;
  if (typeof cleanup === 'function') cleanup();
  cleanup = undefined;
  const route = ROUTES.find((candidate) => candidate.path === location.pathname);
  if ((route?.access === 'user' || route?.access === 'admin') && !ctx.user) return ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);
  if (route?.access === 'admin' && ctx.user?.role !== 'admin') return ctx.navigate('/?denied=admin');
  // Linking a provider comes back to `/?linked=<key>`, or fails to `/login?error=<code>` while signed in: both are
  // told on the Account page, where the link was started.
  const back = new URLSearchParams(location.search);
  if (ctx.user && ((location.pathname === '/' && back.has('linked')) || (location.pathname === '/login' && back.has('error')))) return ctx.navigate(`/account${location.search}`);
  if (route?.access === 'public' && ctx.user) return ctx.navigate('/');
  const view = newMain();
  main.replaceWith(view);
  main = view;
  if (!route) {
    document.title = 'Not found · Media studio';
    replace(view, h('h1', null, 'Page not found'), h('p', null, h('a', { href: '/', 'data-link': '' }, 'Back to the start')));
    return;
  }
  document.title = `${route.title} · Media studio`;
  renderHeader();
  try {
    const done = await route.page(ctx, view);
    if (mine === renders) cleanup = done;
    else if (typeof done === 'function') done();
  } catch (failure) {
    // A page whose data could not be read says so (it was blank), with a way to try again.
    if (mine === renders) {
      const again = h('a', { href: location.pathname + location.search, 'data-link': '' }, 'Try again');
      replace(view, h('h1', null, route.title), h('p', { className: 'status error', role: 'alert' }, `This page could not be loaded: ${errorText(failure)}`), h('p', null, again));
    }
  }
}

document.addEventListener('click', (event) => {
  const link = (event.target as Element).closest?.('a[data-link]') as HTMLAnchorElement | null;
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  ctx.navigate(link.getAttribute('href')!);
  main.focus();
});
window.addEventListener('popstate', () => void render());
setSignedOutHandler(() => {
  if (!ctx.user) return;
  ctx.setUser(null);
  ctx.navigate(`/login?next=${encodeURIComponent(location.pathname)}`);
});

async function boot(): Promise<void> {
  ctx.features = await api.get<Features>('/features').catch(() => ctx.features);
  if (localStorage.getItem(SIGNED_IN_HINT)) {
    const user = await api.get<User>('/auth/profile').catch(() => null);
    ctx.setUser(user);
  }
  renderHeader();
  await render();
}

void boot();
