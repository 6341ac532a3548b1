import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { StoredUserEvent, UserEvent, UserEventStore } from '../../core/ports/user-events.port.ts';
import { sharedBackend, type MakeBackend } from './fixtures.ts';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const HOUR = 3600_000;

const progress = (value: number): UserEvent => ({ type: 'job.progress', jobId: 'j', value, max: 100 });
const status = (text: string): UserEvent => ({ type: 'job.status', jobId: 'j', text });
/** The number a progress event carries, or the text of a status event. */
const valueOf = (stored: StoredUserEvent): number | undefined => (stored.event.type === 'job.progress' ? stored.event.value : undefined);
const textOf = (stored: StoredUserEvent): string | undefined => (stored.event.type === 'job.status' ? stored.event.text : undefined);

/** Registers the UserEventStore contract for one backend; `make()` returns a fresh, empty backend. */
export function userEventStoreContract(name: string, make: MakeBackend): void {
  const backend = sharedBackend(make);
  let fixture: { store: UserEventStore; uow: UnitOfWork };
  test.before(async () => {
    const { repos, uow } = await backend();
    fixture = { store: repos.events, uow };
  });

  test(`${name}: appendAll gives consecutive seqs in order, interleaving safely with single appends`, async (t) => {
    const userId = randomUUID();
    const first = await fixture.store.append(userId, status('one'), at(0));
    const batches = await Promise.all([
      fixture.store.appendAll(userId, [progress(1), progress(2), progress(3)], at(1)),
      fixture.store.appendAll(userId, [status('a'), status('b')], at(1)),
      fixture.store.append(userId, status('single'), at(1)),
    ]);
    t.is(first.seq, 1);
    for (const batch of batches.slice(0, 2) as StoredUserEvent[][]) {
      t.deepEqual(batch.map((e) => e.seq - batch[0]!.seq), batch.map((_, i) => i), 'a batch takes consecutive seqs');
    }
    const all = await fixture.store.listSince(userId, 0, 100);
    t.deepEqual(all.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7], 'no seq shared or skipped');
    t.deepEqual(batches[0]!.map(valueOf), [1, 2, 3], 'in the given order');
    t.deepEqual(await fixture.store.appendAll(userId, [], at(2)), []);
  });

  test(`${name}: 100 concurrent appends for one user get seqs exactly 1..100`, async (t) => {
    const userId = randomUUID();
    const appended = await Promise.all(
      Array.from({ length: 100 }, (_, i) => fixture.store.append(userId, progress(i), at(i))),
    );
    const expected = Array.from({ length: 100 }, (_, i) => i + 1);
    t.deepEqual(appended.map((e) => e.seq).sort((a, b) => a - b), expected);
    const listed = await fixture.store.listSince(userId, 0, 1000);
    t.deepEqual(listed.map((e) => e.seq), expected);
    // Each stored payload is the one whose append returned that seq.
    const bySeq = new Map(appended.map((e) => [e.seq, valueOf(e)]));
    t.true(listed.every((e) => valueOf(e) === bySeq.get(e.seq)));
    t.is(new Set(listed.map(valueOf)).size, 100);
  });

  test(`${name}: seqs are per user and independent`, async (t) => {
    const alice = randomUUID();
    const bob = randomUUID();
    const order = [alice, bob, alice, alice, bob];
    const got: number[] = [];
    for (const [i, userId] of order.entries()) got.push((await fixture.store.append(userId, status(`n${i}`), at(i))).seq);
    t.deepEqual(got, [1, 1, 2, 3, 2]);
    t.deepEqual((await fixture.store.listSince(alice, 0, 10)).map(textOf), ['n0', 'n2', 'n3']);
    t.deepEqual((await fixture.store.listSince(bob, 0, 10)).map((e) => [e.seq, textOf(e)]), [[1, 'n1'], [2, 'n4']]);
    t.deepEqual(await fixture.store.listSince(randomUUID(), 0, 10), []);
  });

  test(`${name}: append returns and listSince gives back the event as stored`, async (t) => {
    const userId = randomUUID();
    const event: UserEvent = { type: 'job.failed', jobId: randomUUID(), error: { code: 'ENGINE.EXECUTION', message: 'ünïcødé ✓ "quoted" 🖼', nodeId: '7' }, refunded: 12 };
    const stored = await fixture.store.append(userId, event, at(1234));
    t.deepEqual(stored, { userId, seq: 1, event, createdAt: at(1234) });
    t.deepEqual(await fixture.store.listSince(userId, 0, 10), [stored]);
  });

  test(`${name}: listSince returns seq > since in order, at most max`, async (t) => {
    const userId = randomUUID();
    for (let i = 1; i <= 10; i++) await fixture.store.append(userId, progress(i), at(i));
    t.deepEqual((await fixture.store.listSince(userId, 3, 4)).map((e) => e.seq), [4, 5, 6, 7]);
    t.deepEqual((await fixture.store.listSince(userId, 8, 100)).map(valueOf), [9, 10]);
    t.deepEqual(await fixture.store.listSince(userId, 10, 100), []);
    t.deepEqual(await fixture.store.listSince(userId, 0, 0), []);
    // Pins: a max below zero is "none" too (SQLite's LIMIT -1 would mean "all", MariaDB's a syntax error).
    t.deepEqual(await fixture.store.listSince(userId, 0, -1), []);
  });

  test.serial(`${name}: purgeBefore removes older events only, and seqs keep growing`, async (t) => {
    const userId = randomUUID();
    const other = randomUUID();
    // Far in the future so that events of the concurrent tests (at T0 + seconds) are purged too and counted.
    const base = 1000 * 24 * HOUR;
    await fixture.store.append(userId, status('a'), at(base));
    await fixture.store.append(userId, status('b'), at(base + HOUR));
    await fixture.store.append(other, status('c'), at(base + 1));
    await fixture.store.append(userId, status('d'), at(base + 25 * HOUR));
    // Exactly at the cut-off: not older than it, so kept.
    await fixture.store.append(other, status('edge'), at(base + 2 * HOUR));
    const before = await fixture.store.listSince(userId, 0, 100);
    t.is(before.length, 3);
    const removed = await fixture.store.purgeBefore(at(base + 2 * HOUR));
    t.true(removed >= 3, `removed ${removed}`);
    t.deepEqual((await fixture.store.listSince(userId, 0, 100)).map((e) => [e.seq, textOf(e)]), [[3, 'd']]);
    // Pins the cut-off: strictly older events go, the one created at it stays.
    t.deepEqual((await fixture.store.listSince(other, 0, 100)).map((e) => [e.seq, textOf(e)]), [[2, 'edge']]);
    t.is(await fixture.store.purgeBefore(at(base + 2 * HOUR)), 0);
    t.is((await fixture.store.append(userId, status('e'), at(base + 26 * HOUR))).seq, 4);
    t.is((await fixture.store.append(other, status('f'), at(base + 26 * HOUR))).seq, 3);
  });

  test(`${name}: an event appended in a unit of work that rolls back is gone, and its seq is handed out again`, async (t) => {
    const userId = randomUUID();
    await fixture.store.append(userId, status('kept'), at(1));
    await t.throwsAsync(
      fixture.uow.run(async (tx) => {
        t.is((await tx.events.append(userId, status('lost'), at(2))).seq, 2);
        throw new Error('rolled back');
      }),
    );
    t.deepEqual((await fixture.store.listSince(userId, 0, 10)).map((e) => [e.seq, textOf(e)]), [[1, 'kept']]);
    t.is((await fixture.store.append(userId, status('next'), at(3))).seq, 2, 'no gap: a reader waiting for seq 2 gets it');
  });
}
