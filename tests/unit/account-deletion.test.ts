/**
 * Deleting accounts (ADR 063) on the in-memory adapters: a failure at every step of the deletion's transaction leaves
 * the account whole; a failure at every step of the purge leaves no file without its row and is finished by the next
 * sweep; late jobs, running jobs, double deletions, the proof asked of an account without a password and the login
 * limits.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import type { ObjectStorage } from '../../core/ports/object-storage.port.ts';
import type { PasswordHasher } from '../../core/ports/password-hasher.port.ts';
import type { Transaction, UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { DeleteAccount, DeleteUser, type AccountRemovalDeps } from '../../core/use-cases/auth/delete-account.use-case.ts';
import { PurgeDeletedAccounts } from '../../core/use-cases/auth/purge-deleted-accounts.use-case.ts';
import { SessionRevocations } from '../../core/use-cases/auth/session-revocations.service.ts';
import { newJob } from '../contract/fixtures.ts';
import { generationHarness, quietLogger } from '../support/generation-harness.ts';

const PASSWORD = 'correct horse battery';

class Injected extends Error {}

/** Which call fails: `<repository>.<method>` inside the deletion's transaction, or `storage.delete` / `history.delete` / `uploads.delete` in the purge. */
interface Faults {
  failAt: string | null;
  /** Fails only the n-th call (1-based) of `failAt`. */
  nth: number;
}

async function world(t: { teardown(fn: () => Promise<void>): void }) {
  const faults: Faults = { failAt: null, nth: 1 };
  const calls = new Map<string, number>();
  const hit = (name: string) => {
    const count = (calls.get(name) ?? 0) + 1;
    calls.set(name, count);
    if (faults.failAt === name && count === faults.nth) throw new Injected(`injected at ${name}`);
  };
  /** Each repository of the transaction, with every method counted and failable by name. */
  const failing = (tx: Transaction): Transaction =>
    new Proxy(tx, {
      get(target, repo: string) {
        const inner = (target as unknown as Record<string, unknown>)[repo];
        if (repo === 'afterCommit' || typeof inner !== 'object' || inner === null) return typeof inner === 'function' ? (inner as () => void).bind(target) : inner;
        return new Proxy(inner, {
          get(object, method: string) {
            const fn = (object as Record<string, unknown>)[method];
            if (typeof fn !== 'function') return fn;
            return async (...args: unknown[]) => {
              hit(`${repo}.${method}`);
              return (fn as (...a: unknown[]) => unknown).apply(object, args);
            };
          },
        });
      },
    });
  const h = await generationHarness({
    uow: (inner: UnitOfWork): UnitOfWork => ({ run: (work) => inner.run((tx) => work(failing(tx))) }),
    storage: (inner: ObjectStorage): ObjectStorage =>
      new Proxy(inner, {
        get(target, method: string) {
          const fn = (target as unknown as Record<string, unknown>)[method];
          if (method !== 'delete' || typeof fn !== 'function') return typeof fn === 'function' ? (fn as () => unknown).bind(target) : fn;
          return async (key: string) => {
            hit('storage.delete');
            return (fn as (k: string) => Promise<void>).call(target, key);
          };
        },
      }),
  });
  t.teardown(() => h.dispose());
  const { repos, clock } = h;
  const failingRepos = {
    history: {
    ...repos.history,
    listForUser: repos.history.listForUser.bind(repos.history),
    listAllForUser: repos.history.listAllForUser.bind(repos.history),
    delete: async (id: string) => {
      hit('history.delete');
      if (faults.failAt !== 'history.delete does nothing') await repos.history.delete(id);
      // As a database would: a turn of the event loop, so a purge that loops on it cannot starve the test's timer.
      else await new Promise((resolve) => setImmediate(resolve));
    },
  },
    uploads: { ...repos.uploads, listForUser: repos.uploads.listForUser.bind(repos.uploads), delete: async (id: string) => (hit('uploads.delete'), repos.uploads.delete(id)) },
  };
  const bus = new InProcessEventBus();
  const revocations = new SessionRevocations({ sessions: repos.sessions, bus, clock, logger: quietLogger });
  const cancelRequests: string[] = [];
  const purgeRequests: string[] = [];
  const removal: AccountRemovalDeps = {
    uow: h.uow,
    lifecycle: h.lifecycle,
    revocations,
    clock,
    logger: quietLogger,
    requestCancel: async (jobId) => void cancelRequests.push(jobId),
    purgeSoon: (userId) => void purgeRequests.push(userId),
  };
  const hasher: PasswordHasher = { hash: async (password) => `plain:${password}`, verify: async (password, hash) => hash === `plain:${password}` };
  const deleteAccount = new DeleteAccount({
    ...removal,
    users: repos.users,
    hasher,
    cache: new MemoryCache(() => Date.now()),
    limits: { perAccountAndAddress: 3, perAccount: 100, perAddress: 100, windowSeconds: 900 },
  });
  const deleteUser = new DeleteUser({ ...removal, ids: { newId: randomUUID } });
  const purge = new PurgeDeletedAccounts({
    users: repos.users,
    history: failingRepos.history as never,
    uploads: failingRepos.uploads as never,
    storage: h.storage,
    uow: h.uow,
    lifecycle: h.lifecycle,
    logger: quietLogger,
    requestCancel: async (jobId) => void cancelRequests.push(jobId),
  });

  /** A user with a password, 50 coins, a login, an API key, an identity, two outputs, an upload and a queued job (3 coins). */
  const account = async () => {
    const userId = await h.newUser(50);
    const user = (await repos.users.findById(userId))!;
    // The harness makes users without a password; this one gets its hash straight in the store.
    h.backend.store!.users.get(userId)!.passwordHash = `plain:${PASSWORD}`;
    const family = randomUUID();
    await repos.sessions.create({ id: randomUUID(), userId, familyId: family, tokenHash: randomUUID(), expiresAt: new Date(clock.now().getTime() + 3_600_000), createdAt: clock.now() });
    const keyId = randomUUID();
    await repos.apiKeys.create({ id: keyId, userId, name: 'k', scopes: ['generate'], prefix: `mgs_${keyId.slice(0, 12)}`, secretHash: randomUUID(), createdAt: clock.now(), expiresAt: null, lastUsedAt: null, revokedAt: null });
    await repos.identities.link({ userId, provider: 'google', subject: `sub-${userId}`, email: null, createdAt: clock.now() });
    const templateId = await h.addTemplate(3);
    for (let i = 0; i < 2; i++) {
      const done = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: i } });
      if (!done.ok) throw new Error(JSON.stringify(done));
      await h.run.execute(h.delivery(done.value.job.id));
    }
    const uploadKey = `uploads/${userId}/${randomUUID()}.png`;
    await h.storage.put(uploadKey, Buffer.from('png'), { contentType: 'image/png' });
    await repos.uploads.create({ id: randomUUID(), userId, storageKey: uploadKey, mimeType: 'image/png', width: 1, height: 1, sizeBytes: 3, createdAt: clock.now(), contentHash: null, fileName: null });
    const queued = await h.submit.execute({ userId, role: 'user', templateId, parameters: { color: 9 } });
    if (!queued.ok) throw new Error(JSON.stringify(queued));
    return { userId, email: user.email, family, keyId, queuedJobId: queued.value.job.id };
  };

  /** Everything the account holds, to compare before and after. */
  const snapshot = async (userId: string) => ({
    user: await repos.users.findById(userId),
    jobs: (await repos.jobs.listForUser(userId, { page: 1, limit: 50 })).items.map((job) => [job.id, job.status]),
    outputs: (await repos.history.listForUser(userId, { page: 1, limit: 50 })).items.map((item) => item.id),
    files: await Promise.all((await repos.history.listForUser(userId, { page: 1, limit: 50 })).items.map(async (item) => (await h.storage.head(item.storageKey)) !== null)),
    uploads: (await repos.uploads.listForUser(userId, 50)).map((upload) => upload.id),
    logins: await repos.sessions.activeFamilies(userId, clock.now()),
    keys: (await repos.apiKeys.listByUser(userId)).map((key) => key.id),
    identities: (await repos.identities.listForUser(userId)).map((identity) => identity.subject),
    ledger: await repos.ledger.sum(userId),
    deleted: await repos.users.listDeleted(50),
  });

  return { h, repos, faults, calls, deleteAccount, deleteUser, purge, cancelRequests, purgeRequests, account, snapshot };
}

const DELETION_STEPS = [
  'users.markDeleted',
  'jobs.listActiveForUser',
  'jobs.transition',
  'ledger.apply',
  'ledger.sum',
  'sessions.activeFamilies',
  'sessions.revokeFamily',
  'apiKeys.revokeAllForUser',
  'identities.unlinkAll',
  'audit.record',
];

for (const step of DELETION_STEPS) {
  test(`a failure at ${step} in the deletion's transaction leaves the account whole; deleting again then works`, async (t) => {
    const w = await world(t);
    const { userId } = await w.account();
    const before = await w.snapshot(userId);
    t.is(before.jobs.filter(([, status]) => status === 'queued').length, 1);
    w.calls.clear();
    w.faults.failAt = step;
    await t.throwsAsync(w.deleteUser.execute({ actorId: randomUUID(), userId }), { instanceOf: Injected });
    t.true((w.calls.get(step) ?? 0) >= 1, `${step} was reached`);
    t.deepEqual(await w.snapshot(userId), before, 'nothing changed');
    t.deepEqual(w.cancelRequests, [], 'no job was interrupted');
    t.deepEqual(w.purgeRequests, [], 'no purge started');
    t.deepEqual(await w.repos.audit.list({ page: 1, limit: 10 }), { items: [], page: 1, limit: 10, total: 0, totalPages: 0 });

    w.faults.failAt = null;
    const done = await w.deleteUser.execute({ actorId: randomUUID(), userId });
    t.like(done, { ok: true, value: { jobsCancelled: 1, coinsForfeited: 50 - 2 * 3 } });
    t.is(await w.repos.users.findById(userId), null);
  });
}

test('the deletion cancels and refunds queued and running jobs, interrupts the running one, ends logins and keys, and starts the purge', async (t) => {
  const w = await world(t);
  const { userId, queuedJobId } = await w.account();
  const running = await w.h.submit.execute({ userId, role: 'user', templateId: await w.h.addTemplate(5), parameters: { color: 1 } });
  if (!running.ok) return t.fail();
  t.true(await w.repos.jobs.transition(running.value.job.id, { to: 'running', runId: randomUUID(), changes: { startedAt: w.h.clock.now() } }, w.h.clock.now()));
  t.is(await w.h.balance(userId), 50 - 3 * 3 - 5);

  const done = await w.deleteUser.execute({ actorId: randomUUID(), userId });
  t.deepEqual(done, { ok: true, value: { jobsCancelled: 2, coinsForfeited: 50 - 2 * 3 } }, 'both refunds came before the balance was read');
  t.deepEqual((await w.repos.jobs.findById(queuedJobId))?.status, 'cancelled');
  t.deepEqual((await w.repos.jobs.findById(running.value.job.id))?.status, 'cancelled');
  t.deepEqual(w.cancelRequests.sort(), [queuedJobId, running.value.job.id].sort());
  t.deepEqual(w.purgeRequests, [userId]);
  const after = await w.snapshot(userId);
  t.like(after, { user: null, logins: [], keys: [], identities: [], deleted: [userId] });
  t.is(after.outputs.length, 2, 'the files wait for the purge');
  t.like(await w.deleteUser.execute({ actorId: randomUUID(), userId }), { ok: false, code: 'NOT_FOUND' }, 'not twice');
});

test('two deletions of one account at once: one deletes it, the other finds nothing; each job is refunded once', async (t) => {
  const w = await world(t);
  const { userId } = await w.account();
  const outcomes = await Promise.all([w.deleteUser.execute({ actorId: randomUUID(), userId }), w.deleteUser.execute({ actorId: randomUUID(), userId })]);
  t.deepEqual(outcomes.map((outcome) => outcome.ok).sort(), [false, true]);
  t.is((await w.repos.ledger.list(userId, { page: 1, limit: 50 })).items.filter((row) => row.reason === 'generation_refund').length, 1);
  t.is((await w.repos.audit.list({ page: 1, limit: 10 })).total, 1);
});

test('an administrator cannot delete their own account here; a user proves a password, or the email of an account without one', async (t) => {
  const w = await world(t);
  const { userId, email } = await w.account();
  t.like(await w.deleteUser.execute({ actorId: userId, userId }), { ok: false, code: 'CONFLICT' });
  t.truthy(await w.repos.users.findById(userId));

  const social = await w.h.newUser(10);
  const socialEmail = (await w.repos.users.findById(social))!.email;
  const ask = (confirmEmail: unknown, password?: unknown) => w.deleteAccount.execute({ userId: social, email: socialEmail, password, confirmEmail, clientAddress: '10.0.0.1' });
  for (const wrong of [undefined, '', 'someone@example.com', 42]) {
    t.like(await ask(wrong, PASSWORD), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'confirmEmail' }] }, String(wrong));
  }
  t.truthy(await w.repos.users.findById(social));
  t.like(await ask(`  ${socialEmail.toUpperCase()} `), { ok: true, value: { jobsCancelled: 0, coinsForfeited: 10 } });
  t.is(await w.repos.users.findById(social), null);

  const asUser = (password: unknown) => w.deleteAccount.execute({ userId, email, password, confirmEmail: email, clientAddress: '10.0.0.2' });
  t.like(await asUser(undefined), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'password' }] }, 'the email is no proof for an account with a password');
  for (let i = 0; i < 3; i++) t.like(await asUser('wrong guess'), { ok: false, details: [{ field: 'password', message: 'is wrong' }] });
  t.like(await asUser(PASSWORD), { ok: false, code: 'AUTH.RATE_LIMITED' }, 'the login limits hold, even for the right password');
  t.truthy(await w.repos.users.findById(userId));
  t.like(await w.deleteAccount.execute({ userId, email: 'not-theirs@example.com', password: PASSWORD, confirmEmail: null, clientAddress: '10.0.0.3' }), { ok: false, code: 'NOT_FOUND' });
});

const PURGE_STEPS: [string, number][] = [
  ['storage.delete', 1],
  ['history.delete', 1],
  ['storage.delete', 2],
  ['history.delete', 2],
  ['storage.delete', 3],
  ['uploads.delete', 1],
];

for (const [step, nth] of PURGE_STEPS) {
  test(`a failure at ${step} #${nth} in the purge leaves no row without its file and no file without its row; the next sweep finishes`, async (t) => {
    const w = await world(t);
    const { userId } = await w.account();
    const other = await w.account();
    const otherBefore = await w.snapshot(other.userId);
    t.true((await w.deleteUser.execute({ actorId: randomUUID(), userId })).ok);
    const outputs = await w.repos.history.listForUser(userId, { page: 1, limit: 10 });
    const keys = [...outputs.items.map((item) => item.storageKey), ...(await w.repos.uploads.listForUser(userId, 10)).map((upload) => upload.storageKey)];
    t.is(keys.length, 3);

    w.calls.clear();
    w.faults.failAt = step;
    w.faults.nth = nth;
    t.false(await w.purge.purge(userId), 'the purge reports it did not finish');
    t.deepEqual(await w.repos.users.listDeleted(10), [userId], 'the husk stays for the next sweep');
    for (const item of (await w.repos.history.listForUser(userId, { page: 1, limit: 10 })).items) {
      // A row may point at a file already deleted only when the row's own delete failed: the next sweep deletes both.
      if (!(step === 'history.delete' && (await w.h.storage.head(item.storageKey)) === null)) t.truthy(await w.h.storage.head(item.storageKey), 'a listed output keeps its file');
    }
    const stillListed = new Set([...(await w.repos.history.listForUser(userId, { page: 1, limit: 10 })).items.map((item) => item.storageKey), ...(await w.repos.uploads.listForUser(userId, 10)).map((upload) => upload.storageKey)]);
    for (const key of keys) if (!stillListed.has(key)) t.is(await w.h.storage.head(key), null, 'a file whose row went is gone');

    w.faults.failAt = null;
    t.is(await w.purge.execute(), 1);
    for (const key of keys) t.is(await w.h.storage.head(key), null, `${key} is deleted`);
    t.deepEqual(await w.repos.users.listDeleted(10), []);
    t.deepEqual(await w.snapshot(other.userId), otherBefore, 'another account keeps everything');
  });
}

test('a job that committed after the deletion is cancelled by the purge, which then finishes', async (t) => {
  const w = await world(t);
  const { userId } = await w.account();
  t.true((await w.deleteUser.execute({ actorId: randomUUID(), userId })).ok);
  const late = await w.h.submit.execute({ userId, role: 'user', templateId: await w.h.addTemplate(0), parameters: { color: 2 } });
  if (!late.ok) return t.fail(JSON.stringify(late));
  t.true(await w.purge.purge(userId));
  t.true(w.cancelRequests.includes(late.value.job.id));
  t.deepEqual(await w.repos.users.listDeleted(10), []);
  t.is(await w.repos.jobs.findById(late.value.job.id), null);
});

test('purges of one account in parallel run once; a sweep purges every deleted account and leaves live ones', async (t) => {
  const w = await world(t);
  const [a, b, live] = [await w.account(), await w.account(), await w.account()];
  for (const { userId } of [a, b]) t.true((await w.deleteUser.execute({ actorId: randomUUID(), userId })).ok);
  w.calls.clear();
  const [first, second] = await Promise.all([w.purge.purge(a.userId), w.purge.purge(a.userId)]);
  t.true(first && second);
  t.is(w.calls.get('storage.delete'), 3, "each of a's three files deleted once");
  t.is(await w.purge.execute(), 1);
  t.deepEqual(await w.repos.users.listDeleted(10), []);
  t.truthy(await w.repos.users.findById(live.userId));
  t.is((await w.repos.history.listForUser(live.userId, { page: 1, limit: 10 })).total, 2);
});

test('a row the purge cannot delete (its delete does nothing) ends the purge with false instead of looping; the next sweep finishes', async (t) => {
  const w = await world(t);
  const { userId } = await w.account();
  t.true((await w.deleteUser.execute({ actorId: null, userId })).ok);
  w.faults.failAt = 'history.delete does nothing';
  const outcome = await Promise.race([w.purge.purge(userId), new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 3000))]);
  // A purge that loops is stopped here (its deletes work again), so the test fails instead of hanging.
  if (outcome === 'still running') w.faults.failAt = null;
  t.false(outcome);
  t.deepEqual(await w.repos.users.listDeleted(10), [userId]);
  w.faults.failAt = null;
  t.is(await w.purge.execute(), 1);
  t.deepEqual(await w.repos.users.listDeleted(10), []);
});

test("the operator's deletion (no administrator) writes no audit row; an administrator's writes one naming what it ended", async (t) => {
  const w = await world(t);
  const [a, b] = [await w.account(), await w.account()];
  t.like(await w.deleteUser.execute({ actorId: null, userId: a.userId }), { ok: true });
  t.is((await w.repos.audit.list({ page: 1, limit: 10 })).total, 0);
  const actorId = randomUUID();
  t.like(await w.deleteUser.execute({ actorId, userId: b.userId }), { ok: true });
  t.like((await w.repos.audit.list({ page: 1, limit: 10 })).items, [{ actorId, action: 'user.delete', targetUserId: b.userId, details: { jobsCancelled: 1, coinsForfeited: 44 } }]);
});

test("an administrator's account is purged with its template test runs' outputs, which its history page leaves out", async (t) => {
  const w = await world(t);
  const { userId } = await w.account();
  const jobId = randomUUID();
  await w.repos.jobs.create(newJob(userId, { id: jobId, status: 'succeeded', testRun: true, createdAt: w.h.clock.now() }));
  const storageKey = `outputs/${userId}/${jobId}/test.png`;
  await w.h.storage.put(storageKey, Buffer.from('png'), { contentType: 'image/png' });
  const itemId = randomUUID();
  await w.repos.history.add({ id: itemId, jobId, userId, templateId: null, storageKey, fileName: 'test.png', mimeType: 'image/png', sizeBytes: 3, width: 1, height: 1, durationSeconds: null, usedParameters: {}, createdAt: w.h.clock.now(), expiresAt: new Date(w.h.clock.now().getTime() + 86_400_000) });
  t.false((await w.repos.history.listForUser(userId, { page: 1, limit: 10 })).items.some((item) => item.id === itemId), 'the history page leaves it out');
  t.true((await w.deleteUser.execute({ actorId: null, userId })).ok);
  t.true(await w.purge.purge(userId));
  t.is(await w.h.storage.head(storageKey), null);
  t.deepEqual(await w.repos.users.listDeleted(10), []);
});

test('a deletion cancels every unfinished job, past the 100 one read lists', async (t) => {
  const w = await world(t);
  const { userId } = await w.account();
  for (let i = 0; i < 104; i++) {
    await w.repos.jobs.create(newJob(userId, { createdAt: new Date(w.h.clock.now().getTime() + i) }));
  }
  t.like(await w.deleteUser.execute({ actorId: null, userId }), { ok: true, value: { jobsCancelled: 105 } });
  t.deepEqual(await w.repos.jobs.listActiveForUser(userId), []);
});

test("a user's deletion proves the account it names: another user's email deletes nothing", async (t) => {
  const w = await world(t);
  const [a, b] = [await w.account(), await w.account()];
  t.like(await w.deleteAccount.execute({ userId: a.userId, email: b.email, password: PASSWORD, confirmEmail: null, clientAddress: '10.0.0.9' }), { ok: false, code: 'NOT_FOUND' });
  t.truthy(await w.repos.users.findById(a.userId));
  t.truthy(await w.repos.users.findById(b.userId));
});

test('a purge of a live account touches nothing of it: its jobs, outputs, files and uploads stay', async (t) => {
  const w = await world(t);
  const { userId } = await w.account();
  const before = await w.snapshot(userId);
  t.false(await w.purge.purge(userId));
  t.deepEqual(await w.snapshot(userId), before);
  t.deepEqual(w.cancelRequests, []);
});
