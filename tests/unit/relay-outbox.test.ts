import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import type { DeliveredMessage } from '../../core/ports/queue.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import { quietLogger } from '../support/generation-harness.ts';

const entry = (n: number): OutboxEntry => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  createdAt: new Date(Date.UTC(2026, 2, 1, 11, 0, n)),
  message: { taskType: 'generation', environment: 'local', body: { jobId: `job-${n}` } },
});

const setup = (batchSize?: number) => {
  let now = new Date('2026-03-01T12:00:00Z');
  const clock = { now: () => new Date(now), advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)) };
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const outbox = uow.outbox;
  const queue = new MemoryMessageQueue(store, { clock });
  const relayOver = (over: Outbox, q = queue) =>
    new RelayOutbox({ outbox: over, queue: q, ids: { newId: () => randomUUID() }, clock, logger: quietLogger, ...(batchSize ? { batchSize } : {}) });
  const add = (...entries: OutboxEntry[]) => uow.run(async (tx) => {
    for (const e of entries) await tx.outbox.add(e);
  });
  const unpublished = async () => (await outbox.lease(1000, { token: randomUUID(), until: clock.now() }, clock.now())).map((e) => e.id);
  return { store, uow, clock, outbox, queue, relay: relayOver(outbox), relayOver, add, unpublished };
};

test('publishes committed entries oldest first with messageId = entry id, marks them, returns the count', async (t) => {
  const { queue, relay, add, unpublished } = setup(2);
  await add(...[3, 1, 5, 2, 4].map(entry));
  t.is(await relay.execute(), 5, 'more than one batch');
  t.deepEqual(await unpublished(), []);
  const queued = await queue.peek(10);
  t.deepEqual(queued.map((m) => m.id), [1, 2, 3, 4, 5].map((n) => entry(n).id));
  t.deepEqual(queued[0], { id: entry(1).id, body: { jobId: 'job-1' }, attributes: { TaskType: 'generation', Environment: 'local' } });
  t.is(await relay.execute(), 0);
  t.is((await queue.peek(10)).length, 5);
});

test('an entry added in a transaction that rolls back is never published', async (t) => {
  const { uow, relay, queue } = setup();
  await t.throwsAsync(
    uow.run(async (tx) => {
      await tx.outbox.add(entry(1));
      throw new Error('the job was refused');
    }),
  );
  t.is(await relay.execute(), 0);
  t.deepEqual(await queue.peek(10), []);
});

test('a crash between publish and markPublished loses nothing and duplicates nothing on a queue that remembers ids', async (t) => {
  const { outbox, queue, clock, add, relayOver, unpublished } = setup();
  let failures = 1;
  const crashing: Outbox = {
    add: (e) => outbox.add(e),
    lease: (max, lease, now) => outbox.lease(max, lease, now),
    onNotify: (listener) => outbox.onNotify(listener),
    purgePublished: (before) => outbox.purgePublished(before),
    async markPublished(id, token, at) {
      if (failures-- > 0) throw new Error('process killed between publish and markPublished');
      return outbox.markPublished(id, token, at);
    },
  };
  await add(entry(1), entry(2));
  await t.throwsAsync(relayOver(crashing).execute(), { message: /process killed/ });
  t.is((await queue.peek(10)).length, 1, 'entry 1 reached the queue before the crash');
  t.is(await relayOver(outbox).execute(), 0, 'its lease keeps other relays off it for now');

  clock.advance(31);
  t.is(await relayOver(outbox).execute(), 2, 'the restarted relay takes both once the lease ended');
  t.deepEqual(await unpublished(), []);
  t.deepEqual((await queue.peek(10)).map((m) => m.id), [entry(1).id, entry(2).id], 'entry 1 once, not twice');
});

test('two relays racing over one outbox never publish an entry twice', async (t) => {
  const { store, add, relay, relayOver, outbox, unpublished } = setup(3);
  const published: string[] = [];
  const counting = new MemoryMessageQueue(store);
  const spy = Object.create(counting) as MemoryMessageQueue;
  spy.publish = async (message) => {
    published.push(message.messageId!);
    return counting.publish(message);
  };
  await add(...Array.from({ length: 30 }, (_, i) => entry(i + 1)));
  const counts = await Promise.all([relayOver(outbox, spy).execute(), relayOver(outbox, spy).execute(), relay.execute()]);
  t.is(counts.reduce((a, b) => a + b, 0), 30, `published ${counts.join('+')}`);
  t.deepEqual(await unpublished(), []);
  t.true(published.length <= 30 && new Set(published).size === published.length, 'each relay published only entries it leased');
});

test('an entry already consumed is not delivered again when a relay republishes it after a crash', async (t) => {
  const { store, clock, outbox, add, relayOver } = setup();
  const queue = new MemoryMessageQueue(store, { clock });
  const deliveries: DeliveredMessage[] = [];
  const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 3, visibilitySeconds: 30 }, async (message) => {
    deliveries.push(message);
    return { action: 'ack' };
  });
  t.teardown(() => consumer.stop());
  let crash = true;
  const crashing: Outbox = { ...outbox, lease: outbox.lease.bind(outbox), add: outbox.add.bind(outbox), onNotify: outbox.onNotify.bind(outbox), purgePublished: outbox.purgePublished.bind(outbox), markPublished: async (id, token, at) => {
    if (crash) throw new Error('killed after publishing');
    return outbox.markPublished(id, token, at);
  } };
  await add(entry(1));
  await t.throwsAsync(relayOver(crashing, queue).execute());
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(deliveries.length, 1, 'consumed and acknowledged');
  crash = false;
  clock.advance(31);
  t.is(await relayOver(outbox, queue).execute(), 1, 'the entry goes out again after the lease');
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(deliveries.length, 1, 'but the queue remembers its id: not delivered twice');
});

test('a failing publish leaves the entry for a later run', async (t) => {
  const { queue, clock, add, relayOver, outbox } = setup();
  let fail = true;
  const flaky = Object.create(queue) as MemoryMessageQueue;
  flaky.publish = async (message) => {
    if (fail) throw new Error('queue unreachable');
    return queue.publish(message);
  };
  await add(entry(1));
  await t.throwsAsync(relayOver(outbox, flaky).execute(), { message: 'queue unreachable' });
  fail = false;
  clock.advance(31);
  t.is(await relayOver(outbox, flaky).execute(), 1);
  t.deepEqual((await queue.peek(10)).map((m) => m.id), [entry(1).id]);
});

// Pins: a relay whose lease ran out while it published (another relay took the entry over, published and marked it)
// does not count the entry as its own and says so; the relay that marked it counts it. Counts feed the relay's metrics.
test('a relay that lost its lease while publishing does not count the entry, and warns', async (t) => {
  const { store, outbox, clock, add, relayOver, unpublished } = setup();
  await add(entry(1));
  const warnings: string[] = [];
  const base = new MemoryMessageQueue(store);
  let takenOver: number | null = null;
  const slow = Object.create(base) as MemoryMessageQueue;
  slow.publish = async (message) => {
    const sent = await base.publish(message);
    clock.advance(31); // the lease (30 s) runs out while this relay is stuck here
    takenOver = await relayOver(outbox).execute();
    return sent;
  };
  const stale = new RelayOutbox({ outbox, queue: slow, ids: { newId: () => randomUUID() }, clock, logger: { ...quietLogger, warn: (message: string) => void warnings.push(message) } });
  t.is(await stale.execute(), 0);
  t.is(takenOver as number | null, 1, 'the relay that took it over counts it');
  t.deepEqual(warnings, ['outbox entry published after its lease ran out (another relay may publish it too)']);
  t.deepEqual(await unpublished(), []);
});
