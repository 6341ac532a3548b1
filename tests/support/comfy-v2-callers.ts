import test from 'ava';
import { Comfy } from '@comfyorg/sdk';
import { ComfyLow } from '@comfyorg/sdk/low';
import type { TestDatabase } from './databases.ts';
import { startTestApp, type TestApp } from './test-app.ts';

/**
 * One app per suite (started on first use, closed after the suite) whose `admins` are administrators, and
 * `caller(scopes, plain)`: a signed-up user (an administrator unless `plain`), an API key of theirs with `scopes`,
 * and @comfyorg/sdk clients on that key (ADR 040).
 */
export function comfyV2Callers(db: TestDatabase, admins: readonly string[], env: Record<string, string> = {}) {
  let started: Promise<TestApp> | null = null;
  const app = () => (started ??= startTestApp(db, { ADMIN_EMAILS: admins.join(','), ...env }));
  test.after.always(async () => {
    if (started) await (await started).close();
  });
  let used = 0;

  async function caller(scopes = ['generate'], plain = false) {
    const a = await app();
    const session = a.client();
    if (!plain && used >= admins.length) throw new Error('every administrator address is taken: list more');
    const user = await session.signUp(plain ? {} : { email: admins[used++] });
    const minted = await session.post('/api/v1/api-keys', { name: 'sdk', scopes });
    if (minted.status !== 201) throw new Error(`key: ${minted.status} ${JSON.stringify(minted.body)}`);
    const key = minted.body.key as string;
    process.env.COMFY_BASE_URL = a.baseUrl;
    return { a, session, user, key, comfy: new Comfy({ apiKey: key }), low: new ComfyLow(a.baseUrl, key) };
  }
  return { app, caller };
}
