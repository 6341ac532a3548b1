import test from 'ava';
import type { TestDatabase } from './databases.ts';
import { startTestApp, type TestApp } from './test-app.ts';
import type { TestClient } from './test-client.ts';

export interface AdminApp {
  app: TestApp;
  /** Signed up with the administrator's email. */
  admin: TestClient;
  adminId: string;
  /** An ordinary user. */
  user: TestClient;
}

/**
 * One app per test file and database, with an administrator and a user, started when a test first asks (no ready
 * templates) and closed after the file's tests.
 */
export function sharedAdminApp(db: TestDatabase, adminEmail: string): () => Promise<AdminApp> {
  let started: Promise<AdminApp> | null = null;
  test.after.always(async () => {
    if (started) await (await started).app.close();
  });
  return () =>
    (started ??= (async () => {
      const app = await startTestApp(db, { ADMIN_EMAILS: adminEmail, SEED_TEMPLATES: 'false' });
      const admin = app.client();
      const me = await admin.signUp({ email: adminEmail });
      const user = app.client();
      await user.signUp();
      return { app, admin, user, adminId: me.id };
    })());
}
