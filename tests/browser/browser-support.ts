import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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
