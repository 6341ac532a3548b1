import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { LinkedDeduction } from '../../core/domain/job-payment.ts';
import type { LinkedDeductions } from '../../core/ports/linked-deductions.port.ts';
import type { Repositories } from '../support/backends.ts';
import { addUser, at, era, sharedBackend, type MakeBackend } from './fixtures.ts';

/** Registers the LinkedDeductions contract for one backend; `make()` returns a fresh, empty backend. */
export function linkedDeductionsContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let repos: Repositories;
  let deductions: LinkedDeductions;
  test.before(async () => {
    ({ repos } = await backend());
    deductions = repos.deductions;
  });

  /** Stores an open deduction of `amount` coins for `relatedEntityId`; returns it. */
  const open = async (userId: string, amount: number, relatedEntityId = randomUUID(), createdAt = at(0)): Promise<LinkedDeduction> => {
    const deduction = { id: randomUUID(), userId, relatedEntityId, amount, createdAt };
    await deductions.add(deduction);
    return deduction;
  };

  test(`${name}: a deduction gets one ending, whatever the second attempt asks for`, async (t) => {
    const userId = await addUser(repos.users);
    const deduction = await open(userId, 5);
    const jobId = randomUUID();
    t.true(await deductions.end(deduction.id, 'job', jobId, at(1)));
    t.false(await deductions.end(deduction.id, 'refunded', null, at(2)));
    t.false(await deductions.end(deduction.id, 'job', randomUUID(), at(3)));
    t.false(await deductions.end(deduction.id, 'job', jobId, at(4)));
    const other = await open(userId, 5);
    t.true(await deductions.end(other.id, 'refunded', null, at(5)));
    t.false(await deductions.end(other.id, 'job', jobId, at(6)));
    t.false(await deductions.end(randomUUID(), 'refunded', null, at(7)), 'an unknown deduction has no ending to give');
  });

  test(`${name}: of concurrent endings of one deduction exactly one wins`, async (t) => {
    const userId = await addUser(repos.users);
    const deduction = await open(userId, 5);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => deductions.end(deduction.id, i % 2 === 0 ? 'job' : 'refunded', i % 2 === 0 ? randomUUID() : null, at(i))),
    );
    t.is(outcomes.filter(Boolean).length, 1);
  });

  test(`${name}: findOpen finds the user's deduction for the request, the oldest first, until it has an ending`, async (t) => {
    const userId = await addUser(repos.users);
    const other = await addUser(repos.users);
    const requestId = randomUUID();
    const second = await open(userId, 9, requestId, at(2));
    const first = await open(userId, 7, requestId, at(1));
    t.deepEqual(await deductions.findOpen(userId, requestId), first);
    t.is(await deductions.findOpen(other, requestId), null, "another user's");
    t.is(await deductions.findOpen(userId, randomUUID()), null, 'another request');
    t.true(await deductions.end(first.id, 'job', randomUUID(), at(3)));
    t.deepEqual(await deductions.findOpen(userId, requestId), second, 'the next one once the first has ended');
    t.true(await deductions.end(second.id, 'refunded', null, at(4)));
    t.is(await deductions.findOpen(userId, requestId), null, 'both ended');
  });

  test(`${name}: listOpen lists open deductions made at or before the cut-off, oldest first, at most max`, async (t) => {
    const time = era(6);
    const userId = await addUser(repos.users);
    const other = await addUser(repos.users);
    const listed = [await open(userId, 3, randomUUID(), time(1)), await open(other, 6, randomUUID(), time(2)), await open(userId, 2, randomUUID(), time(3))];
    const ended = await open(userId, 1, randomUUID(), time(4));
    t.true(await deductions.end(ended.id, 'refunded', null, time(5)));
    await open(userId, 1, randomUUID(), time(1000)); // too young
    const cutoff = time(100);
    const mine = (rows: LinkedDeduction[]) => rows.filter((row) => row.userId === userId || row.userId === other);
    t.deepEqual(mine(await deductions.listOpen(cutoff, 1000)), listed);
    t.deepEqual(mine(await deductions.listOpen(time(3), 1000)), listed, 'the cut-off itself is included');
    const limited = await deductions.listOpen(cutoff, 2);
    t.is(limited.length, 2);
    t.deepEqual(mine(await deductions.listOpen(time(0), 1000)), []);
  });

  test(`${name}: an ending written in a unit of work that rolls back is not there`, async (t) => {
    const userId = await addUser(repos.users);
    const requestId = randomUUID();
    const deduction = await open(userId, 5, requestId);
    const { uow } = await backend();
    await t.throwsAsync(
      uow.run(async (tx) => {
        t.true(await tx.deductions.end(deduction.id, 'refunded', null, at(1)));
        throw new Error('the refund failed');
      }),
    );
    t.deepEqual(await deductions.findOpen(userId, requestId), deduction);
    t.true(await deductions.end(deduction.id, 'job', randomUUID(), at(2)));
  });

  test(`${name}: a deduction added in a unit of work that rolls back is not there`, async (t) => {
    const userId = await addUser(repos.users);
    const requestId = randomUUID();
    const { uow } = await backend();
    await t.throwsAsync(
      uow.run(async (tx) => {
        await tx.deductions.add({ id: randomUUID(), userId, relatedEntityId: requestId, amount: 4, createdAt: at(0) });
        throw new Error('the deduction failed');
      }),
    );
    t.is(await deductions.findOpen(userId, requestId), null);
  });
}
