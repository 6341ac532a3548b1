import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { Outbox } from '../../core/ports/outbox.port.ts';
import type { Transaction } from '../../core/ports/unit-of-work.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, freshBackend, HOUR, historyItem, newJob, newUser, sleep, waitFor, within, type MakeBackend } from './fixtures.ts';

/** Rows that exist before the transaction, so it can change them as well as add new ones. */
interface World {
  userId: string;
  sessionHash: string;
  deductionId: string;
  requestId: string;
  jobId: string;
  uploadId: string;
}

/** Ids of what the transaction adds. */
const additions = () => {
  const runId = randomUUID();
  return {
    userId: randomUUID(),
    sessionHash: randomUUID().replace(/-/g, ''),
    jobId: randomUUID(),
    historyId: randomUUID(),
    stagedKey: `outputs/staged/${runId}.png`,
    runId,
    outboxId: randomUUID(),
    auditId: randomUUID(),
    idempotencyKey: `key-${randomUUID()}`,
    templateId: randomUUID(),
    uploadId: randomUUID(),
    deductionId: randomUUID(),
    requestId: randomUUID(),
  };
};
type Additions = ReturnType<typeof additions>;

const template = (id: string): WorkflowTemplate => ({
  id,
  name: `Template ${id}`,
  description: null,
  category: 'text-to-image',
  workflow: { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } },
  parameterMap: {},
  cost: 2,
  outputType: 'image',
  isActive: true,
  publishedAt: at(0),
  version: 1,
  createdAt: at(0),
  updatedAt: at(0),
});

const upload = (id: string, userId: string) => ({
  id,
  userId,
  storageKey: `uploads/${userId}/${id}.png`,
  contentHash: null,
  fileName: null,
  mimeType: 'image/png',
  width: 8,
  height: 8,
  sizeBytes: 10,
  createdAt: at(0),
});

async function seed(repos: Repositories): Promise<World> {
  const userId = await addUser(repos.users);
  const sessionHash = randomUUID().replace(/-/g, '');
  await repos.sessions.create({ id: randomUUID(), userId, familyId: randomUUID(), tokenHash: sessionHash, expiresAt: at(30 * 24 * HOUR), createdAt: at(0) });
  await repos.ledger.apply({ id: randomUUID(), userId, amount: 20, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: at(1) });
  const deductionId = randomUUID();
  const requestId = randomUUID();
  await repos.ledger.apply({ id: deductionId, userId, amount: -5, reason: 'image_generation', relatedEntityId: requestId, actorId: userId, createdAt: at(2) });
  await repos.deductions.add({ id: deductionId, userId, relatedEntityId: requestId, amount: 5, createdAt: at(2) });
  const job = newJob(userId);
  await repos.jobs.create(job);
  const uploadId = randomUUID();
  await repos.uploads.create(upload(uploadId, userId));
  return { userId, sessionHash, deductionId, requestId, jobId: job.id, uploadId };
}

/** One write (or more) through every repository of the transaction. */
async function writeEverything(tx: Transaction, world: World, add: Additions): Promise<void> {
  const now = at(HOUR);
  await tx.users.create(newUser({ id: add.userId }));
  await tx.users.setRole(world.userId, 'admin', now);
  await tx.sessions.create({ id: randomUUID(), userId: world.userId, familyId: randomUUID(), tokenHash: add.sessionHash, expiresAt: at(30 * 24 * HOUR), createdAt: now });
  await tx.sessions.markRotated((await tx.sessions.findByTokenHash(world.sessionHash))!.id, now);
  const credited = await tx.ledger.apply({ id: randomUUID(), userId: world.userId, amount: 7, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: now });
  if (!credited.ok) throw new Error(credited.reason);
  if (!(await tx.deductions.end(world.deductionId, 'job', world.jobId, now))) throw new Error('not claimed');
  if (!(await tx.jobs.create(newJob(world.userId, { id: add.jobId, createdAt: now })))) throw new Error('job not created');
  if (!(await tx.jobs.transition(world.jobId, { to: 'running', runId: add.runId, changes: { attempts: 1, startedAt: now } }, now))) throw new Error('not moved');
  if (!(await tx.history.add(historyItem(world.userId, world.jobId, { id: add.historyId, createdAt: now })))) throw new Error('history not added');
  await tx.staged.add({ storageKey: add.stagedKey, jobId: world.jobId, runId: add.runId, createdAt: now });
  await tx.outbox.add({ id: add.outboxId, createdAt: now, message: { taskType: 'generation', environment: 'local', body: { jobId: add.jobId } } });
  await tx.audit.record({ id: add.auditId, actorId: world.userId, action: 'coin.add', targetUserId: world.userId, details: { amount: 7 }, createdAt: now });
  const claimed = await tx.idempotency.claim({ userId: world.userId, key: add.idempotencyKey, fingerprint: 'f', token: randomUUID(), claimedAt: now, expiresAt: at(48 * HOUR) });
  if (!claimed.claimed) throw new Error('key not claimed');
  if (!(await tx.templates.create(template(add.templateId)))) throw new Error('template not created');
  await tx.uploads.create(upload(add.uploadId, world.userId));
  if (!(await tx.uploads.markUsed(world.uploadId, now))) throw new Error('upload not marked');
  await tx.events.append(world.userId, { type: 'job.started', jobId: world.jobId, attempt: 1, etaSeconds: null }, now);
  await tx.deductions.add({ id: add.deductionId, userId: world.userId, relatedEntityId: add.requestId, amount: 3, createdAt: now });
}

/**
 * The outbox table behind a scope's writer: these backends are built with the table writer (a relay's
 * outbox), so the writer is the table repository itself, transaction-bound inside `uow.run`.
 */
const outboxOf = (repos: Repositories): Outbox => repos.outbox as Outbox;

/** What every repository shows of the world and of the additions. `n` keeps each look's outbox lease apart. */
async function observe(repos: Repositories, world: World, add: Additions, n: number) {
  const user = (await repos.users.findById(world.userId))!;
  const now = at(n * 24 * HOUR);
  return {
    newUser: (await repos.users.findById(add.userId)) !== null,
    role: user.role,
    balance: user.coinBalance,
    ledgerSum: await repos.ledger.sum(world.userId),
    ledgerRows: (await repos.ledger.list(world.userId, { page: 1, limit: 100 })).total,
    newSession: (await repos.sessions.findByTokenHash(add.sessionHash)) !== null,
    rotated: (await repos.sessions.findByTokenHash(world.sessionHash))!.rotatedAt !== null,
    deductionUnclaimed: (await repos.deductions.findOpen(world.userId, world.requestId)) !== null,
    newDeduction: (await repos.deductions.findOpen(world.userId, add.requestId)) !== null,
    newJob: (await repos.jobs.findById(add.jobId)) !== null,
    jobStatus: (await repos.jobs.findById(world.jobId))!.status,
    history: (await repos.history.findForUser(add.historyId, world.userId)) !== null,
    staged: (await repos.staged.listForRun(add.runId)).length,
    outbox: (await outboxOf(repos).lease(100, { token: randomUUID(), until: new Date(now.getTime() + 1000) }, now)).map((entry) => entry.id),
    audit: (await repos.audit.list({ page: 1, limit: 100 })).items.some((entry) => entry.id === add.auditId),
    idempotency: (await repos.idempotency.find(world.userId, add.idempotencyKey)) !== null,
    template: (await repos.templates.findById(add.templateId)) !== null,
    newUpload: (await repos.uploads.findForUser(add.uploadId, world.userId)) !== null,
    uploadUsed: (await repos.uploads.findForUser(world.uploadId, world.userId))!.usedAt !== null,
    events: (await repos.events.listSince(world.userId, 0, 100)).length,
  };
}

const UNTOUCHED = {
  newUser: false,
  role: 'user',
  balance: 15,
  ledgerSum: 15,
  ledgerRows: 2,
  newSession: false,
  rotated: false,
  deductionUnclaimed: true,
  newDeduction: false,
  newJob: false,
  jobStatus: 'queued',
  history: false,
  staged: 0,
  outbox: [] as string[],
  audit: false,
  idempotency: false,
  template: false,
  newUpload: false,
  uploadUsed: false,
  events: 0,
};

const written = (add: Additions) => ({
  newUser: true,
  role: 'admin',
  balance: 22,
  ledgerSum: 22,
  ledgerRows: 3,
  newSession: true,
  rotated: true,
  deductionUnclaimed: false,
  newDeduction: true,
  newJob: true,
  jobStatus: 'running',
  history: true,
  staged: 1,
  outbox: [add.outboxId],
  audit: true,
  idempotency: true,
  template: true,
  newUpload: true,
  uploadUsed: true,
  events: 1,
});

/** Registers the UnitOfWork contract for one backend; `make()` returns a fresh, empty backend. */
export function unitOfWorkContract(name: string, make: MakeBackend): void {
  test(`${name}: a unit of work that resolves commits every repository's writes and returns the work's value`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const world = await seed(repos);
    const add = additions();
    t.deepEqual(await observe(repos, world, add, 1), UNTOUCHED);
    const value = await uow.run(async (tx) => {
      await writeEverything(tx, world, add);
      return { done: 42 };
    });
    t.deepEqual(value, { done: 42 });
    t.deepEqual(await observe(repos, world, add, 2), written(add));
  });

  test(`${name}: a unit of work that throws rolls back every repository's writes, and the error propagates`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const world = await seed(repos);
    const add = additions();
    const failure = new Error('a later step failed');
    const thrown = await t.throwsAsync(
      uow.run(async (tx) => {
        await writeEverything(tx, world, add);
        // The writes did happen, in the transaction: it sees them itself.
        t.deepEqual(await observe(tx, world, add, 1), written(add));
        throw failure;
      }),
    );
    t.is(thrown, failure, 'the very error thrown by the work');
    t.deepEqual(await observe(repos, world, add, 2), UNTOUCHED);
    // The rolled-back additions left nothing behind: the same ids go in now.
    await uow.run((tx) => writeEverything(tx, world, add));
    t.deepEqual(await observe(repos, world, add, 3), written(add));
  });

  test(`${name}: afterCommit hooks run after the commit, in the order they were added`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const user = newUser();
    const order: string[] = [];
    let visibleToHook: boolean | null = null;
    const value = await uow.run(async (tx) => {
      await tx.users.create(user);
      tx.afterCommit(async () => {
        order.push('first');
        visibleToHook = (await repos.users.findById(user.id)) !== null;
      });
      tx.afterCommit(() => {
        order.push('second');
      });
      tx.afterCommit(() => {
        order.push('third');
      });
      await sleep(20);
      order.push('work done');
      return 'value';
    });
    t.is(value, 'value');
    await waitFor(() => order.length === 4 && visibleToHook !== null, 'the hooks');
    t.deepEqual(order, ['work done', 'first', 'second', 'third']);
    t.true(visibleToHook, 'a hook sees the committed change');
  });

  test(`${name}: an afterCommit hook may start a unit of work of its own`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const first = newUser();
    const second = newUser();
    let hook = null as Promise<boolean> | null;
    await within(
      uow.run(async (tx) => {
        await tx.users.create(first);
        tx.afterCommit(async () => {
          hook = uow.run((next) => next.users.create(second));
          await hook;
        });
      }),
      5000,
      'the unit of work whose hook starts another',
    );
    await waitFor(() => hook !== null, 'the hook');
    t.true(await within(hook!, 5000, 'the unit of work started by the hook'));
    t.not(await repos.users.findById(second.id), null);
  });

  test(`${name}: afterCommit hooks never run after a rollback`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const user = newUser();
    let ran = 0;
    await t.throwsAsync(
      uow.run(async (tx) => {
        tx.afterCommit(() => void (ran += 1));
        await tx.users.create(user);
        tx.afterCommit(() => void (ran += 1));
        throw new Error('rolled back');
      }),
      { message: 'rolled back' },
    );
    // A later commit runs its own hooks only.
    let later = 0;
    await uow.run(async (tx) => {
      tx.afterCommit(() => void (later += 1));
    });
    await waitFor(() => later === 1, 'the later hook');
    await sleep(50);
    t.is(ran, 0);
    t.is(await repos.users.findById(user.id), null);
  });

  test(`${name}: a hook that throws does not undo the commit nor stop the hooks after it`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const user = newUser();
    let after = false;
    const value = await uow.run(async (tx) => {
      await tx.users.create(user);
      tx.afterCommit(() => {
        throw new Error('the notification failed');
      });
      tx.afterCommit(async () => {
        throw new Error('so did this one');
      });
      tx.afterCommit(() => {
        after = true;
      });
      return 'committed';
    });
    t.is(value, 'committed');
    await waitFor(() => after, 'the hook after the failing ones');
    t.not(await repos.users.findById(user.id), null);
  });

  test(`${name}: uow.run inside a unit of work rejects at once instead of waiting for itself`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const outer = newUser();
    const inner = newUser();
    const outcome = await within(
      uow.run(async (tx) => {
        await tx.users.create(outer);
        return within(
          uow.run((nested) => nested.users.create(inner)),
          3000,
          'the nested unit of work',
        ).then(
          () => 'resolved',
          (error: Error) => (error.message.startsWith('timed out') ? error.message : 'rejected'),
        );
      }),
      10_000,
      'the outer unit of work',
    );
    t.is(outcome, 'rejected');
    t.not(await repos.users.findById(outer.id), null, 'the outer transaction went on and committed');
    t.is(await repos.users.findById(inner.id), null);
  });

  test(`${name}: writes through tx are invisible outside it until the commit`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const existing = await addUser(repos.users);
    const user = newUser();
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    t.teardown(() => release());
    let committing = false;
    const transaction = uow.run(async (tx) => {
      await tx.users.create(user);
      await tx.ledger.apply({ id: randomUUID(), userId: existing, amount: 9, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(1) });
      written();
      await gate;
      committing = true;
    });
    await wrote;
    // Reads from outside the transaction, while it is open. A backend may answer at once (the committed
    // state) or make them wait for the commit; it must never show the uncommitted writes before it.
    const watch = <T>(read: Promise<T>) => read.then((value) => ({ value, afterCommit: committing }));
    const reads = Promise.all([watch(repos.users.findById(user.id)), watch(repos.users.findById(existing))]);
    await sleep(150);
    release();
    await transaction;
    const [newRow, balance] = await within(reads, 5000, 'the outside reads');
    t.true(newRow.value === null || newRow.afterCommit, 'the new row was seen before the commit');
    t.true(balance.value!.coinBalance === 0 || balance.afterCommit, 'the new balance was seen before the commit');
    t.not(await repos.users.findById(user.id), null);
    t.is((await repos.users.findById(existing))!.coinBalance, 9);
  });

  test(`${name}: concurrent units of work crediting one user all apply (no lost update)`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const userId = await addUser(repos.users);
    const seqs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        uow.run(async (tx) => {
          const seen = (await tx.users.findById(userId))!.coinBalance;
          await sleep(20); // every transaction has read the balance before any writes it
          const applied = await tx.ledger.apply({ id: randomUUID(), userId, amount: 10 + i, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(i) });
          if (!applied.ok) throw new Error(applied.reason);
          const event = await tx.events.append(userId, { type: 'job.status', jobId: 'j', text: `credit ${i} after ${seen}` }, at(i));
          return event.seq;
        }),
      ),
    );
    t.deepEqual([...seqs].sort(), [1, 2, 3, 4, 5]);
    t.is((await repos.users.findById(userId))!.coinBalance, 60);
    t.is(await repos.ledger.sum(userId), 60);
    t.deepEqual(
      (await repos.ledger.list(userId, { page: 1, limit: 10 })).items.map((row) => row.balanceAfter).sort((a, b) => a - b).at(-1),
      60,
    );
  });

  test(`${name}: among concurrent units of work one that throws rolls back alone; the others commit, each caller answered only once its writes are committed`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const users = await Promise.all(Array.from({ length: 8 }, () => addUser(repos.users)));
    const failure = new Error('unit 5 failed');
    const seenWhenAnswered: number[] = [];
    const hookRuns: number[] = [];
    const outcomes = await Promise.allSettled(
      users.map((userId, i) =>
        uow
          .run(async (tx) => {
            // The first holds the writer a while, so that the others queue up behind it (on SQLite: one group commit).
            if (i === 0) await sleep(30);
            const applied = await tx.ledger.apply({ id: randomUUID(), userId, amount: 10 + i, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(i) });
            if (!applied.ok) throw new Error(applied.reason);
            tx.afterCommit(() => void (hookRuns[i] = (hookRuns[i] ?? 0) + 1));
            if (i === 5) throw failure;
            return i;
          })
          .then(async (value) => {
            seenWhenAnswered[i] = (await repos.users.findById(userId))!.coinBalance;
            return value;
          }),
      ),
    );
    t.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    t.is((outcomes[5] as PromiseRejectedResult).reason, failure, 'the very error thrown by that unit');
    for (const [i, userId] of users.entries()) {
      const credited = i === 5 ? 0 : 10 + i;
      t.is((await repos.users.findById(userId))!.coinBalance, credited, `unit ${i}'s balance`);
      t.is(await repos.ledger.sum(userId), credited, `unit ${i}'s ledger`);
      if (i !== 5) t.is(seenWhenAnswered[i], credited, `unit ${i} was answered after its commit`);
    }
    // Where the units first ran together and were rolled back to run again alone (SQLite's group commit), the hooks
    // of the rolled-back attempt are gone: each committed unit's hook runs once, the failed unit's never.
    await waitFor(() => hookRuns.filter((n) => n !== undefined).length >= 7, 'the hooks');
    await sleep(20);
    t.deepEqual([...hookRuns.entries()].filter(([, n]) => n !== undefined), [0, 1, 2, 3, 4, 6, 7].map((i) => [i, 1]));
  });

  test(`${name}: each unit of work runs in its caller's async context, also when several wait for the writer together`, async (t) => {
    const { uow, repos } = await freshBackend(t, make);
    const userId = await addUser(repos.users);
    const caller = new AsyncLocalStorage<number>();
    const seen = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        caller.run(i, () =>
          uow.run(async (tx) => {
            if (i === 0) await sleep(30); // the others queue up behind the first
            await tx.ledger.apply({ id: randomUUID(), userId, amount: 1, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(i) });
            return caller.getStore();
          }),
        ),
      ),
    );
    t.deepEqual(seen, [0, 1, 2, 3, 4, 5], 'a trace or a log field set by the caller is the one its transaction sees');
  });
}
