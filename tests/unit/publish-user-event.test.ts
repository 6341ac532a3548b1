import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUserEventStore } from '../../adapters/memory/memory-user-event-store.ts';
import { USER_EVENTS_CHANNEL, type UserEventEnvelope } from '../../core/ports/user-events.port.ts';
import { PublishUserEvent } from '../../core/use-cases/events/publish-user-event.use-case.ts';
import { PurgeUserEvents } from '../../core/use-cases/events/purge-user-events.use-case.ts';

const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

const setup = (start = '2030-01-01T00:00:00.000Z') => {
  let now = new Date(start);
  const clock = { now: () => new Date(now), set: (iso: string) => (now = new Date(iso)) };
  const store = new MemoryUserEventStore(new MemoryStore());
  const bus = new InProcessEventBus();
  const published: UserEventEnvelope[] = [];
  return { clock, store, bus, published, publish: new PublishUserEvent({ store, bus, clock }) };
};

test('stores the event with the next seq, then publishes the envelope', async (t) => {
  const { publish, bus, store, published } = setup();
  await bus.subscribe(USER_EVENTS_CHANNEL, (payload) => published.push(payload as UserEventEnvelope));
  const first = await publish.execute({ userId: 'u1', event: { type: 'job.started', jobId: 'j1' } });
  const second = await publish.execute({ userId: 'u1', event: { type: 'job.progress', jobId: 'j1', value: 1, max: 4 } });
  const other = await publish.execute({ userId: 'u2', event: { type: 'job.queued', jobId: 'j2' } });
  t.deepEqual([first.seq, second.seq, other.seq], [1, 2, 1]);
  t.deepEqual(first, { userId: 'u1', seq: 1, event: { type: 'job.started', jobId: 'j1' }, createdAt: new Date('2030-01-01T00:00:00.000Z') });
  await settle();
  t.deepEqual(published, [
    { userId: 'u1', seq: 1, event: { type: 'job.started', jobId: 'j1' }, createdAt: '2030-01-01T00:00:00.000Z' },
    { userId: 'u1', seq: 2, event: { type: 'job.progress', jobId: 'j1', value: 1, max: 4 }, createdAt: '2030-01-01T00:00:00.000Z' },
    { userId: 'u2', seq: 1, event: { type: 'job.queued', jobId: 'j2' }, createdAt: '2030-01-01T00:00:00.000Z' },
  ]);
  t.deepEqual((await store.listSince('u1', 0, 10)).map((e) => e.event.type), ['job.started', 'job.progress']);
});

test('an event is stored even when publishing fails, so a sync can still replay it', async (t) => {
  const { store, clock } = setup();
  const failing = new PublishUserEvent({
    store,
    clock,
    bus: { publish: async () => Promise.reject(new Error('bus down')), subscribe: async () => async () => undefined, close: async () => undefined },
  });
  await t.throwsAsync(() => failing.execute({ userId: 'u', event: { type: 'job.started', jobId: 'j' } }), { message: 'bus down' });
  t.deepEqual((await store.listSince('u', 0, 10)).map((e) => e.seq), [1]);
});

test('an event without a type is a programming error', async (t) => {
  const { publish } = setup();
  await t.throwsAsync(() => publish.execute({ userId: 'u', event: { type: '' } }), { message: /type/ });
});

test('purge removes events older than the retention window', async (t) => {
  const { publish, store, clock } = setup('2030-01-01T00:00:00.000Z');
  await publish.execute({ userId: 'u', event: { type: 'old' } });
  clock.set('2030-01-01T20:00:00.000Z');
  await publish.execute({ userId: 'u', event: { type: 'recent' } });
  clock.set('2030-01-02T01:00:00.000Z');
  const purge = new PurgeUserEvents({ store, clock, retentionMs: 24 * 3600_000 });
  t.is(await purge.execute(), 1);
  t.deepEqual((await store.listSince('u', 0, 10)).map((e) => [e.seq, e.event.type]), [[2, 'recent']]);
});
