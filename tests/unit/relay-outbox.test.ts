import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryOutbox } from '../../adapters/memory/memory-outbox.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';

const clock = { now: () => new Date('2026-03-01T12:00:00Z') };
const entry = (n: number): OutboxEntry => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  createdAt: new Date(Date.UTC(2026, 2, 1, 11, 0, n)),
  message: { taskType: 'generation', environment: 'local', body: { jobId: `job-${n}` } },
});

/** An outbox whose process "dies" right after publishing: markPublished fails the first `failures` times. */
class CrashingOutbox implements Outbox {
  constructor(
    private readonly inner: Outbox,
    private failures: number,
  ) {}
  add = (e: OutboxEntry) => this.inner.add(e);
  pending = (max: number) => this.inner.pending(max);
  notify = () => this.inner.notify();
  onNotify = (listener: () => void) => this.inner.onNotify(listener);
  purgePublished = (before: Date) => this.inner.purgePublished(before);
  async markPublished(id: string, at: Date): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('process killed between publish and markPublished');
    }
    await this.inner.markPublished(id, at);
  }
}

const setup = (batchSize?: number) => {
  const store = new MemoryStore();
  const outbox = new MemoryOutbox(store);
  const queue = new MemoryMessageQueue(store);
  const relay = new RelayOutbox({ outbox, queue, uow: new MemoryUnitOfWork(), clock, ...(batchSize ? { batchSize } : {}) });
  return { store, outbox, queue, relay };
};

test('publishes pending entries oldest first with messageId = entry id, marks them, returns the count', async (t) => {
  const { outbox, queue, relay } = setup(2);
  for (const n of [3, 1, 5, 2, 4]) await outbox.add(entry(n));
  t.is(await relay.execute(), 5, 'more than one batch');
  t.deepEqual(await outbox.pending(10), []);
  const queued = await queue.peek(10);
  t.deepEqual(
    queued.map((m) => m.id),
    [1, 2, 3, 4, 5].map((n) => entry(n).id),
  );
  t.deepEqual(queued[0], { id: entry(1).id, body: { jobId: 'job-1' }, attributes: { TaskType: 'generation', Environment: 'local' } });
  t.is(await relay.execute(), 0);
  t.is((await queue.peek(10)).length, 5);
});

test('a crash between publish and markPublished loses nothing and, on a deduplicating queue, duplicates nothing', async (t) => {
  const { store, outbox, queue } = setup();
  const crashing = new CrashingOutbox(outbox, 1);
  const relay = new RelayOutbox({ outbox: crashing, queue, uow: new MemoryUnitOfWork(), clock });
  await outbox.add(entry(1));
  await outbox.add(entry(2));
  await t.throwsAsync(relay.execute(), { message: /process killed/ });
  t.deepEqual(
    (await outbox.pending(10)).map((e) => e.id),
    [entry(1).id, entry(2).id],
    'both still pending',
  );
  t.is((await queue.peek(10)).length, 1, 'entry 1 reached the queue before the crash');

  // The restarted process relays again.
  const restarted = new RelayOutbox({ outbox: new MemoryOutbox(store), queue: new MemoryMessageQueue(store), uow: new MemoryUnitOfWork(), clock });
  t.is(await restarted.execute(), 2);
  t.deepEqual(await outbox.pending(10), []);
  t.deepEqual(
    (await queue.peek(10)).map((m) => m.id),
    [entry(1).id, entry(2).id],
    'entry 1 once, not twice',
  );
});

test('two relays racing over one outbox: every entry reaches the queue', async (t) => {
  const { store, outbox, queue, relay } = setup(3);
  const other = new RelayOutbox({ outbox: new MemoryOutbox(store), queue: new MemoryMessageQueue(store), uow: new MemoryUnitOfWork(), clock, batchSize: 3 });
  for (let n = 1; n <= 30; n += 1) await outbox.add(entry(n));
  const counts = await Promise.all([relay.execute(), other.execute(), relay.execute()]);
  t.true(counts.reduce((a, b) => a + b, 0) >= 30, `published ${counts.join('+')}`);
  t.deepEqual(await outbox.pending(100), []);
  const ids = (await queue.peek(100)).map((m) => m.id);
  t.is(new Set(ids).size, 30);
  t.is(ids.length, 30);
});

test('a failing publish leaves the entry pending for the next run', async (t) => {
  const { outbox, queue } = setup();
  let fail = true;
  const flaky = Object.create(queue) as MemoryMessageQueue;
  flaky.publish = async (message) => {
    if (fail) throw new Error('queue unreachable');
    return queue.publish(message);
  };
  const relay = new RelayOutbox({ outbox, queue: flaky, uow: new MemoryUnitOfWork(), clock });
  await outbox.add(entry(1));
  await t.throwsAsync(relay.execute(), { message: 'queue unreachable' });
  t.is((await outbox.pending(10)).length, 1);
  fail = false;
  t.is(await relay.execute(), 1);
  t.deepEqual(
    (await queue.peek(10)).map((m) => m.id),
    [entry(1).id],
  );
});
