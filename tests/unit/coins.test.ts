import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { AdminAdjustCoins } from '../../core/use-cases/coins/admin-adjust-coins.use-case.ts';
import { DeductCoins } from '../../core/use-cases/coins/deduct-coins.use-case.ts';
import { JobPayment } from '../../core/use-cases/coins/job-payment.service.ts';
import { GetAuditLog } from '../../core/use-cases/coins/get-audit-log.use-case.ts';
import { ListTransactions } from '../../core/use-cases/coins/list-transactions.use-case.ts';
import { ListUserTransactions } from '../../core/use-cases/coins/list-user-transactions.use-case.ts';
import { ListUsers } from '../../core/use-cases/coins/list-users.use-case.ts';

const NOW = new Date('2030-05-01T12:00:00.000Z');

function setup() {
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const { users, ledger, audit } = uow.autocommit;
  const ids = { newId: () => randomUUID() };
  const deps = { users, uow, ids, payment: new JobPayment({ ids }), clock: { now: () => NOW } };
  const addUser = async (balance: number, email = `${randomUUID()}@example.com`, displayName = 'Someone') => {
    const id = randomUUID();
    await users.create({ id, email, displayName, role: 'user', passwordHash: null, createdAt: NOW });
    if (balance > 0) await ledger.apply({ id: randomUUID(), userId: id, amount: balance, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: NOW });
    return id;
  };
  return {
    store,
    users,
    ledger,
    audit,
    addUser,
    deduct: new DeductCoins(deps),
    adjust: new AdminAdjustCoins(deps),
    listTransactions: new ListTransactions({ ledger }),
    listUserTransactions: new ListUserTransactions({ users, ledger }),
    listUsers: new ListUsers({ users }),
    auditLog: new GetAuditLog({ audit }),
  };
}

test('DeductCoins takes the amount, records the reason and related entity, returns the new balance', async (t) => {
  const { deduct, addUser, ledger } = setup();
  const userId = await addUser(100);
  const result = await deduct.execute({ userId, amount: 30, reason: 'video_generation', relatedEntityId: 'req-9' });
  if (!result.ok) return t.fail(result.message);
  t.is(result.value.coinBalance, 70);
  const [row] = (await ledger.list(userId, { page: 1, limit: 1 })).items;
  t.like(row, { amount: -30, reason: 'video_generation', relatedEntityId: 'req-9', balanceAfter: 70, actorId: userId });
  t.deepEqual(row!.createdAt, NOW);
});

test('DeductCoins refuses more than the balance with COIN.INSUFFICIENT and changes nothing', async (t) => {
  const { deduct, addUser, users, ledger } = setup();
  const userId = await addUser(5);
  t.like(await deduct.execute({ userId, amount: 6, reason: 'image_generation' }), { ok: false, code: 'COIN.INSUFFICIENT' });
  t.is((await users.findById(userId))!.coinBalance, 5);
  t.is(await ledger.sum(userId), 5);
});

const invalidDeductions: [string, Record<string, unknown>, { field: string; message: string }[]][] = [
  ['amount missing', { reason: 'image_generation' }, [{ field: 'amount', message: 'is required' }]],
  ['amount 0', { amount: 0, reason: 'image_generation' }, [{ field: 'amount', message: 'must be an integer from 1 to 1000000' }]],
  ['amount negative', { amount: -5, reason: 'image_generation' }, [{ field: 'amount', message: 'must be an integer from 1 to 1000000' }]],
  ['amount fractional', { amount: 1.5, reason: 'image_generation' }, [{ field: 'amount', message: 'must be an integer from 1 to 1000000' }]],
  ['amount too large', { amount: 1_000_001, reason: 'image_generation' }, [{ field: 'amount', message: 'must be an integer from 1 to 1000000' }]],
  ['amount a string', { amount: '5', reason: 'image_generation' }, [{ field: 'amount', message: 'must be an integer from 1 to 1000000' }]],
  ['reason missing', { amount: 1 }, [{ field: 'reason', message: 'is required' }]],
  ['reason unknown', { amount: 1, reason: 'gift' }, [{ field: 'reason', message: 'must be one of image_generation, video_generation' }]],
  ['reason not a user reason', { amount: 1, reason: 'admin_adjustment' }, [{ field: 'reason', message: 'must be one of image_generation, video_generation' }]],
  ['relatedEntityId too long', { amount: 1, reason: 'image_generation', relatedEntityId: 'x'.repeat(129) }, [{ field: 'relatedEntityId', message: 'must be a string of 1 to 128 characters' }]],
  ['relatedEntityId a number', { amount: 1, reason: 'image_generation', relatedEntityId: 7 }, [{ field: 'relatedEntityId', message: 'must be a string of 1 to 128 characters' }]],
  ['relatedEntityId empty', { amount: 1, reason: 'image_generation', relatedEntityId: '' }, [{ field: 'relatedEntityId', message: 'must be a string of 1 to 128 characters' }]],
];

for (const [name, body, details] of invalidDeductions) {
  test(`DeductCoins validation: ${name}`, async (t) => {
    const { deduct, addUser, ledger } = setup();
    const userId = await addUser(100);
    t.deepEqual(await deduct.execute({ userId, ...body }), { ok: false, code: 'VALIDATION.FAILED', message: 'Validation failed', details });
    t.is(await ledger.sum(userId), 100);
  });
}

test('AdminAdjustCoins adds and deducts for any user and writes one audit entry per change', async (t) => {
  const { adjust, addUser, audit, ledger } = setup();
  const adminId = randomUUID();
  const userId = await addUser(10);
  const added = await adjust.execute({ actorId: adminId, userId, direction: 'add', amount: 50, reason: 'admin_adjustment' });
  t.like(added, { ok: true, value: { id: userId, coinBalance: 60 } });
  const taken = await adjust.execute({ actorId: adminId, userId, direction: 'deduct', amount: 20, reason: 'admin_adjustment' });
  t.like(taken, { ok: true, value: { coinBalance: 40 } });
  const rows = (await ledger.list(userId, { page: 1, limit: 10 })).items;
  t.deepEqual(rows.slice(0, 2).map((row) => [row.amount, row.reason, row.actorId]), [[-20, 'admin_adjustment', adminId], [50, 'admin_adjustment', adminId]]);
  const entries = (await audit.list({ page: 1, limit: 10 })).items;
  t.deepEqual(
    entries.map((e) => [e.actorId, e.action, e.targetUserId, e.details]),
    [
      [adminId, 'coin.deduct', userId, { amount: -20, reason: 'admin_adjustment', balanceAfter: 40, transactionId: rows[0]!.id }],
      [adminId, 'coin.add', userId, { amount: 50, reason: 'admin_adjustment', balanceAfter: 60, transactionId: rows[1]!.id }],
    ],
  );
});

test('AdminAdjustCoins: unknown user is NOT_FOUND, short balance COIN.INSUFFICIENT, neither audited', async (t) => {
  const { adjust, addUser, audit } = setup();
  const userId = await addUser(3);
  t.like(await adjust.execute({ actorId: randomUUID(), userId: randomUUID(), direction: 'add', amount: 1, reason: 'admin_adjustment' }), { ok: false, code: 'NOT_FOUND' });
  t.like(await adjust.execute({ actorId: randomUUID(), userId, direction: 'deduct', amount: 4, reason: 'admin_adjustment' }), { ok: false, code: 'COIN.INSUFFICIENT' });
  t.is((await audit.list({ page: 1, limit: 10 })).total, 0);
});

test('AdminAdjustCoins accepts any CoinTransactionReason and rejects others', async (t) => {
  const { adjust, addUser } = setup();
  const userId = await addUser(0);
  t.like(await adjust.execute({ actorId: randomUUID(), userId, direction: 'add', amount: 2, reason: 'generation_refund' }), { ok: true });
  t.deepEqual(await adjust.execute({ actorId: randomUUID(), userId, direction: 'add', amount: 2.5, reason: 'bonus' }), {
    ok: false,
    code: 'VALIDATION.FAILED',
    message: 'Validation failed',
    details: [
      { field: 'amount', message: 'must be an integer from 1 to 1000000' },
      { field: 'reason', message: 'must be one of image_generation, video_generation, generation_refund, admin_adjustment, signup_bonus' },
    ],
  });
});

// Pins that the caller's alsoCommit write (the remembered Idempotency-Key response) is part of the change's transaction.
test('DeductCoins and AdminAdjustCoins hand the changed user to alsoCommit, and undo the change when it fails', async (t) => {
  const { deduct, adjust, addUser, users, ledger, audit } = setup();
  const userId = await addUser(100);
  const seen: number[] = [];
  t.like(await deduct.execute({ userId, amount: 30, reason: 'image_generation', alsoCommit: async (_tx, user) => void seen.push(user.coinBalance) }), { ok: true });
  t.like(await adjust.execute({ actorId: randomUUID(), userId, direction: 'add', amount: 5, reason: 'admin_adjustment', alsoCommit: async (_tx, user) => void seen.push(user.coinBalance) }), { ok: true });
  t.deepEqual(seen, [70, 75]);
  const failing = async () => {
    throw new Error('the response could not be stored');
  };
  await t.throwsAsync(deduct.execute({ userId, amount: 10, reason: 'image_generation', relatedEntityId: randomUUID(), alsoCommit: failing }), { message: /could not be stored/ });
  await t.throwsAsync(adjust.execute({ actorId: randomUUID(), userId, direction: 'deduct', amount: 10, reason: 'admin_adjustment', alsoCommit: failing }), { message: /could not be stored/ });
  await t.throwsAsync(adjust.execute({ actorId: randomUUID(), userId, direction: 'add', amount: 10, reason: 'admin_adjustment', alsoCommit: failing }), { message: /could not be stored/ });
  t.is((await users.findById(userId))!.coinBalance, 75, 'no coins moved');
  t.is(await ledger.sum(userId), 75);
  t.is((await ledger.list(userId, { page: 1, limit: 10 })).total, 3);
  t.is((await audit.list({ page: 1, limit: 10 })).total, 1, 'only the adjustment that committed is audited');
});

test('ListTransactions pages the caller ledger and rejects bad page parameters', async (t) => {
  const { listTransactions, deduct, addUser } = setup();
  const userId = await addUser(10);
  for (let i = 0; i < 3; i++) await deduct.execute({ userId, amount: 1, reason: 'image_generation' });
  const page = await listTransactions.execute({ userId, page: '1', limit: '2' });
  t.like(page, { ok: true, value: { page: 1, limit: 2, total: 4, totalPages: 2 } });
  t.like(await listTransactions.execute({ userId, limit: '101' }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'limit' }] });
  t.like(await listTransactions.execute({ userId, page: '0' }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'page' }] });
});

test('ListUserTransactions: NOT_FOUND for an unknown user', async (t) => {
  const { listUserTransactions, addUser } = setup();
  t.like(await listUserTransactions.execute({ userId: randomUUID() }), { ok: false, code: 'NOT_FOUND' });
  t.like(await listUserTransactions.execute({ userId: await addUser(7) }), { ok: true, value: { total: 1 } });
});

test('ListUsers matches q against email or display name, case-insensitively', async (t) => {
  const { listUsers, addUser } = setup();
  await addUser(0, 'alice@example.com', 'Alice Liddell');
  await addUser(0, 'bob@example.com', 'Bob Stone');
  await addUser(0, 'carol@stone.org', 'Carol');
  const emails = async (q?: string) => {
    const result = await listUsers.execute({ q });
    return result.ok ? result.value.items.map((u) => u.email).sort() : result.code;
  };
  t.deepEqual(await emails('STONE'), ['bob@example.com', 'carol@stone.org']);
  t.deepEqual(await emails('liddell'), ['alice@example.com']);
  t.is((await emails(undefined)).length, 3);
  t.is(await emails('x'.repeat(255)), 'VALIDATION.FAILED');
});

test('GetAuditLog pages newest first', async (t) => {
  const { adjust, addUser, auditLog } = setup();
  const userId = await addUser(0);
  for (let amount = 1; amount <= 3; amount++) await adjust.execute({ actorId: randomUUID(), userId, direction: 'add', amount, reason: 'admin_adjustment' });
  const page = await auditLog.execute({ page: '1', limit: '2' });
  if (!page.ok) return t.fail(page.message);
  t.deepEqual(page.value.items.map((e) => e.details.amount), [3, 2]);
  t.like(page.value, { total: 3, totalPages: 2 });
});

// Pins that the user the caller's authentication read is used only when it is the deducting user's: another user's
// record handed in by mistake never becomes the answer, and the balance always comes from the write.
test('DeductCoins answers with the user the caller read when it is theirs, and reads it when it is not', async (t) => {
  const { deduct, addUser, users } = setup();
  const userId = await addUser(100, 'me@example.com', 'Me');
  const otherId = await addUser(7, 'other@example.com', 'Other');
  const read = (await users.findById(userId))!;
  const given = await deduct.execute({ userId, amount: 10, reason: 'image_generation', user: { ...read, displayName: 'As authenticated' } });
  if (!given.ok) return t.fail(given.message);
  t.like(given.value, { id: userId, displayName: 'As authenticated', coinBalance: 90 }, 'no second read: the balance from the write');
  const other = (await users.findById(otherId))!;
  const mismatched = await deduct.execute({ userId, amount: 10, reason: 'image_generation', user: other });
  if (!mismatched.ok) return t.fail(mismatched.message);
  t.like(mismatched.value, { id: userId, email: 'me@example.com', displayName: 'Me', coinBalance: 80 });
  t.is((await users.findById(otherId))!.coinBalance, 7, "the other user's balance is untouched");
});

// A deduction or an adjustment for an account that is gone is answered from the read before it: no write transaction
// (on SQLite that would queue for the one writer) is begun for it.
test('DeductCoins and AdminAdjustCoins refuse a gone account without beginning a transaction', async (t) => {
  const store = new MemoryStore();
  const memory = new MemoryUnitOfWork(store);
  let transactions = 0;
  const uow = { autocommit: memory.autocommit, run: <T>(work: Parameters<typeof memory.run<T>>[0]) => ((transactions += 1), memory.run(work)) };
  const ids = { newId: () => randomUUID() };
  const deps = { users: memory.autocommit.users, uow, ids, payment: new JobPayment({ ids }), clock: { now: () => NOW } };
  const gone = randomUUID();
  t.like(await new DeductCoins(deps).execute({ userId: gone, amount: 1, reason: 'image_generation' }), { ok: false, code: 'AUTH.UNAUTHENTICATED' });
  t.like(await new AdminAdjustCoins(deps).execute({ actorId: randomUUID(), userId: gone, direction: 'add', amount: 1, reason: 'admin_adjustment' }), { ok: false, code: 'NOT_FOUND' });
  t.is(transactions, 0);
});
