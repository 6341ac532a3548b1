import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { CoinReason } from '../../core/domain/coin.ts';
import { chargeReason, claimableDeduction, refundOwed, settlement } from '../../core/domain/job-payment.ts';
import type { LinkedDeductions } from '../../core/ports/linked-deductions.port.ts';
import { SweepUnclaimedDeductions } from '../../core/use-cases/coins/sweep-unclaimed-deductions.use-case.ts';
import { BACKENDS } from '../support/backends.ts';
import { generationHarness, quietLogger, type Harness } from '../support/generation-harness.ts';

// The money rules of a job, pinned as literal tables (not derived from the code under test), then the guards
// that make each movement happen once, on every backend.

const row = (over: { amount: number; reason: CoinReason; relatedEntityId: string | null; actorId: string | null }) => ({
  id: 'row',
  userId: 'user',
  createdAt: new Date(0),
  ...over,
});

test('claimable: only a user\'s own generation deduction that names a related entity', (t) => {
  const cases: [amount: number, reason: CoinReason, related: string | null, actor: string | null, claimable: boolean][] = [
    [-5, 'image_generation', 'req', 'user', true],
    [-5, 'video_generation', 'req', 'user', true],
    [-5, 'image_generation', null, 'user', false],
    [-5, 'image_generation', 'req', 'admin', false],
    [-5, 'image_generation', 'req', null, false],
    [-5, 'admin_adjustment', 'req', 'user', false],
    [-5, 'generation_refund', 'req', 'user', false],
    [-5, 'signup_bonus', 'req', 'user', false],
    [5, 'image_generation', 'req', 'user', false],
  ];
  for (const [amount, reason, relatedEntityId, actorId, claimable] of cases) {
    const found = claimableDeduction(row({ amount, reason, relatedEntityId, actorId }));
    t.is(found !== null, claimable, `${amount} ${reason} ${relatedEntityId} by ${actorId}`);
  }
  t.deepEqual(claimableDeduction(row({ amount: -7, reason: 'video_generation', relatedEntityId: 'req', actorId: 'user' })), {
    id: 'row',
    userId: 'user',
    relatedEntityId: 'req',
    amount: 7,
    createdAt: new Date(0),
  });
});

test('settlement and refunds: what is charged, given back and owed', (t) => {
  t.deepEqual(settlement(5, 0), { due: 5, excess: 0 });
  t.deepEqual(settlement(5, 3), { due: 2, excess: 0 });
  t.deepEqual(settlement(5, 5), { due: 0, excess: 0 });
  t.deepEqual(settlement(5, 8), { due: 0, excess: 3 });
  t.deepEqual(settlement(0, 4), { due: 0, excess: 4 });
  const owed: [status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled', paid: number, refunded: number, owed: number][] = [
    ['failed', 5, 0, 5],
    ['cancelled', 5, 0, 5],
    ['failed', 5, 5, 0],
    ['succeeded', 5, 0, 0],
    ['running', 5, 0, 0],
    ['queued', 5, 0, 0],
    ['failed', 0, 0, 0],
  ];
  for (const [status, paidCoins, refundedCoins, expected] of owed) t.is(refundOwed({ status, paidCoins, refundedCoins }), expected, `${status} ${paidCoins}/${refundedCoins}`);
  // The reason a job's charge is recorded under, by its output type.
  t.is(chargeReason('image'), 'image_generation');
  t.is(chargeReason('video'), 'video_generation');
});

const setup = async (t: { teardown(fn: () => Promise<void>): void }, backend: (typeof BACKENDS)[number]): Promise<Harness> => {
  const h = await generationHarness({ backend });
  t.teardown(() => h.dispose());
  return h;
};

/** A sweeper that works from a list read earlier (as a real one does: it lists outside any transaction). */
const sweeperFrom = (h: Harness, listed: Awaited<ReturnType<LinkedDeductions['listOpen']>>) =>
  new SweepUnclaimedDeductions({
    uow: h.uow,
    deductions: { ...h.repos.deductions, listOpen: async () => listed },
    payment: h.payment,
    clock: h.clock,
    logger: quietLogger,
    unclaimedMinutes: 15,
  });

/** A user with 10 coins who deducted 4 for a request (a 4-coin template's), 20 minutes ago: the sweep may take it. */
const deductedForLater = async (t: { teardown(fn: () => Promise<void>): void }, backend: (typeof BACKENDS)[number]) => {
  const h = await setup(t, backend);
  const userId = await h.newUser(10);
  const templateId = await h.addTemplate(4);
  const requestId = randomUUID();
  await h.deduct(userId, 4, requestId);
  h.advance(20);
  return { h, userId, templateId, requestId };
};

/** A user with 10 coins whose 4-coin job was just submitted (and charged). */
const submittedJob = async (t: { teardown(fn: () => Promise<void>): void }, backend: (typeof BACKENDS)[number]) => {
  const h = await setup(t, backend);
  const userId = await h.newUser(10);
  const submitted = await h.submit.execute({ userId, role: 'user', templateId: await h.addTemplate(4) });
  if (!submitted.ok) throw new Error(`submit refused: ${JSON.stringify(submitted)}`);
  return { h, userId, jobId: submitted.value.job.id };
};

const refundsOf = async (h: Harness, userId: string, relatedEntityId: string) =>
  (await h.repos.ledger.findByRelatedEntity(userId, relatedEntityId)).filter((row) => row.reason === 'generation_refund');

for (const backend of BACKENDS) {
  test(`[${backend}] a sweep that lost its deduction to a job's claim refunds nothing`, async (t) => {
    const { h, userId, templateId, requestId } = await deductedForLater(t, backend);
    const listed = await h.repos.deductions.listOpen(h.clock.now(), 100);
    t.true(listed.some((deduction) => deduction.relatedEntityId === requestId), 'the sweep saw it open');
    // The job claims it between the sweep's list and its transaction.
    const submitted = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.true(submitted.ok && submitted.value.job.paidCoins === 4);
    t.is(await sweeperFrom(h, listed).execute(), 0);
    t.is(await h.balance(userId), 6, 'paid once by the deduction, refunded never');
    t.deepEqual(await refundsOf(h, userId, requestId), []);
    t.is(await h.repos.ledger.sum(userId), 6);
  });

  test(`[${backend}] two sweeps refunding the same deduction at once give it back once`, async (t) => {
    const h = await setup(t, backend);
    const userId = await h.newUser(10);
    const requestId = randomUUID();
    await h.deduct(userId, 3, requestId);
    h.advance(20);
    const listed = (await h.repos.deductions.listOpen(h.clock.now(), 100)).filter((deduction) => deduction.userId === userId);
    const counts = await Promise.all([sweeperFrom(h, listed).execute(), sweeperFrom(h, listed).execute(), h.sweeper.execute()]);
    t.is(counts.reduce((a, b) => a + b, 0), 1);
    t.is(await h.balance(userId), 10);
    t.is((await refundsOf(h, userId, requestId)).length, 1);
    t.is(await h.repos.ledger.sum(userId), 10);
  });

  test(`[${backend}] a submit after the sweep refunded its deduction pays in full, and is never paid twice`, async (t) => {
    const { h, userId, templateId, requestId } = await deductedForLater(t, backend);
    t.is(await h.sweeper.execute(), 1);
    t.is(await h.balance(userId), 10);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.true(submitted.ok && submitted.value.job.paidCoins === 4);
    t.is(await h.balance(userId), 6, 'charged by the submit itself');
    t.is(await h.repos.ledger.sum(userId), 6);
  });

  test(`[${backend}] a job's own charge and an administrator's deduction are never swept`, async (t) => {
    const h = await setup(t, backend);
    const userId = await h.newUser(10);
    const templateId = await h.addTemplate(2);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId, requestId: randomUUID() });
    t.true(submitted.ok);
    await h.repos.ledger.apply({ id: randomUUID(), userId, amount: -1, reason: 'image_generation', relatedEntityId: randomUUID(), actorId: randomUUID(), createdAt: h.clock.now() });
    h.advance(60);
    t.is(await h.sweeper.execute(), 0);
    t.is(await h.balance(userId), 7);
  });

  test(`[${backend}] a submit that read its deduction open, after the sweep ended it, pays in full`, async (t) => {
    const h = await setup(t, backend);
    const userId = await h.newUser(10);
    const requestId = randomUUID();
    await h.deduct(userId, 4, requestId);
    const stale = await h.repos.deductions.findOpen(userId, requestId);
    if (!stale) return t.fail('the deduction is open');
    h.advance(20);
    t.is(await h.sweeper.execute(), 1);
    t.is(await h.balance(userId), 10);
    // The submit's read happened before the sweep committed: only the conditional ending tells it the claim failed.
    const jobId = randomUUID();
    const paid = await h.uow.run((tx) => {
      const deductions = Object.create(tx.deductions, { findOpen: { value: async () => stale } }) as typeof tx.deductions;
      return h.payment.payForJob(Object.create(tx, { deductions: { value: deductions } }) as typeof tx, { userId, jobId, requestId, price: 4, outputType: 'image', at: h.clock.now() });
    });
    t.is(paid, 'paid');
    t.is(await h.balance(userId), 6, 'charged in full by the job');
    t.is(await h.repos.ledger.sum(userId), 6);
  });

  test(`[${backend}] a job's refund is given once, even to a caller holding the job as it was before the refund`, async (t) => {
    const { h, userId, jobId } = await submittedJob(t, backend);
    const cancelled = await h.cancel.execute({ userId, jobId });
    t.true(cancelled.ok && cancelled.value.refundedCoins === 4);
    t.is(await h.balance(userId), 10);
    const stale = { ...(await h.repos.jobs.findById(jobId))!, refundedCoins: 0 };
    const again = await Promise.all([1, 2].map(() => h.uow.run((tx) => h.payment.refundJob(tx, stale, h.clock.now()))));
    t.deepEqual(again, [0, 0]);
    t.is(await h.balance(userId), 10);
    t.is((await refundsOf(h, userId, jobId)).length, 1);
  });

  // Pins that a job its linked deduction paid in full writes no charge row of its own (not even one of 0 coins).
  test(`[${backend}] a job paid in full by its linked deduction adds no charge to the ledger`, async (t) => {
    const { h, userId, templateId, requestId } = await deductedForLater(t, backend);
    const submitted = await h.submit.execute({ userId, role: 'user', templateId, requestId });
    t.true(submitted.ok && submitted.value.job.paidCoins === 4);
    // The bonus and the deduction share a timestamp: compare the rows in a fixed order.
    const rows = (await h.ledgerOf(userId)).map((row) => [row.amount, row.reason, row.relatedEntityId] as const).sort((a, b) => a[0] - b[0]);
    t.deepEqual(rows, [[-4, 'image_generation', requestId], [10, 'signup_bonus', null]]);
    t.is(await h.balance(userId), 6);
  });

  // Pins that a job owing nothing back (still queued, or paid nothing) is not marked refunded and gets no refund row.
  test(`[${backend}] a job that owes nothing back gets no refund row and stays unrefunded`, async (t) => {
    const { h, userId, jobId } = await submittedJob(t, backend);
    const queued = (await h.repos.jobs.findById(jobId))!;
    t.is(await h.uow.run((tx) => h.payment.refundJob(tx, queued, h.clock.now())), 0);
    t.is(await h.uow.run((tx) => h.payment.refundJob(tx, { ...queued, status: 'failed', paidCoins: 0 }, h.clock.now())), 0);
    t.deepEqual(await refundsOf(h, userId, jobId), []);
    t.is(await h.balance(userId), 6);
    // Once it really fails, it gives back its 4 coins: nothing above marked it refunded.
    t.is(await h.uow.run((tx) => h.payment.refundJob(tx, { ...queued, status: 'failed' }, h.clock.now())), 4);
    t.is(await h.balance(userId), 10);
    t.deepEqual((await refundsOf(h, userId, jobId)).map((row) => row.amount), [4]);
  });

  test(`[${backend}] a refund credit the ledger refuses undoes the whole ending`, async (t) => {
    const { h, userId, jobId } = await submittedJob(t, backend);
    const job = (await h.repos.jobs.findById(jobId))!;
    const failed = { ...job, status: 'failed' as const };
    await t.throwsAsync(
      h.uow.run(async (tx) => {
        await tx.jobs.transition(jobId, { to: 'failed', changes: { finishedAt: h.clock.now() } }, h.clock.now());
        const ledger = Object.create(tx.ledger, { apply: { value: async () => ({ ok: false, reason: 'user_not_found' }) } }) as typeof tx.ledger;
        return h.payment.refundJob(Object.create(tx, { ledger: { value: ledger } }) as typeof tx, failed, h.clock.now());
      }),
      { message: /refund of 4 coins/ },
    );
    t.like(await h.repos.jobs.findById(jobId), { status: job.status, refundedCoins: 0 });
    t.is(await h.balance(userId), 6);
  });

  test(`[${backend}] a late dead letter of a succeeded job neither fails it nor refunds it`, async (t) => {
    const { h, userId, jobId } = await submittedJob(t, backend);
    t.is((await h.run.execute(h.delivery(jobId))).action, 'ack');
    t.is((await h.repos.jobs.findById(jobId))!.status, 'succeeded');
    await h.deadLetters.execute(h.delivery(jobId, 4), 'delivery limit reached');
    const job = (await h.repos.jobs.findById(jobId))!;
    t.is(job.status, 'succeeded');
    t.is(job.refundedCoins, 0);
    t.is(await h.balance(userId), 6);
    t.deepEqual(await refundsOf(h, userId, jobId), []);
  });
}
