import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { IdempotencyClaim, StoredResponse } from '../../core/ports/idempotency-store.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, sharedBackend, sleep, within, type MakeBackend } from './fixtures.ts';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const DAY = 86_400_000;

/** Registers the IdempotencyStore contract for one backend; `make()` returns a fresh, empty backend. */
export function idempotencyStoreContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let uow: UnitOfWork;
  test.before(async () => {
    ({ repos, uow } = await backend());
  });
  const fixture = {
    get store() {
      return repos.idempotency;
    },
  };

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
    // Within a deadline: a loser that does not take the winner's row would try its insert again forever.
    const second = await within(fixture.store.claim({ ...first, token: randomUUID(), fingerprint: 'e'.repeat(64) }), 5000, 'the losing claim');
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

  // Pins that find reads only the caller's record: another user's remembered response (their account) is never replayed to them.
  test(`${name}: find reads the caller's own record when another user holds the same key`, async (t) => {
    const key = `shared-${randomUUID()}`;
    const theirs = claimOf({ key, fingerprint: 'b'.repeat(64) });
    const mine = claimOf({ key });
    t.true((await fixture.store.claim(theirs)).claimed);
    t.true(await fixture.store.complete(theirs, { status: 200, body: { email: 'them@example.com', coinBalance: 900 } }, at(1)));
    t.true((await fixture.store.claim(mine)).claimed);
    t.deepEqual(await fixture.store.find(mine.userId, key), { ...mine, response: null, completedAt: null });
    t.deepEqual(await fixture.store.find(theirs.userId, key), { ...theirs, response: { status: 200, body: { email: 'them@example.com', coinBalance: 900 } }, completedAt: at(1) });
    t.is(await fixture.store.find(randomUUID(), key), null, 'a user who never used the key');
    t.deepEqual(await fixture.store.claim({ ...mine, token: randomUUID() }), { claimed: false, existing: { ...mine, response: null, completedAt: null } }, 'a repeat sees its own pending claim');
  });

  // Pins that only a taken key makes a claim look again: any other refusal of the insert is an error, never an endless retry.
  if (name !== 'memory') {
    test(`${name}: a claim the database refuses for another reason rejects instead of retrying`, async (t) => {
      // The store as the claim sees it, counting each time it looks for the winner's record (a retry would; the count stops it).
      let looked = 0;
      const store = Object.create(fixture.store, {
        find: {
          value: async () => {
            looked += 1;
            throw new Error('the claim looked for a winner');
          },
        },
      }) as typeof fixture.store;
      await t.throwsAsync(store.claim({ ...claimOf(), fingerprint: null as unknown as string }));
      t.is(looked, 0, 'the refusal is not taken for a lost race');
    });
  }

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

  // Between a look and the takeover, the holder may release the key (or a purge delete it): replace updates what was
  // seen, it never inserts; the caller claims afresh.
  test(`${name}: replace of a record that is gone since it was seen is refused and stores nothing`, async (t) => {
    const claim = claimOf();
    await fixture.store.claim(claim);
    const seen = (await fixture.store.find(claim.userId, claim.key))!;
    await fixture.store.release(claim);
    t.false(await fixture.store.replace(seen, { ...claim, token: randomUUID() }));
    t.is(await fixture.store.find(claim.userId, claim.key), null);
    t.true((await fixture.store.claim({ ...claim, token: randomUUID() })).claimed, 'the key is free to claim');
  });

  // As JSON in a row: what is read or stored is a copy, so a caller editing a response it stored or read (or a record
  // a lost claim handed back) changes nothing remembered.
  test(`${name}: records and responses are copies: editing what was stored or read changes nothing kept`, async (t) => {
    const claim = claimOf();
    await fixture.store.claim(claim);
    const response = { status: 200, body: { coinBalance: 5, items: [1, 2] } };
    t.true(await fixture.store.complete(claim, response, at(1)));
    response.body.coinBalance = 999;
    response.body.items.push(3);
    const read = (await fixture.store.find(claim.userId, claim.key))!;
    t.deepEqual(read.response, { status: 200, body: { coinBalance: 5, items: [1, 2] } }, 'the stored response is not the caller\'s object');
    (read.response!.body as { coinBalance: number }).coinBalance = 0;
    read.completedAt = null;
    const lost = await fixture.store.claim({ ...claim, token: randomUUID() });
    if (lost.claimed) return t.fail('the key was free');
    (lost.existing.response!.body as { coinBalance: number }).coinBalance = -1;
    t.deepEqual(await fixture.store.find(claim.userId, claim.key), { ...claim, response: { status: 200, body: { coinBalance: 5, items: [1, 2] } }, completedAt: at(1) });
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

  /** A user with 10 coins. */
  const payer = async (): Promise<string> => {
    const userId = await addUser(repos.users, { displayName: 'Idempotent' });
    await repos.ledger.apply({ id: randomUUID(), userId, amount: 10, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: T0 });
    return userId;
  };
  const chargeOne = (ledger: Repositories['ledger'], userId: string) =>
    ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: null, actorId: userId, createdAt: new Date() });

  /**
   * The protocol an idempotent caller follows on this port: claim; the winner makes its change and stores the
   * response in one unit of work; a loser waits for the winner's response and replays it.
   */
  const once = async (userId: string, key: string): Promise<{ response: StoredResponse; replayed: boolean }> => {
    const claim = claimOf({ userId, key, claimedAt: new Date(), expiresAt: new Date(Date.now() + DAY) });
    const outcome = await fixture.store.claim(claim);
    if (outcome.claimed) {
      const response = await uow.run(async (tx) => {
        const applied = await chargeOne(tx.ledger, userId);
        const stored: StoredResponse = { status: 200, body: { balance: applied.ok ? applied.transaction.balanceAfter : null } };
        if (!(await tx.idempotency.complete(claim, stored, new Date()))) throw new Error('claim lost');
        return stored;
      });
      return { response, replayed: false };
    }
    for (let polls = 0; polls < 500; polls++) {
      const record = await fixture.store.find(userId, key);
      if (record?.response) return { response: record.response, replayed: true };
      await sleep(10);
    }
    throw new Error('the winner never completed');
  };

  test(`${name}: 20 concurrent requests with one key: one claim wins, its change and response commit together, the others replay it`, async (t) => {
    const userId = await payer();
    const results = await Promise.all(Array.from({ length: 20 }, () => once(userId, 'pay-once')));
    t.is(results.filter((r) => !r.replayed).length, 1);
    t.true(results.every((r) => r.response.status === 200 && (r.response.body as { balance: number }).balance === 9));
    t.is((await repos.users.findById(userId))!.coinBalance, 9);
    t.is(await repos.ledger.sum(userId), 9);
  });

  test(`${name}: complete in a unit of work that rolls back: the claim stays pending and the change is undone`, async (t) => {
    const userId = await payer();
    const claim = claimOf({ userId });
    await fixture.store.claim(claim);
    await t.throwsAsync(
      uow.run(async (tx) => {
        await chargeOne(tx.ledger, userId);
        t.true(await tx.idempotency.complete(claim, { status: 200, body: 'charged' }, at(1)));
        throw new Error('a later step failed');
      }),
      { message: 'a later step failed' },
    );
    t.deepEqual(await fixture.store.find(userId, claim.key), { ...claim, response: null, completedAt: null });
    t.is((await repos.users.findById(userId))!.coinBalance, 10);
    t.true(await fixture.store.complete(claim, { status: 200, body: 'later' }, at(2)), 'still ours to complete');
  });

  test(`${name}: a change whose claim was taken over meanwhile cannot complete, and throwing rolls it back`, async (t) => {
    const userId = await payer();
    const claim = claimOf({ userId, key: 'stolen' });
    await fixture.store.claim(claim);
    // Another request decided this claim was abandoned and took the key over while the holder was still working.
    const taker = { ...claim, token: randomUUID(), claimedAt: at(60_000) };
    t.true(await fixture.store.replace((await fixture.store.find(userId, 'stolen'))!, taker));
    await t.throwsAsync(
      uow.run(async (tx) => {
        await chargeOne(tx.ledger, userId);
        if (!(await tx.idempotency.complete(claim, { status: 200, body: 'charged' }, at(1)))) throw new Error('claim lost');
      }),
      { message: 'claim lost' },
    );
    t.is((await repos.users.findById(userId))!.coinBalance, 10);
    t.is(await repos.ledger.sum(userId), 10);
    t.deepEqual(await fixture.store.find(userId, 'stolen'), { ...taker, response: null, completedAt: null }, "the taker's claim stands");
  });
}
