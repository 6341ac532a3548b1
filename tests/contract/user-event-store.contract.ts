import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { UserEventStore } from '../../core/ports/user-events.port.ts';

export interface UserEventStoreFixture {
  store: UserEventStore;
  dispose(): Promise<void>;
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const HOUR = 3600_000;

/** Registers the UserEventStore contract for one adapter; `make()` returns a fresh, empty store. */
export function userEventStoreContract(name: string, make: () => Promise<UserEventStoreFixture>): void {
  let fixture: UserEventStoreFixture;
  test.before(async () => {
    fixture = await make();
  });
  test.after.always(async () => {
    await fixture?.dispose();
  });

  test(`${name}: 100 concurrent appends for one user get seqs exactly 1..100`, async (t) => {
    const userId = randomUUID();
    const appended = await Promise.all(
      Array.from({ length: 100 }, (_, i) => fixture.store.append(userId, { type: 'job.progress', jobId: 'j', value: i, max: 100 }, at(i))),
    );
    const expected = Array.from({ length: 100 }, (_, i) => i + 1);
    t.deepEqual(appended.map((e) => e.seq).sort((a, b) => a - b), expected);
    const listed = await fixture.store.listSince(userId, 0, 1000);
    t.deepEqual(listed.map((e) => e.seq), expected);
    // Each stored payload is the one whose append returned that seq.
    const bySeq = new Map(appended.map((e) => [e.seq, e.event.value]));
    t.true(listed.every((e) => e.event.value === bySeq.get(e.seq)));
    t.is(new Set(listed.map((e) => e.event.value)).size, 100);
  });

  test(`${name}: seqs are per user and independent`, async (t) => {
    const alice = randomUUID();
    const bob = randomUUID();
    const order = [alice, bob, alice, alice, bob];
    const got: number[] = [];
    for (const [i, userId] of order.entries()) got.push((await fixture.store.append(userId, { type: 'job.status', text: `n${i}` }, at(i))).seq);
    t.deepEqual(got, [1, 1, 2, 3, 2]);
    t.deepEqual((await fixture.store.listSince(alice, 0, 10)).map((e) => e.event.text), ['n0', 'n2', 'n3']);
    t.deepEqual((await fixture.store.listSince(bob, 0, 10)).map((e) => [e.seq, e.event.text]), [[1, 'n1'], [2, 'n4']]);
    t.deepEqual(await fixture.store.listSince(randomUUID(), 0, 10), []);
  });

  test(`${name}: append returns and listSince gives back the event as stored`, async (t) => {
    const userId = randomUUID();
    const event = { type: 'job.completed', jobId: randomUUID(), outputs: [{ id: 'o1', name: 'ünïcødé ✓', size: 12.5, tags: null }] };
    const stored = await fixture.store.append(userId, event, at(1234));
    t.deepEqual(stored, { userId, seq: 1, event, createdAt: at(1234) });
    t.deepEqual(await fixture.store.listSince(userId, 0, 10), [stored]);
  });

  test(`${name}: listSince returns seq > since in order, at most max`, async (t) => {
    const userId = randomUUID();
    for (let i = 1; i <= 10; i++) await fixture.store.append(userId, { type: 'job.progress', value: i }, at(i));
    t.deepEqual((await fixture.store.listSince(userId, 3, 4)).map((e) => e.seq), [4, 5, 6, 7]);
    t.deepEqual((await fixture.store.listSince(userId, 8, 100)).map((e) => e.event.value), [9, 10]);
    t.deepEqual(await fixture.store.listSince(userId, 10, 100), []);
    t.deepEqual(await fixture.store.listSince(userId, 0, 0), []);
  });

  test.serial(`${name}: purgeBefore removes older events only, and seqs keep growing`, async (t) => {
    const userId = randomUUID();
    const other = randomUUID();
    // Far in the future so that events of the concurrent tests (at T0 + seconds) are purged too and counted.
    const base = 1000 * 24 * HOUR;
    await fixture.store.append(userId, { type: 'a' }, at(base));
    await fixture.store.append(userId, { type: 'b' }, at(base + HOUR));
    await fixture.store.append(other, { type: 'c' }, at(base + 1));
    await fixture.store.append(userId, { type: 'd' }, at(base + 25 * HOUR));
    const before = await fixture.store.listSince(userId, 0, 100);
    t.is(before.length, 3);
    const removed = await fixture.store.purgeBefore(at(base + 2 * HOUR));
    t.true(removed >= 3, `removed ${removed}`);
    t.deepEqual((await fixture.store.listSince(userId, 0, 100)).map((e) => [e.seq, e.event.type]), [[3, 'd']]);
    t.deepEqual(await fixture.store.listSince(other, 0, 100), []);
    t.is(await fixture.store.purgeBefore(at(base + 2 * HOUR)), 0);
    t.is((await fixture.store.append(userId, { type: 'e' }, at(base + 26 * HOUR))).seq, 4);
    t.is((await fixture.store.append(other, { type: 'f' }, at(base + 26 * HOUR))).seq, 2);
  });
}
