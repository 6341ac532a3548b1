import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { CoinReason } from '../../core/domain/coin.ts';
import type { DeductionClaims } from '../../core/ports/deduction-claims.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, era, sharedBackend, type MakeBackend } from './fixtures.ts';

/** Registers the DeductionClaims contract for one backend; `make()` returns a fresh, empty backend. */
export function deductionClaimsContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let claims: DeductionClaims;
  test.before(async () => {
    ({ repos } = await backend());
    claims = repos.claims;
  });

  /** A user with 1000 coins (credited long before every deduction of the tests). */
  const user = async (): Promise<string> => {
    const userId = await addUser(repos.users);
    const credited = await repos.ledger.apply({ id: randomUUID(), userId, amount: 1000, reason: 'signup_bonus', relatedEntityId: null, actorId: null, createdAt: new Date('1980-01-01T00:00:00Z') });
    if (!credited.ok) throw new Error(credited.reason);
    return userId;
  };

  /** A ledger row; returns its id. */
  const row = async (userId: string, amount: number, reason: CoinReason, relatedEntityId: string | null, createdAt = at(0)): Promise<string> => {
    const id = randomUUID();
    const applied = await repos.ledger.apply({ id, userId, amount, reason, relatedEntityId, actorId: reason === 'admin_adjustment' ? randomUUID() : userId, createdAt });
    if (!applied.ok) throw new Error(applied.reason);
    return id;
  };

  test(`${name}: a deduction is claimed once, whatever the outcome of the second attempt`, async (t) => {
    const userId = await user();
    const deduction = await row(userId, -5, 'image_generation', randomUUID());
    const jobId = randomUUID();
    t.true(await claims.claim(deduction, 'job', jobId, at(1)));
    t.false(await claims.claim(deduction, 'refunded', null, at(2)));
    t.false(await claims.claim(deduction, 'job', randomUUID(), at(3)));
    t.false(await claims.claim(deduction, 'job', jobId, at(4)));
    const other = await row(userId, -5, 'video_generation', randomUUID());
    t.true(await claims.claim(other, 'refunded', null, at(5)));
    t.false(await claims.claim(other, 'job', jobId, at(6)));
  });

  test(`${name}: of concurrent claims of one deduction exactly one wins`, async (t) => {
    const userId = await user();
    const deduction = await row(userId, -5, 'image_generation', randomUUID());
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claims.claim(deduction, i % 2 === 0 ? 'job' : 'refunded', i % 2 === 0 ? randomUUID() : null, at(i))),
    );
    t.is(outcomes.filter(Boolean).length, 1);
  });

  test(`${name}: findUnclaimed finds the user's own generation deduction for the request until it is claimed`, async (t) => {
    const userId = await user();
    const other = await user();
    const requestId = randomUUID();
    const deduction = await row(userId, -7, 'image_generation', requestId);
    t.deepEqual(await claims.findUnclaimed(userId, requestId), { id: deduction, amount: 7 });
    t.is(await claims.findUnclaimed(other, requestId), null, "another user's");
    t.is(await claims.findUnclaimed(userId, randomUUID()), null, 'another request');
    t.true(await claims.claim(deduction, 'job', randomUUID(), at(1)));
    t.is(await claims.findUnclaimed(userId, requestId), null, 'claimed');

    const video = randomUUID();
    const videoDeduction = await row(userId, -9, 'video_generation', video);
    t.deepEqual(await claims.findUnclaimed(userId, video), { id: videoDeduction, amount: 9 });
  });

  test(`${name}: findUnclaimed ignores what is not a user's generation deduction`, async (t) => {
    const userId = await user();
    const requestId = randomUUID();
    await row(userId, -4, 'admin_adjustment', requestId);
    await row(userId, 4, 'generation_refund', requestId);
    await row(userId, 4, 'admin_adjustment', requestId);
    await row(userId, 4, 'image_generation', requestId); // a credit, whatever its reason
    await row(userId, -4, 'image_generation', null);
    t.is(await claims.findUnclaimed(userId, requestId), null);
  });

  test(`${name}: listUnclaimed lists unclaimed user generation deductions older than the cut-off, at most max`, async (t) => {
    const time = era(6);
    const userId = await user();
    const other = await user();
    const requests = [randomUUID(), randomUUID(), randomUUID()];
    const listed = [
      { id: await row(userId, -3, 'image_generation', requests[0]!, time(1)), userId, amount: 3, relatedEntityId: requests[0]! },
      { id: await row(other, -6, 'video_generation', requests[1]!, time(2)), userId: other, amount: 6, relatedEntityId: requests[1]! },
      { id: await row(userId, -2, 'image_generation', requests[2]!, time(3)), userId, amount: 2, relatedEntityId: requests[2]! },
    ];
    const claimed = await row(userId, -1, 'image_generation', randomUUID(), time(4));
    t.true(await claims.claim(claimed, 'refunded', null, time(5)));
    await row(userId, -1, 'admin_adjustment', randomUUID(), time(6));
    await row(userId, 1, 'generation_refund', randomUUID(), time(7));
    await row(userId, 1, 'image_generation', randomUUID(), time(8));
    await row(userId, -1, 'image_generation', null, time(9));
    await row(userId, -1, 'image_generation', randomUUID(), time(1000)); // too young
    const cutoff = time(100);
    const sortById = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
    t.deepEqual(sortById(await claims.listUnclaimed(cutoff, 100)), sortById(listed));
    const limited = await claims.listUnclaimed(cutoff, 2);
    t.is(limited.length, 2);
    t.true(limited.every((found) => listed.some((row) => row.id === found.id)));
    t.deepEqual(await claims.listUnclaimed(time(0), 100), []);
  });

  test(`${name}: a claim made in a unit of work that rolls back is not there`, async (t) => {
    const userId = await user();
    const requestId = randomUUID();
    const deduction = await row(userId, -5, 'image_generation', requestId);
    const { uow } = await backend();
    await t.throwsAsync(
      uow.run(async (tx) => {
        t.true(await tx.claims.claim(deduction, 'refunded', null, at(1)));
        throw new Error('the refund failed');
      }),
    );
    t.deepEqual(await claims.findUnclaimed(userId, requestId), { id: deduction, amount: 5 });
    t.true(await claims.claim(deduction, 'job', randomUUID(), at(2)));
  });
}
