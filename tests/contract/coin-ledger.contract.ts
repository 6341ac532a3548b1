import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, sharedBackend, type MakeBackend } from './fixtures.ts';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

/** Registers the CoinLedger contract for one backend; `make()` returns a fresh, empty backend (ledger, users, unit of work). */
export function coinLedgerContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let uow: UnitOfWork;
  test.before(async () => {
    ({ repos, uow } = await backend());
  });

  const newUser = async (balance = 0): Promise<string> => {
    const id = await addUser(repos.users, { displayName: 'Ledger' });
    if (balance > 0) await credit(id, balance);
    return id;
  };
  const credit = (userId: string, amount: number, ms = 0) =>
    repos.ledger.apply({ id: randomUUID(), userId, amount, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(ms) });
  const balanceOf = async (userId: string) => (await repos.users.findById(userId))!.coinBalance;

  test(`${name}: apply credits and debits, returning the signed row with the balance it left`, async (t) => {
    const userId = await newUser();
    const actorId = randomUUID();
    const added = await credit(userId, 40, 1);
    t.true(added.ok);
    const spent = await repos.ledger.apply({ id: randomUUID(), userId, amount: -15, reason: 'image_generation', relatedEntityId: 'req-1', actorId, createdAt: at(2) });
    if (!spent.ok) return t.fail(`apply failed: ${spent.reason}`);
    t.like(spent.transaction, { userId, amount: -15, reason: 'image_generation', relatedEntityId: 'req-1', balanceAfter: 25, actorId });
    t.deepEqual(spent.transaction.createdAt, at(2));
    t.is(await balanceOf(userId), 25);
    t.is(await repos.ledger.sum(userId), 25);
    const page = await repos.ledger.list(userId, { page: 1, limit: 10 });
    t.deepEqual(page.items.map((row) => [row.amount, row.balanceAfter]), [[-15, 25], [40, 40]]);
    t.deepEqual(page.items[0], spent.transaction);
    t.like(page, { page: 1, limit: 10, total: 2, totalPages: 1 });
  });

  test(`${name}: a debit larger than the balance is refused and changes nothing`, async (t) => {
    const userId = await newUser(10);
    const result = await repos.ledger.apply({ id: randomUUID(), userId, amount: -11, reason: 'video_generation', relatedEntityId: null, actorId: null, createdAt: at(5) });
    t.deepEqual(result, { ok: false, reason: 'insufficient' });
    t.is(await balanceOf(userId), 10);
    t.is((await repos.ledger.list(userId, { page: 1, limit: 10 })).total, 1);
    const exact = await credit(userId, -10, 6);
    t.true(exact.ok && exact.transaction.balanceAfter === 0, 'spending the whole balance is allowed');
    t.is(await repos.ledger.sum(userId), 0);
  });

  test(`${name}: an unknown user is user_not_found and leaves no row`, async (t) => {
    const userId = randomUUID();
    t.deepEqual(await credit(userId, 5), { ok: false, reason: 'user_not_found' });
    t.deepEqual(await credit(userId, -5), { ok: false, reason: 'user_not_found' });
    t.is((await repos.ledger.list(userId, { page: 1, limit: 10 })).total, 0);
    t.is(await repos.ledger.sum(userId), 0);
  });

  test(`${name}: 200 concurrent deductions of 1 on a balance of 150: exactly 150 succeed, balance 0, ledger sum = balance`, async (t) => {
    const userId = await newUser(150);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        repos.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: `r${i}`, actorId: userId, createdAt: at(100 + i) }),
      ),
    );
    const succeeded = results.filter((r) => r.ok);
    t.is(succeeded.length, 150);
    t.true(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === 'insufficient'));
    t.is(await balanceOf(userId), 0);
    t.is(await repos.ledger.sum(userId), 0);
    // Every success saw a distinct balance: no two deductions were applied to the same starting value.
    const after = succeeded.map((r) => (r.ok ? r.transaction.balanceAfter : -1)).sort((a, b) => a - b);
    t.deepEqual(after, Array.from({ length: 150 }, (_, i) => i));
    t.is((await repos.ledger.list(userId, { page: 1, limit: 1 })).total, 151);
  });

  test(`${name}: list pages newest first`, async (t) => {
    const userId = await newUser();
    for (let i = 1; i <= 5; i++) await credit(userId, i, i * 10);
    const second = await repos.ledger.list(userId, { page: 2, limit: 2 });
    t.deepEqual(second.items.map((row) => row.amount), [3, 2]);
    t.like(second, { page: 2, limit: 2, total: 5, totalPages: 3 });
    t.deepEqual((await repos.ledger.list(userId, { page: 4, limit: 2 })).items, []);
  });

  test(`${name}: findByRelatedEntity returns that user's rows for that entity, oldest first`, async (t) => {
    const userId = await newUser(100);
    const other = await newUser(100);
    const related = randomUUID();
    const apply = (who: string, amount: number, relatedEntityId: string | null, ms: number) =>
      repos.ledger.apply({ id: randomUUID(), userId: who, amount, reason: amount < 0 ? 'image_generation' : 'generation_refund', relatedEntityId, actorId: null, createdAt: at(ms) });
    await apply(userId, -7, related, 1000);
    await apply(userId, -3, 'something-else', 1001);
    await apply(other, -2, related, 1002);
    await apply(userId, 7, related, 1003);
    const rows = await repos.ledger.findByRelatedEntity(userId, related);
    t.deepEqual(rows.map((row) => [row.userId, row.amount, row.relatedEntityId]), [[userId, -7, related], [userId, 7, related]]);
    t.deepEqual(await repos.ledger.findByRelatedEntity(userId, 'nothing'), []);
  });

  test(`${name}: inside a unit of work that fails, the balance change and its row go together`, async (t) => {
    const userId = await newUser(20);
    await t.throwsAsync(
      uow.run(async (tx) => {
        const result = await tx.ledger.apply({ id: randomUUID(), userId, amount: -5, reason: 'image_generation', relatedEntityId: 'req-rb', actorId: userId, createdAt: at(2000) });
        t.true(result.ok && result.transaction.balanceAfter === 15);
        t.is((await tx.users.findById(userId))!.coinBalance, 15, 'the transaction sees its own change');
        throw new Error('later step failed');
      }),
      { message: 'later step failed' },
    );
    t.is(await balanceOf(userId), 20);
    t.is(await repos.ledger.sum(userId), 20);
    t.deepEqual(await repos.ledger.findByRelatedEntity(userId, 'req-rb'), []);
    t.is((await repos.ledger.list(userId, { page: 1, limit: 10 })).total, 1);
  });

  test(`${name}: in one unit of work, a debit sees the credit made before it; both commit`, async (t) => {
    const userId = await newUser();
    const results = await uow.run(async (tx) => {
      const credit = await tx.ledger.apply({ id: randomUUID(), userId, amount: 8, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: at(3000) });
      const debit = await tx.ledger.apply({ id: randomUUID(), userId, amount: -8, reason: 'image_generation', relatedEntityId: 'req-tx', actorId: userId, createdAt: at(3001) });
      const refused = await tx.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: 'req-tx2', actorId: userId, createdAt: at(3002) });
      return [credit, debit, refused];
    });
    t.deepEqual(results.map((r) => (r.ok ? r.transaction.balanceAfter : r.reason)), [8, 0, 'insufficient']);
    t.is(await balanceOf(userId), 0);
    t.deepEqual((await repos.ledger.list(userId, { page: 1, limit: 10 })).items.map((row) => row.amount), [-8, 8]);
  });

  test(`${name}: 20 concurrent units of work, each debiting 1 from a balance of 15: 15 commit, none is lost`, async (t) => {
    const userId = await newUser(15);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        uow
          .run(async (tx) => {
            const applied = await tx.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: `c${i}`, actorId: userId, createdAt: at(4000 + i) });
            if (!applied.ok) throw new Error(applied.reason);
            return applied.transaction.balanceAfter;
          })
          .catch((error: Error) => error.message),
      ),
    );
    t.is(outcomes.filter((o) => typeof o === 'number').length, 15);
    t.true(outcomes.filter((o) => typeof o !== 'number').every((o) => o === 'insufficient'));
    t.deepEqual(outcomes.filter((o): o is number => typeof o === 'number').sort((a, b) => a - b), Array.from({ length: 15 }, (_, i) => i));
    t.is(await balanceOf(userId), 0);
    t.is(await repos.ledger.sum(userId), 0);
  });
}
