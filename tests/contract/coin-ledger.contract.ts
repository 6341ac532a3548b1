import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { CoinLedger } from '../../core/ports/coin-ledger.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';

export interface CoinLedgerFixture {
  ledger: CoinLedger;
  /** To create the users whose balances the ledger moves. */
  users: UserRepository;
  uow: UnitOfWork;
  /** Whether a throwing unit of work undoes the ledger's writes (not in memory). */
  rollsBack: boolean;
  dispose(): Promise<void>;
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

/** Registers the CoinLedger contract for one adapter; `make()` returns a fresh, empty ledger with its user store. */
export function coinLedgerContract(name: string, make: () => Promise<CoinLedgerFixture>): void {
  let fixture: CoinLedgerFixture;
  test.before(async () => {
    fixture = await make();
  });
  test.after.always(async () => {
    await fixture?.dispose();
  });

  const newUser = async (balance = 0): Promise<string> => {
    const id = randomUUID();
    const created = await fixture.users.create({ id, email: `${id}@example.com`, displayName: 'Ledger', role: 'user', passwordHash: null, createdAt: T0 });
    if (!created) throw new Error('user not created');
    if (balance > 0) await credit(id, balance);
    return id;
  };
  const credit = (userId: string, amount: number, ms = 0) =>
    fixture.ledger.apply({ id: randomUUID(), userId, amount, reason: 'admin_adjustment', relatedEntityId: null, actorId: null, createdAt: at(ms) });
  const balanceOf = async (userId: string) => (await fixture.users.findById(userId))!.coinBalance;

  test(`${name}: apply credits and debits, returning the signed row with the balance it left`, async (t) => {
    const userId = await newUser();
    const actorId = randomUUID();
    const added = await credit(userId, 40, 1);
    t.true(added.ok);
    const spent = await fixture.ledger.apply({ id: randomUUID(), userId, amount: -15, reason: 'image_generation', relatedEntityId: 'req-1', actorId, createdAt: at(2) });
    if (!spent.ok) return t.fail(`apply failed: ${spent.reason}`);
    t.like(spent.transaction, { userId, amount: -15, reason: 'image_generation', relatedEntityId: 'req-1', balanceAfter: 25, actorId });
    t.deepEqual(spent.transaction.createdAt, at(2));
    t.is(await balanceOf(userId), 25);
    t.is(await fixture.ledger.sum(userId), 25);
    const page = await fixture.ledger.list(userId, { page: 1, limit: 10 });
    t.deepEqual(page.items.map((row) => [row.amount, row.balanceAfter]), [[-15, 25], [40, 40]]);
    t.deepEqual(page.items[0], spent.transaction);
    t.like(page, { page: 1, limit: 10, total: 2, totalPages: 1 });
  });

  test(`${name}: a debit larger than the balance is refused and changes nothing`, async (t) => {
    const userId = await newUser(10);
    const result = await fixture.ledger.apply({ id: randomUUID(), userId, amount: -11, reason: 'video_generation', relatedEntityId: null, actorId: null, createdAt: at(5) });
    t.deepEqual(result, { ok: false, reason: 'insufficient' });
    t.is(await balanceOf(userId), 10);
    t.is((await fixture.ledger.list(userId, { page: 1, limit: 10 })).total, 1);
    const exact = await credit(userId, -10, 6);
    t.true(exact.ok && exact.transaction.balanceAfter === 0, 'spending the whole balance is allowed');
    t.is(await fixture.ledger.sum(userId), 0);
  });

  test(`${name}: an unknown user is user_not_found and leaves no row`, async (t) => {
    const userId = randomUUID();
    t.deepEqual(await credit(userId, 5), { ok: false, reason: 'user_not_found' });
    t.deepEqual(await credit(userId, -5), { ok: false, reason: 'user_not_found' });
    t.is((await fixture.ledger.list(userId, { page: 1, limit: 10 })).total, 0);
    t.is(await fixture.ledger.sum(userId), 0);
  });

  test(`${name}: 200 concurrent deductions of 1 on a balance of 150: exactly 150 succeed, balance 0, ledger sum = balance`, async (t) => {
    const userId = await newUser(150);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fixture.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: `r${i}`, actorId: userId, createdAt: at(100 + i) }),
      ),
    );
    const succeeded = results.filter((r) => r.ok);
    t.is(succeeded.length, 150);
    t.true(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === 'insufficient'));
    t.is(await balanceOf(userId), 0);
    t.is(await fixture.ledger.sum(userId), 0);
    // Every success saw a distinct balance: no two deductions were applied to the same starting value.
    const after = succeeded.map((r) => (r.ok ? r.transaction.balanceAfter : -1)).sort((a, b) => a - b);
    t.deepEqual(after, Array.from({ length: 150 }, (_, i) => i));
    t.is((await fixture.ledger.list(userId, { page: 1, limit: 1 })).total, 151);
  });

  test(`${name}: list pages newest first`, async (t) => {
    const userId = await newUser();
    for (let i = 1; i <= 5; i++) await credit(userId, i, i * 10);
    const second = await fixture.ledger.list(userId, { page: 2, limit: 2 });
    t.deepEqual(second.items.map((row) => row.amount), [3, 2]);
    t.like(second, { page: 2, limit: 2, total: 5, totalPages: 3 });
    t.deepEqual((await fixture.ledger.list(userId, { page: 4, limit: 2 })).items, []);
  });

  test(`${name}: findByRelatedEntity returns that user's rows for that entity, oldest first`, async (t) => {
    const userId = await newUser(100);
    const other = await newUser(100);
    const related = randomUUID();
    const apply = (who: string, amount: number, relatedEntityId: string | null, ms: number) =>
      fixture.ledger.apply({ id: randomUUID(), userId: who, amount, reason: amount < 0 ? 'image_generation' : 'generation_refund', relatedEntityId, actorId: null, createdAt: at(ms) });
    await apply(userId, -7, related, 1000);
    await apply(userId, -3, 'something-else', 1001);
    await apply(other, -2, related, 1002);
    await apply(userId, 7, related, 1003);
    const rows = await fixture.ledger.findByRelatedEntity(userId, related);
    t.deepEqual(rows.map((row) => [row.userId, row.amount, row.relatedEntityId]), [[userId, -7, related], [userId, 7, related]]);
    t.deepEqual(await fixture.ledger.findByRelatedEntity(userId, 'nothing'), []);
  });

  test(`${name}: inside a unit of work that fails, the balance change and its row go together`, async (t) => {
    if (!fixture.rollsBack) return t.pass('this adapter has no rollback');
    const userId = await newUser(20);
    await t.throwsAsync(
      fixture.uow.run(async () => {
        const result = await credit(userId, -5, 2000);
        t.true(result.ok);
        throw new Error('later step failed');
      }),
      { message: 'later step failed' },
    );
    t.is(await balanceOf(userId), 20);
    t.is(await fixture.ledger.sum(userId), 20);
  });
}
