import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { OutboxEntry, OutboxLease } from '../../core/ports/outbox.port.ts';
import { freshBackend, sleep, type MakeBackend } from './fixtures.ts';

const at = (iso: string) => new Date(`2026-03-01T${iso}Z`);
const later = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);
const entry = (id: string, createdAt: Date, n: number): OutboxEntry => ({
  id,
  createdAt,
  message: { taskType: 'generation', environment: 'local', body: { jobId: `job-${n}`, workflow: { '1': { class_type: 'X', inputs: { text: 'ünïcødé ✓' } } } }, messageId: `outbox-${n}` },
});
const ids = (entries: OutboxEntry[]) => entries.map((e) => e.id);
const leaseOf = (now: Date, seconds = 30): OutboxLease => ({ token: randomUUID(), until: later(now, seconds) });

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';

/** Registers the Outbox contract for one backend; `make()` returns a fresh, empty backend. */
export function outboxContract(name: string, make: MakeBackend): void {
  test(`${name}: lease hands out unpublished entries oldest first, at most max, messages intact`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('10:01:00.000');
    await repos.outbox.add(entry(B, at('10:00:02.000'), 2));
    await repos.outbox.add(entry(C, at('10:00:03.000'), 3));
    await repos.outbox.add(entry(A, at('10:00:01.000'), 1));
    const first = await outbox.lease(2, leaseOf(now), now);
    t.deepEqual(first, [entry(A, at('10:00:01.000'), 1), entry(B, at('10:00:02.000'), 2)]);
    t.deepEqual(ids(await outbox.lease(10, leaseOf(now), now)), [C], 'leased entries are not handed out again while the lease holds');
    t.deepEqual(await outbox.lease(10, leaseOf(now), now), []);
  });

  test(`${name}: entries of one instant are leased by id (the first ones when a lease takes fewer), whatever order they were added in`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('10:01:00.000');
    const instant = at('10:00:01.000');
    for (const [id, n] of [[C, 3], [A, 1], [B, 2]] as const) await repos.outbox.add(entry(id, instant, n));
    t.deepEqual(ids(await outbox.lease(2, leaseOf(now), now)), [A, B]);
    t.deepEqual(ids(await outbox.lease(10, leaseOf(now), now)), [C]);
  });

  test(`${name}: an entry id is added once: a second add is refused and the first entry stays as it was`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('10:01:00.000');
    await repos.outbox.add(entry(A, at('10:00:01.000'), 1));
    await t.throwsAsync(repos.outbox.add(entry(A, at('10:00:02.000'), 2)));
    t.deepEqual(await outbox.lease(10, leaseOf(now), now), [entry(A, at('10:00:01.000'), 1)]);
  });

  test(`${name}: markPublished with the lease's token marks the entry once; a published entry is never leased again`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('10:01:00.000');
    await repos.outbox.add(entry(A, at('10:00:01.000'), 1));
    await repos.outbox.add(entry(B, at('10:00:02.000'), 2));
    const lease = leaseOf(now, 10);
    t.deepEqual(ids(await outbox.lease(10, lease, now)), [A, B]);
    t.true(await outbox.markPublished(A, lease.token, later(now, 1)));
    t.false(await outbox.markPublished(A, lease.token, later(now, 2)), 'already published');
    // Both leases have ended: only the unpublished entry comes back.
    const afterwards = later(now, 60);
    const next = leaseOf(afterwards);
    t.deepEqual(ids(await outbox.lease(10, next, afterwards)), [B]);
    t.false(await outbox.markPublished(A, next.token, afterwards));
    // The first publication time stays: the entry is purged by a cut-off after it, not before.
    t.is(await outbox.purgePublished(later(now, 1)), 0);
    t.is(await outbox.purgePublished(later(now, 1.001)), 1);
  });

  test(`${name}: markPublished is false for a wrong token, an entry never leased and an unknown id`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('10:01:00.000');
    await repos.outbox.add(entry(A, at('10:00:01.000'), 1));
    await repos.outbox.add(entry(B, at('10:00:02.000'), 2));
    const lease = leaseOf(now);
    t.deepEqual(ids(await outbox.lease(1, lease, now)), [A]);
    t.false(await outbox.markPublished(A, randomUUID(), now));
    t.false(await outbox.markPublished(B, lease.token, now), 'B was never leased with this token');
    t.false(await outbox.markPublished(B, randomUUID(), now));
    t.false(await outbox.markPublished(randomUUID(), lease.token, now));
    t.true(await outbox.markPublished(A, lease.token, now), 'the refusals changed nothing');
    t.deepEqual(ids(await outbox.lease(10, leaseOf(later(now, 60)), later(now, 60))), [B]);
  });

  test(`${name}: an expired lease can be taken over, and the old token can then mark nothing`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('10:01:00.000');
    await repos.outbox.add(entry(A, at('10:00:01.000'), 1));
    const old = leaseOf(now, 30);
    t.deepEqual(ids(await outbox.lease(10, old, now)), [A]);
    const early = later(now, 29);
    t.deepEqual(await outbox.lease(10, leaseOf(early), early), [], 'not before the lease ends');
    const expired = later(now, 31);
    const taker = leaseOf(expired, 30);
    t.deepEqual(ids(await outbox.lease(10, taker, expired)), [A]);
    t.false(await outbox.markPublished(A, old.token, later(expired, 1)), 'the relay that lost its lease');
    t.true(await outbox.markPublished(A, taker.token, later(expired, 1)));
  });

  test(`${name}: relays leasing at the same time never get the same entry`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    const now = at('11:00:00.000');
    const all = Array.from({ length: 60 }, (_, n) => entry(randomUUID(), later(at('10:00:00.000'), n), n));
    for (const e of all) await repos.outbox.add(e);
    const got: string[][] = [];
    for (let round = 0; round < 30 && got.flat().length < all.length; round++) {
      const batches = await Promise.all(Array.from({ length: 6 }, () => outbox.lease(7, leaseOf(now), now)));
      got.push(...batches.map(ids));
    }
    const leased = got.flat();
    t.is(new Set(leased).size, leased.length, 'an entry went to two relays');
    t.deepEqual([...leased].sort(), ids(all).sort(), 'and every entry went to one');
  });

  test(`${name}: purgePublished deletes only entries published before the cut-off, never a pending one`, async (t) => {
    const { repos, outbox } = await freshBackend(t, make);
    await repos.outbox.add(entry(A, at('09:00:00.000'), 1));
    await repos.outbox.add(entry(B, at('09:00:01.000'), 2));
    await repos.outbox.add(entry(C, at('09:00:02.000'), 3));
    const lease = leaseOf(at('09:30:00.000'), 3600 * 5);
    await outbox.lease(2, lease, at('09:30:00.000'));
    t.true(await outbox.markPublished(A, lease.token, at('10:00:00.000')));
    t.true(await outbox.markPublished(B, lease.token, at('12:00:00.000')));
    t.is(await outbox.purgePublished(at('11:00:00.000')), 1);
    t.is(await outbox.purgePublished(at('11:00:00.000')), 0);
    t.is(await outbox.purgePublished(at('12:00:00.001')), 1);
    t.is(await outbox.purgePublished(at('23:00:00.000')), 0);
    t.deepEqual(ids(await outbox.lease(10, leaseOf(at('23:00:00.000')), at('23:00:00.000'))), [C], 'the pending entry, however old, stays');
  });

  test(`${name}: entries added in a rolled-back transaction never appear`, async (t) => {
    const { repos, uow, outbox } = await freshBackend(t, make);
    await t.throwsAsync(
      uow.run(async (tx) => {
        await tx.outbox.add(entry(A, at('10:00:00.000'), 1));
        await tx.outbox.add(entry(B, at('10:00:01.000'), 2));
        throw new Error('the job insert failed');
      }),
      { message: 'the job insert failed' },
    );
    await uow.run((tx) => tx.outbox.add(entry(C, at('10:00:02.000'), 3)));
    const now = at('11:00:00.000');
    t.deepEqual(ids(await outbox.lease(10, leaseOf(now), now)), [C]);
    // The ids are free again: the rolled-back entries left nothing behind.
    await repos.outbox.add(entry(A, at('10:00:03.000'), 4));
    t.deepEqual(await outbox.lease(10, leaseOf(now), now), [entry(A, at('10:00:03.000'), 4)]);
  });

  test(`${name}: onNotify listeners hear of an added entry only after its transaction commits, never of a rollback`, async (t) => {
    const { uow, outbox } = await freshBackend(t, make);
    let calls = 0;
    let other = 0;
    const unsubscribe = outbox.onNotify(() => (calls += 1));
    outbox.onNotify(() => {
      throw new Error('a broken listener does not stop the others');
    });
    outbox.onNotify(() => (other += 1));
    let insideCalls = -1;
    await uow.run(async (tx) => {
      await tx.outbox.add(entry(A, at('10:00:00.000'), 1));
      await tx.outbox.add(entry(B, at('10:00:01.000'), 2));
      await sleep(20);
      insideCalls = calls;
    });
    t.is(insideCalls, 0, 'nothing before the commit: a woken relay would not see the entry yet');
    t.true(calls >= 1, 'woken after the commit');
    t.is(other, calls, 'every listener');

    const before = calls;
    await t.throwsAsync(
      uow.run(async (tx) => {
        await tx.outbox.add(entry(C, at('10:00:02.000'), 3));
        throw new Error('rolled back');
      }),
    );
    await sleep(50);
    t.is(calls, before, 'no notification for a rolled-back entry');

    unsubscribe();
    await uow.run((tx) => tx.outbox.add(entry(C, at('10:00:03.000'), 4)));
    await sleep(20);
    t.is(calls, before, 'an unsubscribed listener hears nothing');
    t.is(other, before + 1);
  });
}
