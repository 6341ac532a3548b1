import test from 'ava';
import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import type { TestClient } from '../support/test-client.ts';
import { launchChromium } from './browser-support.ts';

// Shared by the web-admin-audit*.test.ts files. The guards of the web client's shell (main.ts, dom.ts) and its admin pages (admin-templates.ts,
// template-test-run.ts, admin-console.ts): tests/mutation/mutations/web-admin.mutations.ts. The application is real
// (SQLite); refusals, the socket's events and the console's answers are the test's own (page.route, a socket the
// test plays the server of), so that each state an administrator can meet is shown on demand.
export const ADMIN = 'admin@web-admin-audit.example';
export const USER = 'user@web-admin-audit.example';
export const PASSWORD = 'correct horse battery';

export const workflow = () => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0x3366cc } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'square' } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'a blue square' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});
export const MAP = {
  prompt: { preset: 'prompt', node_id: '3', input_name: 'value', required: true },
  width: { key: 'width', type: 'integer', node_id: '1', input_name: 'width', min: 16, max: 256, default: 64 },
};

export let app: TestApp;
let browser: Browser;
export let admin: TestClient;

/** Registers the file's set-up: the application (an administrator and a user signed up) and Chromium. */
export function setUp(): void {
  test.before(async () => {
    app = await startTestApp('sqlite', { ADMIN_EMAILS: ADMIN, SEED_TEMPLATES: 'false' });
    browser = await launchChromium();
    admin = app.client();
    await admin.signUp({ email: ADMIN, password: PASSWORD, displayName: 'Audit Admin' });
    await app.client().signUp({ email: USER, password: PASSWORD, displayName: 'Audit User' });
  });
  test.after.always(async () => {
    await browser?.close();
    await app?.close();
  });
}

/** A template of the administrator's, mapped (prompt and width); published if asked. */
export async function template(name: string, publish = false): Promise<string> {
  const created = await admin.post('/workflow-templates', { name, category: 'text-to-image', workflow: workflow(), cost: 2, outputType: 'image' });
  if (created.status !== 201) throw new Error(`create: ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  const mapped = await admin.put(`/workflow-templates/${id}/parameter-map`, MAP);
  if (mapped.status !== 200) throw new Error(`map: ${JSON.stringify(mapped.body)}`);
  if (publish) {
    const published = await admin.post(`/templates/${id}/publish`);
    if (published.status >= 300) throw new Error(`publish: ${JSON.stringify(published.body)}`);
  }
  return id;
}

/** A signed-in page (its own context), or a signed-out one. */
export async function pageOf(email: string | null, run: (page: Page, context: BrowserContext) => Promise<void>): Promise<void> {
  const context = await browser.newContext({ baseURL: app.app.config.publicUrl, viewport: { width: 1100, height: 900 } });
  try {
    const page = await context.newPage();
    if (email) {
      const login = await page.request.post('/api/v1/auth/login', { data: { email, password: PASSWORD } });
      if (login.status() !== 200) throw new Error(`login: ${login.status()} ${await login.text()}`);
      await context.addInitScript(() => localStorage.setItem('signed-in', '1'));
    }
    await run(page, context);
  } finally {
    await context.close();
  }
}

export const refusal = (status: number, message: string) => ({ status, json: { statusCode: status, error: 'Refused', message } });
export const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
export const statusText = (page: Page) => page.locator('main > p[role="status"]').first().textContent();

/** A socket the test is the server of. */
export async function fakeSocket(page: Page): Promise<{ connections: WebSocketRoute[]; send(event: Record<string, unknown>): void }> {
  let seq = 0;
  const socket = {
    connections: [] as WebSocketRoute[],
    send: (event: Record<string, unknown>) => socket.connections.at(-1)!.send(JSON.stringify({ seq: ++seq, ...event })),
  };
  await page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => {
    socket.connections.push(ws);
  });
  return socket;
}

export async function until(check: () => boolean, what = 'a condition'): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
