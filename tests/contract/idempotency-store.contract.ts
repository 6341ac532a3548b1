import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { CoinLedger } from '../../core/ports/coin-ledger.port.ts';
import type { IdempotencyClaim, IdempotencyStore } from '../../core/ports/idempotency-store.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import { rememberResponse } from '../../adapters/http/idempotency.ts';
import { ExecuteIdempotently } from '../../core/use-cases/idempotency/execute-idempotently.use-case.ts';

export interface IdempotencyStoreFixture {
  store: IdempotencyStore;
  uow: UnitOfWork;
  /** For the end-to-end cases: a change made under a key. */
  users: UserRepository;
  ledger: CoinLedger;
  /** Whether a throwing unit of work undoes its writes (not in memory). */
  rollsBack: boolean;
  dispose(): Promise<void>;
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const DAY = 86_400_000;

/** Registers the IdempotencyStore contract for one adapter; `make()` returns a fresh, empty store. */
export function idempotencyStoreContract(name: string, make: () => Promise<IdempotencyStoreFixture>): void {
  let fixture: IdempotencyStoreFixture;
  test.before(async () => {
    fixture = await make();
  });
  test.after.always(async () => {
    await fixture?.dispose();
  });

  const claimOf = (overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
    userId: randomUUID(),
    key: `key-${randomUUID()}`,
    fingerprint: 'f'.repeat(64),
    token: randomUUID(),
    claimedAt: at(0),
    expiresAt: at(DAY),
    ...overrides,
  });

  test(`${name}: the first claim wins; a second sees the first one's record`, async (t) => {
    const first = claimOf();
    t.deepEqual(await fixture.store.claim(first), { claimed: true });
    t.deepEqual(await fixture.store.find(first.userId, first.key), { ...first, response: null, completedAt: null });
    const second = await fixture.store.claim({ ...first, token: randomUUID(), fingerprint: 'e'.repeat(64) });
    t.deepEqual(second, { claimed: false, existing: { ...first, response: null, completedAt: null } });
    t.is(await fixture.store.find(first.userId, 'never-claimed'), null);
  });

  test(`${name}: keys are per user and case-sensitive`, async (t) => {
    const first = claimOf({ key: 'Order-42' });
    t.true((await fixture.store.claim(first)).claimed);
    t.true((await fixture.store.claim(claimOf({ key: 'Order-42' }))).claimed, 'another user may use the same key');
    t.true((await fixture.store.claim({ ...claimOf(), userId: first.userId, key: 'order-42' })).claimed, 'keys differing in case are different keys');
    t.true((await fixture.store.claim({ ...claimOf(), userId: first.userId, key: 'k'.repeat(128) })).claimed, '128 characters fit');
  });

  test(`${name}: complete stores the response once, only for the claim's holder`, async (t) => {
    const claim = claimOf();
    await fixture.store.claim(claim);
    const response = { status: 200, body: { id: 'x', coinBalance: 3, nested: [1, { name: 'ünïcødé ✓' }], none: null } };
    t.false(await fixture.store.complete({ ...claim, token: randomUUID() }, response, at(5)), 'not the holder');
    t.true(await fixture.store.complete(claim, response, at(5)));
    t.false(await fixture.store.complete(claim, { status: 402, body: {} }, at(6)), 'already completed');
    t.deepEqual(await fixture.store.find(claim.userId, claim.key), { ...claim, response, completedAt: at(5) });
  });

  test(`${name}: release frees a pending claim of its holder only`, async (t) => {
    const claim = claimOf();
    await fixture.store.claim(claim);
    await fixture.store.release({ ...claim, token: randomUUID() });
    t.not(await fixture.store.find(claim.userId, claim.key), null, 'someone else cannot release it');
    await fixture.store.release(claim);
    t.is(await fixture.store.find(claim.userId, claim.key), null);
    t.true((await fixture.store.claim({ ...claim, token: randomUUID() })).claimed, 'free again');

    const done = claimOf();
    await fixture.store.claim(done);
    await fixture.store.complete(done, { status: 200, body: 1 }, at(1));
    await fixture.store.release(done);
    t.not(await fixture.store.find(done.userId, done.key), null, 'a completed key stays');
  });

  test(`${name}: replace takes over only the record as it was seen`, async (t) => {
    const old = claimOf();
    await fixture.store.claim(old);
    const seenPending = (await fixture.store.find(old.userId, old.key))!;
    const takeover = { ...old, token: randomUUID(), fingerprint: 'a'.repeat(64), claimedAt: at(100), expiresAt: at(100 + DAY) };
    t.false(await fixture.store.replace({ token: randomUUID(), completedAt: null }, takeover), 'another token');
    t.true(await fixture.store.replace(seenPending, takeover));
    t.deepEqual(await fixture.store.find(old.userId, old.key), { ...takeover, response: null, completedAt: null });
    t.false(await fixture.store.complete(old, { status: 200, body: 'late' }, at(101)), 'the old holder lost its claim');
    t.false(await fixture.store.replace(seenPending, { ...takeover, token: randomUUID() }), 'the seen record is gone');

    // Seen pending, completed meanwhile: not abandoned after all, so no takeover.
    const seenAgain = (await fixture.store.find(old.userId, old.key))!;
    t.true(await fixture.store.complete(takeover, { status: 200, body: 'done' }, at(102)));
    t.false(await fixture.store.replace(seenAgain, { ...takeover, token: randomUUID() }));
    // Seen completed (expired): may be replaced.
    const seenDone = (await fixture.store.find(old.userId, old.key))!;
    const renewed = { ...takeover, token: randomUUID(), claimedAt: at(2 * DAY), expiresAt: at(3 * DAY) };
    t.true(await fixture.store.replace(seenDone, renewed));
    t.deepEqual(await fixture.store.find(old.userId, old.key), { ...renewed, response: null, completedAt: null });
  });

  test(`${name}: purgeExpired removes records whose expiry has come, and only those`, async (t) => {
    // Long before every other test's records (they run concurrently and must not be purged).
    const Y2K = new Date('2000-01-01T00:00:00.000Z').getTime();
    const userId = randomUUID();
    const past = claimOf({ userId, key: 'past', claimedAt: new Date(Y2K - DAY), expiresAt: new Date(Y2K) });
    const edge = claimOf({ userId, key: 'edge', claimedAt: new Date(Y2K), expiresAt: new Date(Y2K + 5 * DAY) });
    const future = claimOf({ userId, key: 'future', claimedAt: new Date(Y2K), expiresAt: new Date(Y2K + 5 * DAY + 1) });
    for (const claim of [past, edge, future]) await fixture.store.claim(claim);
    await fixture.store.complete(past, { status: 200, body: null }, new Date(Y2K - 1));
    t.is(await fixture.store.purgeExpired(new Date(Y2K + 5 * DAY)), 2);
    t.is(await fixture.store.find(userId, 'past'), null);
    t.is(await fixture.store.find(userId, 'edge'), null);
    t.not(await fixture.store.find(userId, 'future'), null);
  });

  test(`${name}: 50 concurrent claims of one key: exactly one wins, every loser sees the winner`, async (t) => {
    const base = claimOf();
    const claims = Array.from({ length: 50 }, () => ({ ...base, token: randomUUID() }));
    const outcomes = await Promise.all(claims.map((claim) => fixture.store.claim(claim)));
    const winners = outcomes.flatMap((outcome, i) => (outcome.claimed ? [claims[i]!.token] : []));
    t.is(winners.length, 1);
    t.true(outcomes.every((outcome) => outcome.claimed || outcome.existing.token === winners[0]));
  });

  test(`${name}: ExecuteIdempotently on this store: 20 concurrent requests with one key charge once`, async (t) => {
    const userId = randomUUID();
    await fixture.users.create({ id: userId, email: `${userId}@example.com`, displayName: 'I', role: 'user', passwordHash: null, createdAt: T0 });
    await fixture.ledger.apply({ id: randomUUID(), userId, amount: 10, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: T0 });
    const execute = useCase(fixture);
    const charge = async () => {
      const applied = await fixture.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: null, actorId: userId, createdAt: new Date() });
      return { status: 200, body: { balance: applied.ok ? applied.transaction.balanceAfter : null } };
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => execute.execute({ userId, key: 'pay-once', fingerprint: 'same', run: charge })));
    t.true(results.every((r) => r.ok && r.value.response.status === 200 && (r.value.response.body as { balance: number }).balance === 9));
    t.is(results.filter((r) => r.ok && !r.value.replayed).length, 1);
    t.is((await fixture.users.findById(userId))!.coinBalance, 9);
    t.is(await fixture.ledger.sum(userId), 9);
  });

  test(`${name}: a change whose claim was taken over meanwhile is rolled back`, async (t) => {
    if (!fixture.rollsBack) return t.pass('this adapter has no rollback');
    const userId = randomUUID();
    await fixture.users.create({ id: userId, email: `${userId}@example.com`, displayName: 'I', role: 'user', passwordHash: null, createdAt: T0 });
    await fixture.ledger.apply({ id: randomUUID(), userId, amount: 10, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: T0 });
    const result = await useCase(fixture).execute({
      userId,
      key: 'stolen',
      fingerprint: 'same',
      run: async () => {
        await fixture.ledger.apply({ id: randomUUID(), userId, amount: -4, reason: 'image_generation', relatedEntityId: null, actorId: userId, createdAt: new Date() });
        const seen = (await fixture.store.find(userId, 'stolen'))!;
        await fixture.store.replace(seen, { ...seen, token: randomUUID() });
        return { status: 200, body: 'charged' };
      },
    });
    t.like(result, { ok: false, code: 'IDEMPOTENCY.IN_PROGRESS' });
    t.is((await fixture.users.findById(userId))!.coinBalance, 10);
    t.is(await fixture.ledger.sum(userId), 10);
  });
}

const useCase = (fixture: IdempotencyStoreFixture) =>
  new ExecuteIdempotently({
    store: fixture.store,
    uow: fixture.uow,
    ids: { newId: () => randomUUID() },
    clock: { now: () => new Date() },
    remember: rememberResponse,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ttlSeconds: 86_400,
    waitMs: 10_000,
    pollMs: 20,
    abandonedAfterSeconds: 60,
  });
