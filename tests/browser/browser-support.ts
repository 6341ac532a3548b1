import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type WebSocketRoute } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../.scratch/screenshots');

/**
 * Debian's Chromium, headless, without the background traffic it would otherwise send to the network.
 * A missing browser is a failure, never a skip (.ci/run installs it).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH; .ci/run installs it`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Everything a page complained about: console errors, uncaught exceptions and CSP violations. */
export class PageProblems {
  readonly problems: string[] = [];

  constructor(private readonly allowed: RegExp[] = []) {}

  async watch(context: BrowserContext): Promise<void> {
    // Runs before the app's own script; init scripts are injected by the browser, not subject to the CSP.
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
      });
    });
    context.on('page', (page) => this.attach(page));
  }

  attach(page: Page): void {
    page.on('console', (message) => {
      if (message.type() !== 'error' && !/Content.Security.Policy/i.test(message.text())) return;
      if (this.allowed.some((pattern) => pattern.test(message.text()))) return;
      this.problems.push(`console ${message.type()}: ${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => this.problems.push(`page error: ${error.message}`));
  }
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const AXE_SOURCE = path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');

/**
 * axe-core's findings on the page as it is now, one line per violation and node. The script is evaluated
 * through the DevTools protocol, which the page's CSP does not govern, so the CSP stays on for the check.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE_SOURCE, 'utf8'));
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    return (await axe.run(document)).violations.map((violation) => ({ id: violation.id, help: violation.help, targets: violation.nodes.map((node) => JSON.stringify(node.target)) }));
  });
  return results.flatMap((violation) => violation.targets.map((target) => `${violation.id} (${violation.help}) at ${target}`));
}

/** An output as the history lists it, for a page whose answers the test gives: a 64×64 PNG whose file is missing. */
export const fakeOutput = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  jobId: `job-of-${id}`,
  templateId: null,
  templateName: null,
  usedParameters: {},
  mimeType: 'image/png',
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  viewUrl: `/missing/${id}.png`,
  fileName: `${id}.png`,
  sizeBytes: 2048,
  width: 64,
  height: 64,
  ...fields,
});

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling every 25 ms), failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * The words of an element a sighted user sees: its text, less what sits in a box one pixel wide (the page's visually
 * hidden words for screen readers).
 */
export function shownText(element: Locator): Promise<string> {
  return element.evaluate((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let text = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement!.getBoundingClientRect().width > 1) text += node.textContent;
    }
    return text.trim();
  });
}

/** A fresh browser context on the application at `baseURL` (a desktop viewport) and its page. */
export async function freshPage(browser: Browser, baseURL: string, timeoutMs?: number): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  if (timeoutMs !== undefined) page.setDefaultTimeout(timeoutMs);
  return { context, page };
}

/**
 * A page of a user of its own (its own session and balance: the tests of a file run at once), registered and signed in
 * through the real API with `password`, its address starting with `prefix`. The client then reads the profile on load.
 */
export async function signedInPage(
  browser: Browser,
  baseURL: string,
  user: { prefix: string; password: string; displayName: string; timeoutMs?: number },
): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await freshPage(browser, baseURL, user.timeoutMs);
  const email = `${user.prefix}-${randomUUID()}@example.com`;
  const registered = await page.request.post('/api/v1/auth/register', { data: { email, password: user.password, displayName: user.displayName } });
  if (registered.status() !== 201) throw new Error(`register: ${registered.status()} ${await registered.text()}`);
  const login = await page.request.post('/api/v1/auth/login', { data: { email, password: user.password } });
  if (login.status() !== 200) throw new Error(`login: ${login.status()} ${await login.text()}`);
  // What the client keeps once signed in.
  await context.addInitScript(() => localStorage.setItem('signed-in', '1'));
  return { context, page };
}

/** A page of a fresh browser context (nobody signed in) at `width` on the application at `baseURL`, watched by `problems`. */
export async function signedOutPage(browser: Browser, baseURL: string, problems: PageProblems, width: number, timeoutMs?: number): Promise<Page> {
  const context = await browser.newContext({ baseURL, viewport: { width, height: 800 } });
  await problems.watch(context);
  const page = await context.newPage();
  if (timeoutMs !== undefined) page.setDefaultTimeout(timeoutMs);
  return page;
}

/** A user signed up through the web client's own form (at `width`), on the Generate page; `problems` watches the context. */
export async function signedUpThroughForm(
  browser: Browser,
  baseURL: string,
  problems: PageProblems,
  user: { width: number; email: string; displayName: string; password: string },
): Promise<{ context: BrowserContext; page: Page }> {
  const page = await signedOutPage(browser, baseURL, problems, user.width);
  const context = page.context();
  await page.goto('/signup');
  await page.getByLabel('Display name').fill(user.displayName);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Generate' }).waitFor();
  return { context, page };
}

/** A socket the test is the server of: its connections, what the page sent on each, the close codes, and events to send. */
export interface FakeSocket {
  connections: WebSocketRoute[];
  sent: string[][];
  closed: number[];
  /** Sends the event on the latest connection. */
  send(event: Record<string, unknown>): void;
}

/**
 * A socket server the test plays. With `answerCloses`, a close the page starts is answered, so the page hears its socket
 * close (as from a real server); without, the page's close is only recorded and the page never hears it end.
 */
export async function fakeSocket(page: Page, { answerCloses = false } = {}): Promise<FakeSocket> {
  const socket: FakeSocket = { connections: [], sent: [], closed: [], send: (event) => socket.connections.at(-1)!.send(JSON.stringify(event)) };
  await page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => {
    const sent: string[] = [];
    socket.connections.push(ws);
    socket.sent.push(sent);
    ws.onMessage((message) => sent.push(String(message)));
    let answered = false;
    ws.onClose((code, reason) => {
      // Answering the close calls this handler again: record and answer once.
      if (answered) return;
      socket.closed.push(code ?? 0);
      if (!answerCloses) return;
      answered = true;
      void ws.close({ code, reason });
    });
  });
  return socket;
}
