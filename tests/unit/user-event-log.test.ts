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
    const first = await log.record(tx, 'u1', { type: 'job.started', jobId: 'j1', attempt: 1 });
    const second = await log.record(tx, 'u1', { type: 'job.progress', jobId: 'j1', value: 1, max: 4 });
    const other = await log.record(tx, 'u2', { type: 'job.queued', jobId: 'j2' });
    await settle();
    t.deepEqual(published, [], 'nothing goes out before the commit');
    return [first.seq, second.seq, other.seq];
  });
  t.deepEqual(seqs, [1, 2, 1]);
  await settle();
  t.deepEqual(published, [
    { userId: 'u1', seq: 1, event: { type: 'job.started', jobId: 'j1', attempt: 1 }, createdAt: '2030-01-01T00:00:00.000Z' },
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
  await uow.run((tx) => log.record(tx, 'u', { type: 'job.started', jobId: 'j', attempt: 1 }));
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
