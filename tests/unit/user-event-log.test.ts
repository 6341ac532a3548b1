import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import { USER_EVENTS_CHANNEL, type EventBus, type UserEventEnvelope } from '../../core/ports/user-events.port.ts';
import { PurgeUserEvents } from '../../core/use-cases/events/purge-user-events.use-case.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import { quietLogger } from '../support/generation-harness.ts';

const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

const setup = (start = '2030-01-01T00:00:00.000Z', bus: EventBus = new InProcessEventBus()) => {
  let now = new Date(start);
  const clock = { now: () => new Date(now), set: (iso: string) => (now = new Date(iso)) };
  const uow = new MemoryUnitOfWork(new MemoryStore());
  const store = uow.autocommit.events;
  const log = new UserEventLog({ bus, clock, logger: quietLogger });
  return { clock, uow, store, bus, log };
};

test('stores the event with the next seq in the transaction, and fans the envelope out after the commit', async (t) => {
  const { log, bus, store, uow } = setup();
  const published: UserEventEnvelope[] = [];
  await bus.subscribe(USER_EVENTS_CHANNEL, (payload) => published.push(payload as UserEventEnvelope));
  const seqs = await uow.run(async (tx) => {
    const first = await log.record(tx, 'u1', { type: 'job.started', jobId: 'j1', attempt: 1, etaSeconds: null });
    const second = await log.record(tx, 'u1', { type: 'job.progress', jobId: 'j1', value: 1, max: 4 });
    const other = await log.record(tx, 'u2', { type: 'job.queued', jobId: 'j2' });
    await settle();
    t.deepEqual(published, [], 'nothing goes out before the commit');
    return [first.seq, second.seq, other.seq];
  });
  t.deepEqual(seqs, [1, 2, 1]);
  await settle();
  t.deepEqual(published, [
    { userId: 'u1', seq: 1, event: { type: 'job.started', jobId: 'j1', attempt: 1, etaSeconds: null }, createdAt: '2030-01-01T00:00:00.000Z' },
    { userId: 'u1', seq: 2, event: { type: 'job.progress', jobId: 'j1', value: 1, max: 4 }, createdAt: '2030-01-01T00:00:00.000Z' },
    { userId: 'u2', seq: 1, event: { type: 'job.queued', jobId: 'j2' }, createdAt: '2030-01-01T00:00:00.000Z' },
  ]);
  t.deepEqual((await store.listSince('u1', 0, 10)).map((e) => e.event.type), ['job.started', 'job.progress']);
});

test('a rolled-back transaction leaves neither a stored event nor a fanned-out one (no phantom seq)', async (t) => {
  const { log, bus, store, uow } = setup();
  const published: unknown[] = [];
  await bus.subscribe(USER_EVENTS_CHANNEL, (payload) => published.push(payload));
  await t.throwsAsync(
    uow.run(async (tx) => {
      await log.record(tx, 'u', { type: 'job.queued', jobId: 'j' });
      throw new Error('the job was not created after all');
    }),
  );
  await settle();
  t.deepEqual(published, []);
  t.deepEqual(await store.listSince('u', 0, 10), []);
  const next = await uow.run((tx) => log.record(tx, 'u', { type: 'job.queued', jobId: 'k' }));
  t.is(next.seq, 1, 'the rolled-back seq was never handed out');
});

test('an event is stored even when fanning out fails, so a sync can still replay it', async (t) => {
  const down: EventBus = { publish: async () => Promise.reject(new Error('bus down')), subscribe: async () => async () => undefined, close: async () => undefined };
  const { log, store, uow } = setup(undefined, down);
  await uow.run((tx) => log.record(tx, 'u', { type: 'job.started', jobId: 'j', attempt: 1, etaSeconds: null }));
  t.deepEqual((await store.listSince('u', 0, 10)).map((e) => e.seq), [1]);
});

test('purge removes events older than the retention window', async (t) => {
  const { log, store, clock, uow } = setup('2030-01-01T00:00:00.000Z');
  await uow.run((tx) => log.record(tx, 'u', { type: 'job.queued', jobId: 'old' }));
  clock.set('2030-01-01T20:00:00.000Z');
  await uow.run((tx) => log.record(tx, 'u', { type: 'job.queued', jobId: 'recent' }));
  clock.set('2030-01-02T01:00:00.000Z');
  const purge = new PurgeUserEvents({ store, clock, retentionMs: 24 * 3600_000 });
  t.is(await purge.execute(), 1);
  t.deepEqual((await store.listSince('u', 0, 10)).map((e) => [e.seq, e.event.type === 'job.queued' && e.event.jobId]), [[2, 'recent']]);
});

test('one failed publish does not stop the fan-out of the events after it', async (t) => {
  const published: number[] = [];
  let calls = 0;
  const flaky: EventBus = {
    publish: async (_channel, payload) => {
      calls += 1;
      if (calls === 1) throw new Error('bus hiccup');
      published.push((payload as UserEventEnvelope).seq);
    },
    subscribe: async () => async () => undefined,
    close: async () => undefined,
  };
  const { log, uow } = setup(undefined, flaky);
  await uow.run((tx) => log.record(tx, 'u', { type: 'job.started', jobId: 'j', attempt: 1, etaSeconds: null }));
  await uow.run((tx) => log.record(tx, 'u', { type: 'job.progress', jobId: 'j', value: 1, max: 2 }));
  await settle();
  // Pins: seq 1's failure is logged and left to sync; seq 2 still goes out.
  t.deepEqual(published, [2]);
});

test('fan-out holds at most 10 000 events while the bus hangs, drops the rest to sync, and counts them off once sent', async (t) => {
  const published: number[] = [];
  let release!: () => void;
  const hanging = new Promise<void>((resolve) => (release = resolve));
  const slow: EventBus = {
    publish: async (_channel, payload) => {
      await hanging;
      published.push((payload as UserEventEnvelope).seq);
    },
    subscribe: async () => async () => undefined,
    close: async () => undefined,
  };
  const warnings: string[] = [];
  const { uow, clock } = setup(undefined, slow);
  const log = new UserEventLog({ bus: slow, clock, logger: { ...quietLogger, warn: (message: string) => void warnings.push(message) } });
  const progress = (value: number) => ({ type: 'job.progress' as const, jobId: 'j', value, max: 1 });
  await uow.run((tx) => log.recordAll(tx, 'u', Array.from({ length: 10_000 }, (_, i) => progress(i))));
  await uow.run((tx) => log.recordAll(tx, 'u', [progress(1), progress(2)]));
  t.is(warnings.length, 1, 'the two events beyond the bound are left to sync');
  release();
  const drained = async (count: number) => {
    for (let i = 0; i < 1000 && published.length < count; i++) await settle();
    await settle();
  };
  await drained(10_000);
  // Pins the bound: exactly the first 10 000 went out (seqs 1..10000), not 10 001 and 10 002.
  t.is(published.length, 10_000);
  t.is(published.at(-1), 10_000);
  await uow.run((tx) => log.recordAll(tx, 'u', [progress(3), progress(4), progress(5)]));
  await drained(10_003);
  // Pins the count-off: with the queue drained, new events are fanned out again.
  t.deepEqual(published.slice(10_000), [10_003, 10_004, 10_005]);
  t.is(warnings.length, 1);
});
