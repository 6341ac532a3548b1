import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from '../../adapters/crypto/webhook-secret.ts';
import { SequelizeWebhookSecretStore } from '../../adapters/sequelize/sequelize-webhook-secret-store.ts';
import { HttpWebhookSender } from '../../adapters/webhook/http-webhook-sender.ts';
import { WebhookSecrets } from '../../core/use-cases/webhooks/webhook-secrets.service.ts';
import { openBackend } from '../support/backends.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { startTestApp } from '../support/test-app.ts';
import { addUser } from '../contract/fixtures.ts';

const HOUR = 3600_000;
const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** A user of a fresh database and its SQL secret store, for rotations staged by hand. */
async function secretStore(t: ExecutionContext, db: TestDatabase) {
  const backend = await openBackend(db);
  t.teardown(() => backend.dispose());
  const userId = await addUser(backend.repos.users);
  return { userId, store: new SequelizeWebhookSecretStore(backend.db!.autocommit), now: new Date('2030-01-01T00:00:00.000Z') };
}

for (const db of DATABASES) {
  test(`${db}: GET /webhook-secret creates the caller's secret once, and only for the caller`, async (t) => {
    const app = await startTestApp(db);
    t.teardown(() => app.close());
    t.is((await app.client().get('/webhook-secret')).status, 401);
    t.is((await app.client().post('/webhook-secret/rotate')).status, 401);
    const alice = app.client();
    await alice.signUp();
    // Concurrent first reads: one secret is created and every read sees it.
    const first = await Promise.all([1, 2, 3, 4].map(() => alice.get('/webhook-secret')));
    t.deepEqual(first.map((response) => response.status), [200, 200, 200, 200]);
    const secret = first[0]!.body.secret as string;
    t.regex(secret, WHSEC);
    t.deepEqual(new Set(first.map((response) => response.body.secret)), new Set([secret]));
    t.is(first[0]!.headers.get('cache-control'), 'no-store');
    t.like(first[0]!.body, { rotatedAt: null, previousValidUntil: null });
    t.is((await alice.get('/webhook-secret')).body.secret, secret);
    const bob = app.client();
    await bob.signUp();
    const bobs = (await bob.get('/webhook-secret')).body.secret as string;
    t.regex(bobs, WHSEC);
    t.not(bobs, secret);
    const paths = (await alice.get('/openapi.json')).body.paths as Record<string, Record<string, { tags: string[] }>>;
    t.deepEqual(paths['/webhook-secret']?.get?.tags, ['webhooks']);
    t.deepEqual(paths['/webhook-secret/rotate']?.post?.tags, ['webhooks']);
  });

  test(`${db}: rotating replaces the secret and keeps the old one signing for 24 hours`, async (t) => {
    const app = await startTestApp(db);
    t.teardown(() => app.close());
    const alice = app.client();
    await alice.signUp();
    const before = (await alice.get('/webhook-secret')).body.secret as string;
    const started = Date.now();
    const rotated = await alice.post('/webhook-secret/rotate');
    t.is(rotated.status, 200);
    t.is(rotated.headers.get('cache-control'), 'no-store');
    t.regex(rotated.body.secret, WHSEC);
    t.not(rotated.body.secret, before);
    const until = Date.parse(rotated.body.previousValidUntil);
    t.true(until >= started + 24 * HOUR - 1000 && until <= Date.now() + 24 * HOUR + 1000, rotated.body.previousValidUntil);
    t.is((await alice.get('/webhook-secret')).body.secret, rotated.body.secret);
    // Two rotations at once both succeed, one after the other: the secret each answered was current in turn.
    const both = await Promise.all([alice.post('/webhook-secret/rotate'), alice.post('/webhook-secret/rotate')]);
    t.deepEqual(both.map((response) => response.status), [200, 200]);
    t.not(both[0]!.body.secret, both[1]!.body.secret);
    t.true(both.map((response) => response.body.secret).includes((await alice.get('/webhook-secret')).body.secret));
  });

  // Pins: a rotation whose write loses to a rival (the secret it read was replaced meanwhile) tries again on the rival's
  // secret; it never answers a secret it did not store, which would sign nothing its receiver could check.
  test(`${db}: a rotation that loses its write to a rival tries again and answers only a secret it stored`, async (t) => {
    const { userId, store, now } = await secretStore(t, db);
    let rival = '';
    const tries: boolean[] = [];
    // A rival rotation gets in between this rotation's read and its write, once.
    const raced = Object.assign(Object.create(store) as SequelizeWebhookSecretStore, {
      rotate: async (user: string, expected: string, next: string, until: Date, at: Date) => {
        if (!rival) {
          rival = newWebhookSecret();
          t.true(await store.rotate(user, expected, rival, until, at));
        }
        const changed = await store.rotate(user, expected, next, until, at);
        tries.push(changed);
        return changed;
      },
    });
    const secrets = new WebhookSecrets({ store: raced, clock: { now: () => now }, newSecret: newWebhookSecret });
    await secrets.get(userId);
    const answered = await secrets.rotate(userId);
    t.deepEqual(tries, [false, true], 'the lost write, then the one on the rival’s secret');
    const stored = await secrets.get(userId);
    t.is(answered.secret, stored.secret, 'the answer is the secret stored now');
    t.not(answered.secret, rival);
    t.deepEqual(await secrets.signingSecrets(userId), [answered.secret, rival], 'the rival’s secret signs on through its grace');
  });

  test(`${db}: a rotation answers the secret it wrote, even when another rotation replaces it before the answer`, async (t) => {
    const { userId, store, now } = await secretStore(t, db);
    let overtaken = '';
    let written = '';
    // The store lets a second rotation in right after the first one's write, before its answer is built.
    const racing = Object.assign(Object.create(store) as SequelizeWebhookSecretStore, {
      rotate: async (user: string, expected: string, next: string, until: Date, at: Date) => {
        const changed = await store.rotate(user, expected, next, until, at);
        if (changed && !overtaken) {
          written = next;
          overtaken = newWebhookSecret();
          t.true(await store.rotate(user, next, overtaken, until, at));
        }
        return changed;
      },
    });
    const secrets = new WebhookSecrets({ store: racing, clock: { now: () => now }, newSecret: newWebhookSecret });
    const old = (await secrets.get(userId)).secret;
    const answered = await secrets.rotate(userId);
    t.not(written, old);
    t.is(answered.secret, written);
    t.is((await secrets.get(userId)).secret, overtaken);
    t.deepEqual(answered.rotatedAt, now);
    t.deepEqual(answered.previousValidUntil, new Date(now.getTime() + 24 * HOUR));
  });

  test(`${db}: a delivery signs with the new and the replaced secret during the grace period, with the new one only after it`, async (t) => {
    const backend = await openBackend(db);
    t.teardown(() => backend.dispose());
    const userId = await addUser(backend.repos.users);
    let now = new Date('2030-01-01T00:00:00.000Z');
    const store = new SequelizeWebhookSecretStore(backend.db!.autocommit);
    const secrets = new WebhookSecrets({ store, clock: { now: () => now }, newSecret: newWebhookSecret });
    const old = (await secrets.get(userId)).secret;
    // A rotation from a secret that is no longer current (another rotation won) changes nothing.
    t.false(await store.rotate(userId, newWebhookSecret(), newWebhookSecret(), now, now));
    t.is((await secrets.get(userId)).secret, old);
    t.deepEqual(await secrets.signingSecrets(userId), [old]);
    const fresh = (await secrets.rotate(userId)).secret;
    now = new Date(now.getTime() + 23 * HOUR);
    t.deepEqual(await secrets.signingSecrets(userId), [fresh, old]);

    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const sender = new HttpWebhookSender({ policy: { allowPrivate: false, allowCidrs: ['127.0.0.1/32'], allowHttpHosts: ['127.0.0.1'] }, timeoutMs: 10_000 });
    const body = JSON.stringify({ type: 'job.completed', data: { id: userId } });
    const deliver = async () => {
      const result = await sender.send({ url, id: 'msg_rotation', timestamp: new Date(), body, secrets: await secrets.signingSecrets(userId) });
      t.deepEqual(result, { delivered: true, statusCode: 204 });
      return received.at(-1)!;
    };
    const during = await deliver();
    for (const secret of [old, fresh]) t.deepEqual(new Webhook(secret).verify(during.body, during.headers as Record<string, string>), JSON.parse(body));

    now = new Date(now.getTime() + HOUR + 1);
    t.deepEqual(await secrets.signingSecrets(userId), [fresh]);
    const after = await deliver();
    t.deepEqual(new Webhook(fresh).verify(after.body, after.headers as Record<string, string>), JSON.parse(body));
    t.throws(() => new Webhook(old).verify(after.body, after.headers as Record<string, string>));
    t.is((await secrets.get(userId)).previousValidUntil, null);
  });
}
