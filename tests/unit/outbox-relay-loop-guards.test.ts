/**
 * Guards of the outbox relay loop that its main tests do not reach: a stopped loop runs nothing, a failed run (of
 * the relay or of the purge) is logged and does not stop later runs, and the purge of published entries runs at
 * most once per interval.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { OutboxRelayLoop } from '../../bootstrap/outbox-relay-loop.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { Outbox, OutboxEntry } from '../../core/ports/outbox.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let counter = 0;
const entry = (): OutboxEntry => ({
  id: `00000000-0000-4000-9000-${String((counter += 1)).padStart(12, '0')}`,
  createdAt: new Date(),
  message: { taskType: 'generation', environment: 'local', body: { n: counter } },
});

function setup(options: ConstructorParameters<typeof OutboxRelayLoop>[1]) {
  const errors: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message: string) => void errors.push(message), child: () => logger };
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const outbox = uow.outbox;
  const queue = new MemoryMessageQueue(store);
  const relay = new RelayOutbox({ outbox, queue, ids: { newId: () => randomUUID() }, clock, logger });
  // The loop's view of the outbox, whose purge a test can make fail.
  const purge = { fails: false };
  const loopOutbox: Outbox = Object.create(outbox, {
    purgePublished: { value: (before: Date) => (purge.fails ? Promise.reject(new Error('disk full')) : outbox.purgePublished(before)) },
  });
  const loop = new OutboxRelayLoop({ relay, outbox: loopOutbox, clock, logger }, options);
  /** Added by another process: no notification reaches this loop. */
  const addElsewhere = (e: OutboxEntry) => new MemoryUnitOfWork(store).run((tx) => tx.outbox.add(e));
  const waiting = async () => (await queue.peek(10)).map((m) => m.id);
  return { errors, outbox, purge, queue, relay, loop, addElsewhere, waiting, advance: (ms: number) => (now += ms) };
}

// Pins: after shutdown (stop()), nothing asks the relay to publish any more: a late trigger would publish through
// a queue that is being closed.
test('a stopped loop runs nothing when triggered', async (t) => {
  const { loop, addElsewhere, waiting, relay } = setup({ intervalMs: 60_000 });
  await loop.start();
  await loop.stop();
  let runs = 0;
  relay.execute = async () => ((runs += 1), 0);
  await addElsewhere(entry());
  loop.trigger();
  await sleep(30);
  t.is(runs, 0);
  t.deepEqual(await waiting(), []);
});

// Pins: a relay run that fails (the broker away) is logged and the loop keeps going; a flush that fails does not
// leave every later run skipped.
test('a failed relay run is logged, and later runs still relay', async (t) => {
  const { loop, addElsewhere, waiting, relay, errors } = setup({ intervalMs: 60_000 });
  const execute = relay.execute.bind(relay);
  let failures = 2;
  relay.execute = async () => {
    if (failures > 0) {
      failures -= 1;
      throw new Error('broker away');
    }
    return execute();
  };
  await loop.start(); // its first run fails
  t.teardown(() => loop.stop());
  await t.throwsAsync(loop.flush(), { message: 'broker away' });
  t.deepEqual(errors, ['outbox relay failed']);
  const e = entry();
  await addElsewhere(e);
  loop.trigger();
  t.is(await loop.flush(), 0, 'the triggered run relayed it before the flush');
  t.deepEqual(await waiting(), [e.id]);
});

// Pins: the purge of published entries runs once per purge interval (a DELETE over the outbox), not on every run;
// a failed purge is logged and retried at the next interval.
test('the purge of published entries runs at most once per interval; a failed one is logged', async (t) => {
  const { loop, addElsewhere, outbox, purge, advance, errors } = setup({ intervalMs: 60_000, retainPublishedMs: 1000, purgeEveryMs: 60_000 });
  await loop.start(); // the first run purges (nothing yet)
  t.teardown(() => loop.stop());
  await addElsewhere(entry());
  t.is(await loop.flush(), 1);
  const published = async () => {
    // How many published entries are left: purging everything up to the far future counts them (and then they are
    // gone, so this is asked once per test step on a loop that is not running).
    return outbox.purgePublished(new Date(Date.parse('2100-01-01T00:00:00Z')));
  };

  advance(10_000); // past the retention, within the purge interval
  loop.trigger();
  await loop.flush();
  t.is(await published(), 1, 'not purged by a run within the interval');

  await addElsewhere(entry());
  t.is(await loop.flush(), 1);
  advance(60_000);
  purge.fails = true;
  loop.trigger();
  await loop.flush();
  t.deepEqual(errors, ['outbox purge failed']);
  t.is(await published(), 1, 'the failed purge deleted nothing');
});
