import test from 'ava';
import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';

export interface OutboxBackend {
  outbox: Outbox;
  uow: UnitOfWork;
  /** False for memory: its unit of work cannot roll back, and notifications go out at once. */
  transactional: boolean;
  dispose(): Promise<void>;
}

const at = (iso: string) => new Date(`2026-03-01T${iso}Z`);
const entry = (id: string, createdAt: Date, n: number): OutboxEntry => ({
  id,
  createdAt,
  message: { taskType: 'generation', environment: 'local', body: { jobId: `job-${n}`, workflow: { '1': { class_type: 'X', inputs: {} } } } },
});
const ids = (entries: OutboxEntry[]) => entries.map((e) => e.id);

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';

/** Registers the Outbox contract for one adapter; `open` gives a fresh, empty outbox. */
export function outboxContract(name: string, open: () => Promise<OutboxBackend>): void {
  const fresh = async (t: { teardown(fn: () => Promise<void>): void }) => {
    const backend = await open();
    t.teardown(() => backend.dispose());
    return backend;
  };

  test(`${name}: pending lists unpublished entries oldest first, at most max, messages intact`, async (t) => {
    const { outbox } = await fresh(t);
    await outbox.add(entry(B, at('10:00:02.000'), 2));
    await outbox.add(entry(C, at('10:00:03.000'), 3));
    await outbox.add(entry(A, at('10:00:01.000'), 1));
    t.deepEqual(ids(await outbox.pending(10)), [A, B, C]);
    t.deepEqual(ids(await outbox.pending(2)), [A, B]);
    t.deepEqual((await outbox.pending(1))[0], entry(A, at('10:00:01.000'), 1));
  });

  test(`${name}: markPublished takes an entry out of pending; the first publication time stays`, async (t) => {
    const { outbox } = await fresh(t);
    await outbox.add(entry(A, at('10:00:01.000'), 1));
    await outbox.add(entry(B, at('10:00:02.000'), 2));
    await outbox.markPublished(A, at('10:05:00.000'));
    t.deepEqual(ids(await outbox.pending(10)), [B]);
    await outbox.markPublished(A, at('12:00:00.000')); // a second relay finishing late
    t.is(await outbox.purgePublished(at('11:00:00.000')), 1, 'still published at 10:05');
  });

  test(`${name}: purgePublished deletes only entries published before the cut-off`, async (t) => {
    const { outbox } = await fresh(t);
    await outbox.add(entry(A, at('09:00:00.000'), 1));
    await outbox.add(entry(B, at('09:00:01.000'), 2));
    await outbox.add(entry(C, at('09:00:02.000'), 3));
    await outbox.markPublished(A, at('10:00:00.000'));
    await outbox.markPublished(B, at('12:00:00.000'));
    t.is(await outbox.purgePublished(at('11:00:00.000')), 1);
    t.is(await outbox.purgePublished(at('11:00:00.000')), 0);
    t.deepEqual(ids(await outbox.pending(10)), [C], 'never a pending entry, however old');
    t.is(await outbox.purgePublished(at('12:00:00.001')), 1);
  });

  test(`${name}: notify() and add() reach the listeners until they unsubscribe`, async (t) => {
    const { outbox } = await fresh(t);
    let calls = 0;
    const unsubscribe = outbox.onNotify(() => (calls += 1));
    outbox.onNotify(() => {
      throw new Error('a broken listener does not stop the others');
    });
    outbox.notify();
    t.is(calls, 1);
    await outbox.add(entry(A, at('10:00:00.000'), 1));
    t.is(calls, 2);
    unsubscribe();
    outbox.notify();
    t.is(calls, 2);
  });

  test(`${name}: inside a unit of work, add joins it and notifications wait for the commit`, async (t) => {
    const { outbox, uow, transactional } = await fresh(t);
    let calls = 0;
    outbox.onNotify(() => (calls += 1));
    let insideCalls = -1;
    await uow.run(async () => {
      await outbox.add(entry(A, at('10:00:00.000'), 1));
      outbox.notify();
      insideCalls = calls;
    });
    if (transactional) {
      t.is(insideCalls, 0, 'nothing before the commit: the relay would not see the entry yet');
      t.true(calls >= 1);
    } else {
      t.is(calls, 2);
    }
    t.deepEqual(ids(await outbox.pending(10)), [A]);
    if (!transactional) return;
    calls = 0;
    await t.throwsAsync(
      uow.run(async () => {
        await outbox.add(entry(B, at('10:00:01.000'), 2));
        outbox.notify();
        throw new Error('the job insert failed');
      }),
    );
    t.deepEqual(ids(await outbox.pending(10)), [A], 'rolled back with the unit of work');
    t.is(calls, 0, 'no notification for a rolled-back entry');
  });
}
