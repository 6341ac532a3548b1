import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { OutboxRelayLoop } from '../../bootstrap/outbox-relay-loop.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { OutboxEntry } from '../../core/ports/outbox.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const clock = { now: () => new Date() };
let counter = 0;
const entry = (createdAt = new Date()): OutboxEntry => ({
  id: `00000000-0000-4000-8000-${String((counter += 1)).padStart(12, '0')}`,
  createdAt,
  message: { taskType: 'generation', environment: 'local', body: { n: counter } },
});

const setup = (options: ConstructorParameters<typeof OutboxRelayLoop>[1]) => {
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const outbox = uow.outbox;
  const queue = new MemoryMessageQueue(store);
  const relay = new RelayOutbox({ outbox, queue, ids: { newId: () => randomUUID() }, clock, logger: silent });
  const loop = new OutboxRelayLoop({ relay, outbox, clock, logger: silent }, options);
  /** Adds in a transaction: its relays hear of it after the commit. */
  const add = (e: OutboxEntry) => uow.run((tx) => tx.outbox.add(e));
  return { store, outbox, queue, relay, loop, add };
};

test('a notification relays at once, long before the fallback poll', async (t) => {
  const { add, queue, loop } = setup({ intervalMs: 60_000 });
  await loop.start();
  t.teardown(() => loop.stop());
  const e = entry();
  await add(e); // the commit notifies
  await sleep(50);
  t.deepEqual(
    (await queue.peek(10)).map((m) => m.id),
    [e.id],
  );
});

test('entries nobody notified about (another process added them) go out on the fallback poll', async (t) => {
  const { store, queue, loop } = setup({ intervalMs: 50 });
  await loop.start();
  t.teardown(() => loop.stop());
  const e = entry();
  await new MemoryUnitOfWork(store).run((tx) => tx.outbox.add(e)); // another process: this loop's listener never hears it
  await sleep(150);
  t.deepEqual(
    (await queue.peek(10)).map((m) => m.id),
    [e.id],
  );
});

test('start() relays what a previous run left behind and purges entries published over a day ago', async (t) => {
  const { outbox, queue, loop, add } = setup({ intervalMs: 60_000 });
  const old = entry(new Date(Date.now() - 3 * 86_400_000));
  const recent = entry(new Date(Date.now() - 3 * 3_600_000));
  const left = entry();
  for (const e of [old, recent, left]) await add(e);
  const lease = { token: randomUUID(), until: new Date(Date.now() + 60_000) };
  await outbox.lease(2, lease, new Date());
  await outbox.markPublished(old.id, lease.token, new Date(Date.now() - 2 * 86_400_000));
  await outbox.markPublished(recent.id, lease.token, new Date(Date.now() - 2 * 3_600_000));
  await loop.start();
  t.teardown(() => loop.stop());
  await loop.flush();
  t.deepEqual(
    (await queue.peek(10)).map((m) => m.id),
    [left.id],
  );
  t.is(await outbox.purgePublished(new Date(Date.now() - 86_400_000)), 0, 'the old one is already gone');
  t.is(await outbox.purgePublished(new Date(Date.now() + 1000)), 2, 'the recent one and the just-relayed one were kept');
});

test('runs never overlap in one process, and stop() waits for the run in progress', async (t) => {
  const { add, loop, relay } = setup({ intervalMs: 5 });
  let running = 0;
  let most = 0;
  let runs = 0;
  const execute = relay.execute.bind(relay);
  relay.execute = async () => {
    running += 1;
    runs += 1;
    most = Math.max(most, running);
    await sleep(20);
    const published = await execute();
    running -= 1;
    return published;
  };
  await loop.start();
  for (let i = 0; i < 20; i += 1) {
    void add(entry());
    loop.trigger();
    await sleep(2);
  }
  const flushed = loop.flush();
  await add(entry());
  t.true((await flushed) >= 0);
  await loop.stop();
  t.is(running, 0, 'stop() returned after the last run');
  t.is(most, 1);
  t.true(runs >= 2 && runs < 40, `${runs} runs for 40 requests: requests merge while one waits`);
});
