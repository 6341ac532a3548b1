import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { buildApplication, type Application } from '../../bootstrap/app.ts';
import { loadConfig } from '../../bootstrap/config.ts';
import { TOKENS } from '../../bootstrap/tokens.ts';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import { createMariaDatabase, DATABASES, type TestDatabase } from '../support/databases.ts';
import { openSocket } from '../support/socket-client.ts';
import { freePort, silentLogger, startTestApp } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

/** One app on a database that outlives it: DATA_DIR's SQLite file, or one MariaDB database. */
async function appOn(dataDir: string, databaseUrl: string | null): Promise<{ app: Application; client(): TestClient }> {
  const loaded = loadConfig({
    APP_ENV: 'local',
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    JWT_SECRET: 'revocation-test-secret-long-enough-for-hs256-00',
    SEED_TEMPLATES: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const app = buildApplication(loaded.config, { logger: silentLogger });
  const { port } = await app.start();
  return { app, client: () => new TestClient(`http://127.0.0.1:${port}`) };
}

/** A client that sends only `Authorization: Bearer <token>`. */
function bearer(baseUrl: string, token: string): TestClient {
  const client = new TestClient(baseUrl);
  client.bearer = token;
  return client;
}

const statusOf = async (t: ExecutionContext, request: Promise<{ status: number; body: { statusCode?: number } }>, status: number, what: string) => {
  const res = await request;
  t.is(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  if (status >= 400) t.is(res.body.statusCode, status);
};

function suite(db: TestDatabase): void {
  test.serial(`[${db}] a logged-out access token stays 401 after the app restarts on the same database`, async (t) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-revocation-'));
    const maria = db === 'mariadb' ? await createMariaDatabase() : null;
    t.teardown(async () => {
      await maria?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    let running = await appOn(dataDir, maria?.url ?? null);
    const leaving = running.client();
    await leaving.signUp();
    const staying = running.client();
    await staying.signUp();
    const loggedOut = leaving.cookies.get('access_token')!;
    const stillIn = staying.cookies.get('access_token')!;
    t.is((await leaving.post('/auth/logout')).status, 204);
    const baseUrl = () => running.client().baseUrl;
    await statusOf(t, bearer(baseUrl(), loggedOut).get('/auth/profile'), 401, 'logged out, same process');

    await running.app.stop();
    running = await appOn(dataDir, maria?.url ?? null);
    t.teardown(() => running.app.stop());
    await statusOf(t, bearer(baseUrl(), loggedOut).get('/auth/profile'), 401, 'logged out, after the restart');
    await statusOf(t, bearer(baseUrl(), loggedOut).get('/generate'), 401, 'logged out, another route');
    await statusOf(t, bearer(baseUrl(), stillIn).get('/auth/profile'), 200, 'a token that was not logged out still works after the restart');
  });

  test.serial(`[${db}] a validly signed token of a deleted user is 401 on routes and uploads, and its socket is refused`, async (t) => {
    const testApp = await startTestApp(db);
    t.teardown(() => testApp.close());
    const client = testApp.client();
    const user = await client.signUp();
    const token = client.cookies.get('access_token')!;
    const asUser = bearer(testApp.baseUrl, token);
    await statusOf(t, asUser.get('/auth/profile'), 200, 'before the deletion');
    const socket = await openSocket(client);
    socket.close();

    const database = testApp.app.container.get<SequelizeDatabase>(TOKENS.Database);
    await database.sequelize.query('DELETE FROM users WHERE id = ?', { replacements: [user.id] });

    await statusOf(t, asUser.get('/auth/profile'), 401, 'profile');
    await statusOf(t, asUser.get('/generate'), 401, 'job list');
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('not an image')], { type: 'image/png' }), 'x.png');
    await statusOf(t, asUser.post('/uploads', form), 401, 'upload');
    await statusOf(t, client.get('/auth/profile'), 401, 'by cookie');
    await t.throwsAsync(openSocket(client), { message: 'upgrade refused: 401' });
  });

  test.serial(`[${db}] an administrator demoted in storage loses admin routes at once, with the token that still says admin`, async (t) => {
    const testApp = await startTestApp(db, { ADMIN_EMAILS: 'admin@example.com' });
    t.teardown(() => testApp.close());
    const client = testApp.client();
    const admin = await client.signUp({ email: 'admin@example.com' });
    const token = client.cookies.get('access_token')!;
    const asAdmin = bearer(testApp.baseUrl, token);
    await statusOf(t, asAdmin.get('/admin/users'), 200, 'an administrator');

    const database = testApp.app.container.get<SequelizeDatabase>(TOKENS.Database);
    await database.sequelize.query("UPDATE users SET role = 'user' WHERE id = ?", { replacements: [admin.id] });

    await statusOf(t, asAdmin.get('/admin/users'), 403, 'demoted, same token');
    const profile = await asAdmin.get('/auth/profile');
    t.is(profile.status, 200);
    t.is(profile.body.role, 'user', 'the profile shows the role as stored');
    // A raw workflow matching no template is for administrators only: the stored role decides, not the token's.
    const raw = { workflow: { '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 12345 } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'demoted' } } } };
    await statusOf(t, asAdmin.post('/generate', raw), 400, 'demoted: no raw workflows');
  });
}

for (const db of DATABASES) suite(db);
