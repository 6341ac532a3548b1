import test from 'ava';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';

const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

test('delivery is asynchronous and in publish order', async (t) => {
  const bus = new InProcessEventBus();
  const got: unknown[] = [];
  await bus.subscribe('c', (payload) => got.push(payload));
  await bus.publish('c', { n: 1 });
  await bus.publish('c', { n: 2 });
  t.deepEqual(got, [], 'nothing is delivered inside publish()');
  await settle();
  t.deepEqual(got, [{ n: 1 }, { n: 2 }]);
});

test('payloads arrive as JSON would carry them, and only on their channel', async (t) => {
  const bus = new InProcessEventBus();
  const got: unknown[] = [];
  const other: unknown[] = [];
  await bus.subscribe('c', (payload) => got.push(payload));
  await bus.subscribe('d', (payload) => other.push(payload));
  const payload = { at: new Date('2030-01-01T00:00:00Z'), nested: { a: [1, 2] } };
  await bus.publish('c', payload);
  await settle();
  t.deepEqual(got, [{ at: '2030-01-01T00:00:00.000Z', nested: { a: [1, 2] } }]);
  t.deepEqual(other, []);
});

test('a throwing or rejecting handler is reported and does not stop the others', async (t) => {
  const errors: string[] = [];
  const bus = new InProcessEventBus((error, channel) => errors.push(`${channel}: ${(error as Error).message}`));
  const got: string[] = [];
  await bus.subscribe('c', () => {
    throw new Error('sync boom');
  });
  await bus.subscribe('c', (() => Promise.reject(new Error('async boom'))) as () => void);
  await bus.subscribe('c', () => got.push('third'));
  await bus.publish('c', 1);
  await bus.publish('c', 2);
  await settle();
  t.deepEqual(got, ['third', 'third']);
  t.deepEqual(errors.sort(), ['c: async boom', 'c: async boom', 'c: sync boom', 'c: sync boom']);
});

test('unsubscribe stops delivery; close refuses further use', async (t) => {
  const bus = new InProcessEventBus();
  const got: unknown[] = [];
  const unsubscribe = await bus.subscribe('c', (payload) => got.push(payload));
  await bus.publish('c', 1);
  await settle();
  await unsubscribe();
  await bus.publish('c', 2);
  await settle();
  t.deepEqual(got, [1]);
  await bus.close();
  await t.throwsAsync(() => bus.publish('c', 3), { message: /closed/ });
});
