import { readdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { resolve, TOKENS } from '../../bootstrap/tokens.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { connectWs, type WsTestClient } from '../support/ws-test-client.ts';
import type { TestClient, TestResponse } from '../support/test-client.ts';

const ADMIN = 'deletion-admin@example.com';
const PASSWORD = 'correct horse battery';

const fields = (res: TestResponse) => (res.body.details ?? []).map((detail: { field: string }) => detail.field);

/** Every file under the app's local storage (outputs and uploads). */
function storedFiles(app: TestApp): string[] {
  const root = path.join(app.dataDir, 'storage');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
  try {
    return walk(root).filter((file) => !path.basename(file).startsWith('.'));
  } catch {
    return [];
  }
}

async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const closedWithin = (socket: WsTestClient, ms: number): Promise<number | 'still open'> =>
  Promise.race([socket.closed, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms))]);

const deleteAccount = (client: TestClient, body: Record<string, unknown>) => client.request('DELETE', '/auth/account', body);

/** One finished generation and one upload: two files of the user's in storage. */
async function filesOf(client: TestClient): Promise<{ jobId: string; cost: number; uploadId: string }> {
  const image = (await client.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await client.post('/generate', { templateId: image.id, parameters: { prompt: 'red', width: 64, height: 64, color: 0xff0000 } });
  if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  await waitUntil(async () => (await client.get(`/generate/${submitted.body.id}`)).body.status === 'succeeded', 'the job to succeed');
  const form = new FormData();
  form.append('file', new Blob([await sharp({ create: { width: 6, height: 4, channels: 3, background: '#00f' } }).png().toBuffer()], { type: 'image/png' }), 'in.png');
  const upload = await client.post('/uploads', form);
  if (upload.status !== 201) throw new Error(`upload: ${upload.status}`);
  return { jobId: submitted.body.id, cost: image.cost, uploadId: upload.body.id };
}

function suite(db: TestDatabase): void {
  const title = (name: string) => `[${db}] ${name}`;

  test.serial(title('DELETE /auth/account: every session and key ends, the files go, the email signs up afresh; another user keeps all'), async (t) => {
    const app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, LOGIN_MAX_FAILURES: '3' });
    t.teardown(() => app.close());
    const admin = app.client();
    await admin.signUp({ email: ADMIN });
    const bob = app.client();
    await bob.signUp();
    const bobs = await filesOf(bob);
    const bobFiles = storedFiles(app);
    t.is(bobFiles.length, 2, 'an output and an upload of bob');

    const alice = app.client();
    const user = await alice.signUp();
    const { cost, jobId } = await filesOf(alice);
    t.is(storedFiles(app).length, 4);
    const other = app.client();
    t.is((await other.post('/auth/login', { email: user.email, password: PASSWORD })).status, 200);
    const key = await alice.post('/api/v1/api-keys', { name: 'script', scopes: ['generate', 'history'] });
    t.is(key.status, 201, JSON.stringify(key.body));
    const scripted = app.client();
    scripted.bearer = key.body.key;
    t.is((await scripted.get('/auth/profile')).status, 200);
    t.is((await deleteAccount(scripted, { password: PASSWORD })).status, 403, 'an API key cannot delete the account');
    const wsUrl = `ws://127.0.0.1:${app.port}/api/v1/ws`;
    const sockets = [
      await connectWs(wsUrl, { cookie: other.cookies.get('access_token')! }),
      await connectWs(wsUrl, { bearer: key.body.key }),
      await connectWs(wsUrl, { cookie: bob.cookies.get('access_token')! }),
    ];
    t.teardown(() => sockets.forEach((socket) => socket.close()));

    for (const body of [{}, { password: '' }, { password: 42 }, { confirmEmail: user.email }]) {
      const refused = await deleteAccount(alice, body);
      t.is(refused.status, 400, JSON.stringify(body));
      t.deepEqual(fields(refused), ['password']);
    }
    const wrong = await deleteAccount(alice, { password: 'not the password' });
    t.is(wrong.status, 400);
    t.deepEqual(wrong.body.details, [{ field: 'password', message: 'is wrong' }]);
    t.is((await alice.get('/auth/profile')).status, 200, 'a refused deletion changes nothing');

    const done = await deleteAccount(alice, { password: PASSWORD });
    t.is(done.status, 200, JSON.stringify(done.body));
    t.deepEqual(done.body, { message: 'Account deleted; its outputs and uploads are being removed', jobsCancelled: 0, coinsForfeited: 100 - cost });
    t.false(alice.cookies.has('access_token'), 'the response signs the browser out');

    t.is(await closedWithin(sockets[0]!, 3000), 4003, "another login's socket closes");
    t.is(await closedWithin(sockets[1]!, 3000), 4003, "the API key's socket closes");
    t.is(await closedWithin(sockets[2]!, 300), 'still open', "bob's stays open");
    t.is((await other.get('/auth/profile')).status, 401, 'another login ends at once');
    t.is((await other.post('/auth/refresh')).status, 401, 'and cannot refresh');
    t.is((await scripted.get('/auth/profile')).status, 401, 'the API key ends');
    t.is((await app.client().post('/auth/login', { email: user.email, password: PASSWORD })).status, 401, 'the password no longer signs in');
    t.is((await deleteAccount(other, { password: PASSWORD })).status, 401);

    await waitUntil(() => storedFiles(app).length === 2, "the purge to delete alice's files");
    t.deepEqual(storedFiles(app).sort(), bobFiles.sort(), "bob's files stay");
    const repos = resolve(app.app.container, TOKENS.Repositories);
    await waitUntil(async () => (await repos.users.listDeleted(10)).length === 0, 'the purge to delete the row');
    t.is(await repos.jobs.findById(jobId), null, 'its jobs went with the row');
    t.is((await repos.ledger.list(user.id, { page: 1, limit: 10 })).total, 0, 'and its ledger');
    t.is((await admin.get(`/admin/users?q=${encodeURIComponent(user.email)}`)).body.total, 0);
    t.is((await admin.get(`/admin/users/${user.id}/transactions`)).status, 404);
    t.is((await admin.post(`/admin/coin/add/${user.id}`, { amount: 5, reason: 'admin_adjustment' })).status, 404, 'no coins reach a deleted account');

    const husk = await app.client().post('/auth/register', { email: `deleted-${user.id}@deleted.invalid`, password: PASSWORD, displayName: 'Squatter' });
    t.is(husk.status, 400, 'no one signs up with the address a deleted account keeps until its purge');
    t.deepEqual(fields(husk), ['email']);
    const again = app.client();
    const fresh = await again.signUp({ email: user.email });
    t.not(fresh.id, user.id, 'the email signs up afresh, as a new account');
    t.is(fresh.coinBalance, 100);
    t.is((await again.get('/my-outputs')).body.total, 0, 'with nothing of the old one');
    t.is((await again.get('/coin/transactions')).body.total, 1, 'only its sign-up bonus');

    t.is((await bob.get('/my-outputs')).body.total, 1);
    t.is((await bob.get(`/generate/${bobs.jobId}`)).body.status, 'succeeded');
  });

  test.serial(title('DELETE /admin/users/{id}: queued jobs are cancelled and refunded, the deletion is audited, keys and self refused'), async (t) => {
    // No worker: submitted jobs stay queued.
    const app = await startTestApp(db, { ADMIN_EMAILS: ADMIN, ROLES: 'api' });
    t.teardown(() => app.close());
    const admin = app.client();
    const adminUser = await admin.signUp({ email: ADMIN });
    const victim = app.client();
    const user = await victim.signUp();
    const image = (await victim.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
    for (let i = 0; i < 2; i++) t.is((await victim.post('/generate', { templateId: image.id, parameters: { prompt: `p${i}`, width: 64, height: 64, color: 1 } })).status, 202);
    t.is((await victim.get('/auth/profile')).body.coinBalance, 100 - 2 * image.cost);

    const adminKey = await admin.post('/api/v1/api-keys', { name: 'ops', scopes: ['admin'] });
    t.is(adminKey.status, 201, JSON.stringify(adminKey.body));
    const keyed = app.client();
    keyed.bearer = adminKey.body.key;
    t.is((await keyed.delete(`/admin/users/${user.id}`)).status, 403, 'not even an admin key deletes accounts');
    t.is((await victim.delete(`/admin/users/${adminUser.id}`)).status, 403, 'a user deletes nobody');
    t.is((await admin.delete(`/admin/users/${adminUser.id}`)).status, 409, 'an administrator deletes their own account from Account');
    t.is((await admin.delete('/admin/users/not-a-uuid')).status, 404);
    t.is((await admin.delete('/admin/users/00000000-0000-4000-8000-000000000000')).status, 404);

    const done = await admin.delete(`/admin/users/${user.id.toUpperCase()}`);
    t.is(done.status, 200, JSON.stringify(done.body));
    t.like(done.body, { jobsCancelled: 2, coinsForfeited: 100 });
    t.is((await admin.delete(`/admin/users/${user.id}`)).status, 404, 'a deleted account is not deleted twice');
    t.is((await victim.get('/auth/profile')).status, 401, "the user's session ends");

    const audit = await admin.get('/admin/audit');
    const entry = audit.body.items.find((item: { action: string }) => item.action === 'user.delete');
    t.like(entry, { actorId: adminUser.id, targetUserId: user.id, details: { jobsCancelled: 2, coinsForfeited: 100 } });
    const queued = await admin.get('/admin/jobs?status=queued');
    t.is(queued.status, 200);
    t.false(queued.body.items.some((job: { userId: string }) => job.userId === user.id), 'no job of it waits');
  });
}

for (const db of DATABASES) suite(db);
