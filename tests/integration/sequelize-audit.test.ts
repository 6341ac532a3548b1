/**
 * Guards of the Sequelize persistence adapters (SQLite and MariaDB) that the shared contracts do not pin: the
 * coin ledger's whole-coin amounts, its boundary, its one transaction and its pages; the database queue's publish
 * (no id, no body, a repeated id, owner places), consume options, peek, dead letters, redrive, discard and stats;
 * the output history's duplicates, pages, per-job reads, delete and expiry sweep; refresh-token lookups and login
 * checks (alone and batched); API key lookups, touches and millisecond times; template names, versions, order and
 * reads for update; and the plain SQLite statements' recovery from a failed prepare.
 * One migrated database per dialect is shared by the whole file; every test works on ids of its own.
 * Every expectation is a literal; nothing is read back from the code under test.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import sqlite3 from 'sqlite3';
import { SequelizeCoinLedger } from '../../adapters/sequelize/sequelize-coin-ledger.ts';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SequelizeHistoryRepository } from '../../adapters/sequelize/sequelize-history-repository.ts';
import { SequelizeSessionRepository } from '../../adapters/sequelize/sequelize-session-repository.ts';
import { SequelizeApiKeyRepository } from '../../adapters/sequelize/sequelize-api-key-repository.ts';
import { SequelizeTemplateRepository } from '../../adapters/sequelize/sequelize-template-repository.ts';
import { SqliteStatements } from '../../adapters/sequelize/plain-reader.ts';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import type { WorkflowTemplate } from '../../core/domain/workflow-template.ts';
import type { HistoryItem } from '../../core/domain/job.ts';
import type { ApiKey } from '../../core/domain/api-key.ts';
import { DATABASES, type TestDatabase } from '../support/databases.ts';
import { openMigratedDatabase } from '../support/migrated-database.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { waitFor } from '../contract/message-queue.contract.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0 + ms);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const opened = new Map<TestDatabase, Promise<{ db: SequelizeDatabase; dispose(): Promise<void> }>>();
/** The file's one migrated database of `kind`, opened on first use. */
const database = async (kind: TestDatabase): Promise<SequelizeDatabase> => {
  if (!opened.has(kind)) opened.set(kind, openMigratedDatabase(kind));
  return (await opened.get(kind)!).db;
};
test.after.always(async () => {
  for (const handle of opened.values()) await (await handle).dispose();
});

/** A user row with `coins`; its id. */
async function user(db: SequelizeDatabase, coins = 0): Promise<string> {
  const id = randomUUID();
  await db.autocommit.run('INSERT INTO users (id, email, display_name, role, coin_balance, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)', [
    id,
    `${id}@example.test`,
    'Audit',
    'user',
    coins,
    at(0),
    at(0),
  ]);
  return id;
}

const balanceOf = async (db: SequelizeDatabase, userId: string) => {
  const [row] = await db.autocommit.read<{ coin_balance: number | string }>('SELECT coin_balance FROM users WHERE id = ?', [userId]);
  return Number(row!.coin_balance);
};

const entry = (userId: string, amount: number, ms: number, relatedEntityId: string | null = null) => ({
  id: randomUUID(),
  userId,
  amount,
  reason: 'admin_adjustment' as const,
  relatedEntityId,
  actorId: null,
  createdAt: at(ms),
});

const queueRow = async (db: SequelizeDatabase, messageId: string) => {
  const [row] = await db.autocommit.read<{ status: string; attempts: number | string; fair_seq: number | string; last_error: string | null }>(
    'SELECT status, attempts, fair_seq, last_error FROM queue_messages WHERE message_id = ?',
    [messageId],
  );
  return row ? { status: row.status, attempts: Number(row.attempts), fairSeq: Number(row.fair_seq), lastError: row.last_error } : null;
};

/** A queue over the shared database whose consumers poll a minute apart (only a wake-up brings a message at once). */
function queueOn(t: ExecutionContext, db: SequelizeDatabase): SequelizeMessageQueue {
  const queue = new SequelizeMessageQueue(db, { logger: quietLogger, pollIntervalMs: 60_000 });
  t.teardown(() => queue.close());
  return queue;
}

const item = (userId: string, jobId: string, fileName: string, over: Partial<HistoryItem> = {}): HistoryItem => ({
  id: randomUUID(),
  jobId,
  userId,
  templateId: null,
  storageKey: `outputs/${userId}/${jobId}/${fileName}`,
  fileName,
  mimeType: 'image/png',
  sizeBytes: 10,
  width: 64,
  height: 64,
  durationSeconds: null,
  usedParameters: { prompt: 'a cat' },
  createdAt: at(0),
  expiresAt: at(1000),
  ...over,
});

const apiKey = (userId: string, over: Partial<ApiKey> = {}): ApiKey => ({
  id: randomUUID(),
  userId,
  name: 'audit key',
  scopes: ['generate'],
  prefix: `mgs_${randomUUID().slice(0, 12)}`,
  secretHash: 'a'.repeat(64),
  createdAt: at(0),
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  ...over,
});

const template = (over: Partial<WorkflowTemplate> = {}): WorkflowTemplate => ({
  id: randomUUID(),
  name: `Audit ${randomUUID()}`,
  description: null,
  category: 'text-to-image',
  workflow: { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } } },
  parameterMap: {},
  cost: 3,
  outputType: 'image',
  isActive: true,
  publishedAt: at(0),
  version: 1,
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});

for (const kind of DATABASES) {
  // ---------------------------------------------------------------- coin ledger

  // Pins: a fractional amount moves whole coins only (2.7 credits 2, -1.9 debits 1), in the balance and the ledger row.
  test(`${kind}: coin ledger: amounts are whole coins`, async (t) => {
    const db = await database(kind);
    const ledger = new SequelizeCoinLedger(db.autocommit);
    const id = await user(db, 10);
    const credit = await ledger.apply(entry(id, 2.7, 1));
    const debit = await ledger.apply(entry(id, -1.9, 2));
    t.like(credit, { ok: true, transaction: { amount: 2, balanceAfter: 12 } });
    t.like(debit, { ok: true, transaction: { amount: -1, balanceAfter: 11 } });
    t.is(await balanceOf(db, id), 11);
    t.deepEqual((await ledger.list(id, { page: 1, limit: 10 })).items.map((row) => row.amount), [-1, 2]);
  });

  // Pins: a debit of exactly the whole balance goes through and leaves 0; one coin more is refused.
  test(`${kind}: coin ledger: the whole balance may be spent, not a coin more`, async (t) => {
    const db = await database(kind);
    const ledger = new SequelizeCoinLedger(db.autocommit);
    const id = await user(db, 5);
    t.deepEqual(await ledger.apply(entry(id, -6, 1)), { ok: false, reason: 'insufficient' });
    t.like(await ledger.apply(entry(id, -5, 2)), { ok: true, transaction: { amount: -5, balanceAfter: 0 } });
    t.is(await balanceOf(db, id), 0);
  });

  // Pins: an entry whose ledger row cannot be written (its id already used) leaves the balance as it was.
  test(`${kind}: coin ledger: a refused ledger row takes its balance change back`, async (t) => {
    const db = await database(kind);
    const ledger = new SequelizeCoinLedger(db.autocommit);
    const id = await user(db, 10);
    const first = entry(id, -3, 1);
    t.like(await ledger.apply(first), { ok: true, transaction: { balanceAfter: 7 } });
    await t.throwsAsync(ledger.apply({ ...first, amount: -4, createdAt: at(2) }));
    t.is(await balanceOf(db, id), 7);
    t.deepEqual((await ledger.list(id, { page: 1, limit: 10 })).items.map((row) => row.amount), [-3]);
  });

  // Pins: the ledger's pages are pages (page 2 is not page 1 again), newest first.
  test(`${kind}: coin ledger: page 2 of the ledger holds the older rows`, async (t) => {
    const db = await database(kind);
    const ledger = new SequelizeCoinLedger(db.autocommit);
    const id = await user(db, 0);
    for (const [amount, ms] of [[1, 1], [2, 2], [3, 3]]) await ledger.apply(entry(id, amount!, ms!));
    const first = await ledger.list(id, { page: 1, limit: 2 });
    const second = await ledger.list(id, { page: 2, limit: 2 });
    t.deepEqual(first.items.map((row) => row.amount), [3, 2]);
    t.deepEqual(second.items.map((row) => row.amount), [1]);
    t.is(second.total, 3);
  });

  // Pins: the rows of one related entity come oldest first (a charge before its refund).
  test(`${kind}: coin ledger: an entity's rows come oldest first`, async (t) => {
    const db = await database(kind);
    const ledger = new SequelizeCoinLedger(db.autocommit);
    const id = await user(db, 10);
    const job = randomUUID();
    await ledger.apply(entry(id, -4, 1, job));
    await ledger.apply(entry(id, 4, 2, job));
    await ledger.apply(entry(id, -1, 3, job));
    t.deepEqual((await ledger.findByRelatedEntity(id, job)).map((row) => [row.amount, row.balanceAfter]), [[-4, 6], [4, 10], [-1, 9]]);
  });

  // ---------------------------------------------------------------- database queue

  // Pins: publishing a message id again answers with the id and keeps the one first row (no error, no second row).
  test(`${kind}: queue: a republished message id is kept once`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const messageId = `audit-${randomUUID()}`;
    const environment = `env-${randomUUID().slice(0, 8)}`;
    t.deepEqual(await queue.publish({ messageId, taskType: 'generation', environment, body: { n: 1 } }), { messageId });
    t.deepEqual(await queue.publish({ messageId, taskType: 'generation', environment, body: { n: 2 } }), { messageId });
    const [row] = await db.autocommit.read<{ n: number | string; body: string }>('SELECT COUNT(*) AS n, MIN(body) AS body FROM queue_messages WHERE message_id = ?', [messageId]);
    t.is(Number(row!.n), 1);
    t.is(row!.body, '{"n":1}');
  });

  // Pins: a message published without an id or a body gets an id of its own and the body null.
  test(`${kind}: queue: a message without an id or a body is published`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const { messageId } = await queue.publish({ taskType: 'generation', environment: `env-${randomUUID().slice(0, 8)}`, body: undefined });
    t.regex(messageId, /^[0-9a-f-]{36}$/);
    t.deepEqual((await queue.peek(10_000)).filter((message) => message.id === messageId).map((message) => message.body), [null]);
  });

  // Pins: consume() refuses options it cannot honour (concurrency 0).
  test(`${kind}: queue: consume() refuses options it cannot honour`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const options = { taskTypes: ['generation'], environment: `env-${randomUUID().slice(0, 8)}`, concurrency: 0, maxAttempts: 3, visibilitySeconds: 60 };
    await t.throwsAsync(queue.consume(options, async () => ({ action: 'ack' as const })), { message: /concurrency/ });
  });

  // Pins: an owner's place counts only that owner's waiting messages (not other owners', not dead or done ones).
  test(`${kind}: queue: an owner's place counts only its own waiting messages`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const environment = `env-${randomUUID().slice(0, 8)}`;
    const owner = randomUUID();
    const other = randomUUID();
    const ids = Array.from({ length: 5 }, () => `audit-${randomUUID()}`);
    const publish = (messageId: string, fairnessKey: string) => queue.publish({ messageId, taskType: 'generation', environment, body: {}, fairnessKey });
    await publish(ids[0]!, other);
    await publish(ids[1]!, other);
    await publish(ids[2]!, owner);
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead' WHERE message_id = ?", [ids[2]]);
    await publish(ids[3]!, owner);
    await db.autocommit.run("UPDATE queue_messages SET status = 'done' WHERE message_id = ?", [ids[3]]);
    await publish(ids[4]!, owner);
    t.deepEqual(
      await Promise.all(ids.map(async (id) => (await queueRow(db, id))!.fairSeq)),
      [1, 2, 1, 1, 1],
    );
  });

  // Pins: peek lists waiting messages and messages whose hold ran out; not dead letters, tombstones, or held messages.
  test(`${kind}: queue: peek shows only what a consumer could take`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const environment = `env-${randomUUID().slice(0, 8)}`;
    const [waiting, lapsed, held, dead, done] = ['waiting', 'lapsed', 'held', 'dead', 'done'].map((name) => `audit-${name}-${randomUUID()}`);
    for (const messageId of [waiting!, lapsed!, held!, dead!, done!]) await queue.publish({ messageId, taskType: 'generation', environment, body: {} });
    await db.autocommit.run("UPDATE queue_messages SET claim_token = 'gone', visible_at = ? WHERE message_id = ?", [new Date(Date.now() - 60_000), lapsed]);
    await db.autocommit.run("UPDATE queue_messages SET claim_token = 'mine', visible_at = ? WHERE message_id = ?", [new Date(Date.now() + 600_000), held]);
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead' WHERE message_id = ?", [dead]);
    await db.autocommit.run("UPDATE queue_messages SET status = 'done' WHERE message_id = ?", [done]);
    const shown = (await queue.peek(10_000)).map((message) => message.id).filter((id) => [waiting, lapsed, held, dead, done].includes(id));
    t.deepEqual(shown.sort(), [lapsed!, waiting!].sort());
  });

  // Pins: the dead letters list only dead messages, with a reason only where one was recorded.
  test(`${kind}: queue: dead letters are the dead messages, a reason only where there is one`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const environment = `env-${randomUUID().slice(0, 8)}`;
    const [ready, withReason, without] = ['ready', 'reason', 'bare'].map((name) => `audit-${name}-${randomUUID()}`);
    for (const messageId of [ready!, withReason!, without!]) await queue.publish({ messageId, taskType: 'generation', environment, body: { m: messageId } });
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead', last_error = 'bad input', updated_at = ? WHERE message_id = ?", [at(1), withReason]);
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead', last_error = NULL, updated_at = ? WHERE message_id = ?", [at(2), without]);
    const mine = (await queue.deadLetters(10_000)).filter((message) => [ready, withReason, without].includes(message.id));
    t.deepEqual(mine, [
      { id: withReason!, body: { m: withReason }, attributes: { TaskType: 'generation', Environment: environment }, reason: 'bad input' },
      { id: without!, body: { m: without }, attributes: { TaskType: 'generation', Environment: environment } },
    ]);
  });

  // Pins: a redriven dead letter (which had used up its attempts, its last visibility still ahead) reaches a sleeping
  // consumer at once, as attempt 1; redrive of an unknown id answers false.
  test(`${kind}: queue: a redriven dead letter is delivered at once from attempt 1`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const environment = `env-${randomUUID().slice(0, 8)}`;
    const first = `audit-first-${randomUUID()}`;
    const dead = `audit-dead-${randomUUID()}`;
    await queue.publish({ messageId: dead, taskType: 'generation', environment, body: {} });
    // As the consumer leaves a message it dead-lettered: attempts used up, its last visibility still ahead.
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead', attempts = 3, last_error = 'gave up', visible_at = ? WHERE message_id = ?", [new Date(Date.now() + 600_000), dead]);
    const seen: string[] = [];
    await queue.consume({ taskTypes: ['generation'], environment, concurrency: 1, maxAttempts: 3, visibilitySeconds: 60 }, async (message) => {
      seen.push(`${message.id}#${message.attempt}`);
      return { action: 'ack' };
    });
    await queue.publish({ messageId: first, taskType: 'generation', environment, body: {} });
    await waitFor(() => seen.length === 1, 'the first message');
    await sleep(300); // the loop has looked again and gone to sleep (a minute)
    t.true(await queue.redrive(dead));
    t.false(await queue.redrive(`audit-unknown-${randomUUID()}`));
    await waitFor(() => seen.length === 2, 'the redriven message', 3000);
    t.deepEqual(seen, [`${first}#1`, `${dead}#1`]);
  });

  // Pins: discard answers false for an unknown id and true once for a dead letter.
  test(`${kind}: queue: discard answers whether it discarded`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const dead = `audit-dead-${randomUUID()}`;
    await queue.publish({ messageId: dead, taskType: 'generation', environment: `env-${randomUUID().slice(0, 8)}`, body: {} });
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead' WHERE message_id = ?", [dead]);
    t.false(await queue.discard(`audit-unknown-${randomUUID()}`));
    t.true(await queue.discard(dead));
    t.false(await queue.discard(dead));
    t.is((await queueRow(db, dead))!.status, 'done');
  });

  // Pins: stats count only the asked environment, dead letters apart from waiting messages, per task type.
  test(`${kind}: queue: stats count one environment's waiting messages and dead letters`, async (t) => {
    const db = await database(kind);
    const queue = queueOn(t, db);
    const environment = `env-${randomUUID().slice(0, 8)}`;
    const elsewhere = `env-${randomUUID().slice(0, 8)}`;
    const publish = (env: string, taskType: string) => queue.publish({ messageId: `audit-${randomUUID()}`, taskType, environment: env, body: {} });
    await publish(environment, 'generation');
    await publish(environment, 'generation');
    const { messageId: dead } = await publish(environment, 'generation');
    await publish(environment, 'upscale');
    await publish(elsewhere, 'generation');
    await publish(elsewhere, 'generation');
    await db.autocommit.run("UPDATE queue_messages SET status = 'dead' WHERE message_id = ?", [dead]);
    const stats = await queue.stats(environment, ['generation', 'upscale', 'other']);
    t.deepEqual(
      stats.map(({ taskType, waiting, deadLetters }) => ({ taskType, waiting, deadLetters })),
      [
        { taskType: 'generation', waiting: 2, deadLetters: 1 },
        { taskType: 'upscale', waiting: 1, deadLetters: 0 },
        { taskType: 'other', waiting: 0, deadLetters: 0 },
      ],
    );
  });

  // ---------------------------------------------------------------- output history

  // Pins: recording an output id twice answers false the second time (no error); the first record stays.
  test(`${kind}: history: a duplicate output is refused with false`, async (t) => {
    const db = await database(kind);
    const history = new SequelizeHistoryRepository(db.autocommit);
    const owner = await user(db);
    const first = item(owner, randomUUID(), 'a.png');
    t.true(await history.add(first));
    t.false(await history.add({ ...first, id: randomUUID() }));
    t.deepEqual((await history.listForJob(first.jobId)).map((row) => row.id), [first.id]);
  });

  // Pins: a job's outputs are that job's only, in time order and by file name within one time; no jobs, no outputs.
  test(`${kind}: history: a job's outputs are its own, in order`, async (t) => {
    const db = await database(kind);
    const history = new SequelizeHistoryRepository(db.autocommit);
    const owner = await user(db);
    const job = randomUUID();
    const other = randomUUID();
    await history.add(item(owner, job, 'c.png', { createdAt: at(1) }));
    await history.add(item(owner, job, 'b.png', { createdAt: at(0) }));
    await history.add(item(owner, job, 'a.png', { createdAt: at(0) }));
    await history.add(item(owner, other, 'z.png', { createdAt: at(0) }));
    t.deepEqual((await history.listForJob(job)).map((row) => row.fileName), ['a.png', 'b.png', 'c.png']);
    t.deepEqual(await history.listForJobs([]), []);
  });

  // Pins: a user's output history pages are pages (page 2 holds the older outputs), newest first.
  test(`${kind}: history: page 2 of a user's outputs holds the older ones`, async (t) => {
    const db = await database(kind);
    const history = new SequelizeHistoryRepository(db.autocommit);
    const owner = await user(db);
    const job = randomUUID();
    for (const [name, ms] of [['a.png', 1], ['b.png', 2], ['c.png', 3]] as const) await history.add(item(owner, job, name, { createdAt: at(ms) }));
    const second = await history.listForUser(owner, { page: 2, limit: 2 });
    t.deepEqual(second.items.map((row) => row.fileName), ['a.png']);
    t.is(second.total, 3);
  });

  // Pins: deleting one output deletes that one only.
  test(`${kind}: history: delete removes one output`, async (t) => {
    const db = await database(kind);
    const history = new SequelizeHistoryRepository(db.autocommit);
    const owner = await user(db);
    const job = randomUUID();
    const gone = item(owner, job, 'a.png');
    const kept = item(owner, job, 'b.png');
    await history.add(gone);
    await history.add(kept);
    await history.delete(gone.id);
    t.deepEqual((await history.listForJob(job)).map((row) => row.id), [kept.id]);
    t.truthy(await history.findForUser(kept.id, owner));
  });

  // Pins: the expiry sweep takes at most `max` outputs, the earliest expired first.
  test.serial(`${kind}: history: the expiry sweep takes at most max, earliest first`, async (t) => {
    const db = await database(kind);
    const history = new SequelizeHistoryRepository(db.autocommit);
    const owner = await user(db);
    const job = randomUUID();
    // Far in the past: before anything else in the shared database expires.
    const early = (ms: number) => new Date(Date.parse('2001-01-01T00:00:00.000Z') + ms);
    for (const [name, ms] of [['c.png', 3], ['a.png', 1], ['b.png', 2]] as const) await history.add(item(owner, job, name, { expiresAt: early(ms) }));
    t.deepEqual((await history.listExpired(early(10), 2)).map((row) => row.fileName), ['a.png', 'b.png']);
  });

  // ---------------------------------------------------------------- refresh sessions

  // Pins: a refresh token is found by its own hash only; an unknown hash finds nothing.
  test(`${kind}: sessions: a refresh token is found by its hash only`, async (t) => {
    const db = await database(kind);
    const sessions = new SequelizeSessionRepository(db.autocommit);
    const owner = await user(db);
    const hash = (c: string) => `${c.repeat(32)}${randomUUID().replace(/-/g, '')}`;
    const [a, b] = [hash('a'), hash('b')];
    for (const tokenHash of [a, b]) await sessions.create({ id: randomUUID(), userId: owner, familyId: randomUUID(), tokenHash, expiresAt: at(1000), createdAt: at(0) });
    t.is(await sessions.findByTokenHash(hash('c')), null);
    t.is((await sessions.findByTokenHash(b))?.tokenHash, b);
  });

  // Pins: a lone login check (one statement) answers no-user for a deleted user and revoked for a revoked login.
  test(`${kind}: sessions: a lone login check tells a deleted user and a revoked login`, async (t) => {
    const db = await database(kind);
    const sessions = new SequelizeSessionRepository(db.autocommit);
    const owner = await user(db);
    const family = randomUUID();
    await sessions.create({ id: randomUUID(), userId: owner, familyId: family, tokenHash: randomUUID().replace(/-/g, '').repeat(2), expiresAt: at(1000), createdAt: at(0) });
    await sessions.revokeFamily(family, at(1));
    t.deepEqual(await sessions.loginState(randomUUID(), null), { state: 'no-user' });
    t.deepEqual(await sessions.loginState(owner, family), { state: 'revoked' });
    t.is((await sessions.loginState(owner, randomUUID())).state, 'active');
  });

  // Pins: concurrent login checks of logins without a family (batched together) answer active (MariaDB refuses an
  // empty IN list; SQLite takes it).
  test(`${kind}: sessions: batched login checks without a family are active`, async (t) => {
    const db = await database(kind);
    const sessions = new SequelizeSessionRepository(db.autocommit);
    const [one, two] = [await user(db), await user(db)];
    // Five at once: past the one (SQLite) or two (MariaDB) statements in flight, the rest go as one batch.
    const states = await Promise.all([one, two, one, two, one].map((userId) => sessions.loginState(userId, null)));
    t.deepEqual(states.map((state) => state.state), ['active', 'active', 'active', 'active', 'active']);
  });

  // ---------------------------------------------------------------- API keys

  // Pins: a key is found by its own prefix only, with its times to the millisecond.
  test(`${kind}: api keys: found by prefix only, times to the millisecond`, async (t) => {
    const db = await database(kind);
    const keys = new SequelizeApiKeyRepository(db.autocommit);
    const owner = await user(db);
    const key = apiKey(owner, { createdAt: new Date('2030-01-02T03:04:05.678Z'), expiresAt: new Date('2030-02-01T00:00:00.009Z') });
    await keys.create(key);
    t.is(await keys.findByPrefix(`mgs_${randomUUID().slice(0, 12)}`), null);
    const found = await keys.findByPrefix(key.prefix);
    t.is(found?.id, key.id);
    t.is(found?.createdAt.toISOString(), '2030-01-02T03:04:05.678Z');
    t.is(found?.expiresAt?.toISOString(), '2030-02-01T00:00:00.009Z');
  });

  // Pins: touching one key records its last use on that key only.
  test(`${kind}: api keys: a touch marks one key`, async (t) => {
    const db = await database(kind);
    const keys = new SequelizeApiKeyRepository(db.autocommit);
    const owner = await user(db);
    const [used, idle] = [apiKey(owner), apiKey(owner)];
    await keys.create(used);
    await keys.create(idle);
    await keys.touch(used.id, at(5000), at(4000));
    t.is((await keys.findByPrefix(used.prefix))?.lastUsedAt?.toISOString(), '2030-01-01T00:00:05.000Z');
    t.is((await keys.findByPrefix(idle.prefix))?.lastUsedAt, null);
  });

  // ---------------------------------------------------------------- templates

  // Pins: a second template with a taken name is refused with false (no error), and nothing of it is stored.
  test(`${kind}: templates: a taken name refuses the create`, async (t) => {
    const db = await database(kind);
    const templates = new SequelizeTemplateRepository(db.autocommit);
    const first = template();
    t.true(await templates.create(first));
    const second = template({ name: first.name });
    t.false(await templates.create(second));
    t.is(await templates.findById(second.id), null);
    t.is(await templates.findVersion(second.id, 1), null);
  });

  // Pins: a template's own name is not taken for itself (a rename check), but is for any other template.
  test(`${kind}: templates: a name is not taken by the template that holds it`, async (t) => {
    const db = await database(kind);
    const templates = new SequelizeTemplateRepository(db.autocommit);
    const held = template();
    await templates.create(held);
    t.false(await templates.nameTaken(held.name, held.id));
    t.true(await templates.nameTaken(held.name, randomUUID()));
    t.true(await templates.nameTaken(held.name));
  });

  // Pins: an update to a taken name answers name_taken; a new version keeps the old one beside it.
  test(`${kind}: templates: updates answer name_taken and keep versions`, async (t) => {
    const db = await database(kind);
    const templates = new SequelizeTemplateRepository(db.autocommit);
    const [one, two] = [template(), template()];
    await templates.create(one);
    await templates.create(two);
    t.is(await templates.update({ ...two, name: one.name, updatedAt: at(1) }, { newVersion: false }), 'name_taken');
    t.is(await templates.update({ ...two, cost: 9, version: 2, updatedAt: at(2) }, { newVersion: true }), 'updated');
    t.deepEqual([(await templates.findVersion(two.id, 1))?.cost, (await templates.findVersion(two.id, 2))?.cost], [3, 9]);
  });

  // Pins: a template read for update is found on both dialects (SQLite has no FOR UPDATE); no ids, no names; an
  // unknown version of a known template is null.
  test(`${kind}: templates: reads for update, names of no ids, an unknown version`, async (t) => {
    const db = await database(kind);
    const templates = new SequelizeTemplateRepository(db.autocommit);
    const made = template();
    await templates.create(made);
    t.is((await templates.findById(made.id, { forUpdate: true }))?.name, made.name);
    t.deepEqual(await templates.namesOf([]), new Map());
    t.deepEqual(await templates.namesOf([made.id]), new Map([[made.id, made.name]]));
    t.is(await templates.findVersion(made.id, 99), null);
    t.is((await templates.findVersion(made.id, 1))?.name, made.name);
  });

  // Pins: the template list comes in creation order (not in the order of ids or of inserts).
  test(`${kind}: templates: the list comes oldest first`, async (t) => {
    const db = await database(kind);
    const templates = new SequelizeTemplateRepository(db.autocommit);
    const stem = randomUUID().slice(0, 30);
    const [one, two, three] = [template({ id: `${stem}001`, createdAt: at(3) }), template({ id: `${stem}002`, createdAt: at(1) }), template({ id: `${stem}003`, createdAt: at(2) })];
    for (const made of [one!, two!, three!]) await templates.create(made);
    const mine = (await templates.list()).filter((listed) => listed.id.startsWith(stem));
    t.deepEqual(mine.map((listed) => listed.id), [`${stem}002`, `${stem}003`, `${stem}001`]);
  });

  // Pins: soft delete answers true once, false for an unknown template.
  test(`${kind}: templates: soft delete answers whether it deleted`, async (t) => {
    const db = await database(kind);
    const templates = new SequelizeTemplateRepository(db.autocommit);
    const doomed = template();
    await templates.create(doomed);
    t.false(await templates.softDelete(randomUUID(), at(1)));
    t.true(await templates.softDelete(doomed.id, at(1)));
    t.false(await templates.softDelete(doomed.id, at(2)));
  });
}

// ---------------------------------------------------------------- plain SQLite statements

/** Plain statements on an in-memory handle of their own, finalized and closed at the test's end. */
const memoryStatements = (t: ExecutionContext): SqliteStatements => {
  const db = new sqlite3.Database(':memory:');
  const statements = new SqliteStatements(db);
  t.teardown(async () => {
    await statements.finalize();
    await new Promise<void>((resolve) => db.close(() => resolve()));
  });
  return statements;
};

// Pins: a statement that failed to prepare (its table missing) is prepared again once the table exists.
test('sqlite: a plain statement that failed to prepare works once its table exists', async (t) => {
  const statements = memoryStatements(t);
  await t.throwsAsync(statements.all('SELECT n FROM later', []), { message: /no such table/ });
  t.is(await statements.run('CREATE TABLE later (n INTEGER)'), 0);
  t.is(await statements.run('INSERT INTO later (n) VALUES (?)', [7]), 1);
  t.deepEqual(await statements.all('SELECT n FROM later', []), [{ n: 7 }]);
});

// Pins: the statements kept per handle stay under their cap (256); the oldest let go is prepared again when used.
// Nothing outside shows how many are kept, so the test reads the private map: without the cap, every distinct SQL
// text ever run would stay prepared for the life of the handle.
test('sqlite: a handle keeps at most 256 plain statements, and one let go prepares again', async (t) => {
  const statements = memoryStatements(t);
  const kept = () => (statements as unknown as { statements: Map<string, unknown> }).statements.size;
  await Promise.all(Array.from({ length: 300 }, (_, i) => statements.all(`SELECT ${i} AS n`, [])));
  t.is(kept(), 256);
  t.deepEqual(await statements.all('SELECT 0 AS n', []), [{ n: 0 }]);
  t.is(kept(), 256);
});
