import test from 'ava';
import { MemoryMessageQueue } from '../../adapters/memory/memory-message-queue.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { PublishTestMessage } from '../../core/use-cases/diagnostics/publish-test-message.use-case.ts';

const setup = () => {
  const queue = new MemoryMessageQueue(new MemoryStore());
  return { queue, publish: new PublishTestMessage({ queue, environment: 'local' }) };
};

test('by default a diagnostic message in this environment with {"test":true}; the attributes given are honoured', async (t) => {
  const { queue, publish } = setup();
  const plain = await publish.execute({ body: undefined, attributes: undefined });
  const custom = await publish.execute({ body: { hello: 1 }, attributes: { TaskType: 'ping', Environment: 'e'.repeat(64) } });
  if (!plain.ok || !custom.ok) return t.fail('refused');
  const peeked = await queue.peek(10);
  t.like(peeked.find((m) => m.id === plain.value.messageId), { body: { test: true }, attributes: { TaskType: 'diagnostic', Environment: 'local' } });
  t.like(peeked.find((m) => m.id === custom.value.messageId), { body: { hello: 1 }, attributes: { TaskType: 'ping', Environment: 'e'.repeat(64) } });
});

test('never a task type a worker handles, an unknown attribute, or a value that is not 1 to 64 characters; nothing is queued', async (t) => {
  const { queue, publish } = setup();
  const fields = async (attributes: unknown) => {
    const result = await publish.execute({ body: { jobId: 'x' }, attributes });
    return result.ok ? null : result.details?.map((d) => `${d.field}: ${d.message}`);
  };
  t.deepEqual(await fields({ TaskType: 'generation' }), ['attributes.TaskType: must not be a task type workers handle (generation, publish)']);
  t.deepEqual(await fields({ TaskType: 'publish' }), ['attributes.TaskType: must not be a task type workers handle (generation, publish)']);
  t.deepEqual(await fields({ Colour: 'red' }), ['attributes.Colour: is not an attribute; use TaskType or Environment']);
  t.deepEqual(await fields({ Environment: '' }), ['attributes.Environment: must be a string of 1 to 64 characters']);
  t.deepEqual(await fields({ Environment: 'e'.repeat(65) }), ['attributes.Environment: must be a string of 1 to 64 characters']);
  t.deepEqual(await fields({ TaskType: 7 }), ['attributes.TaskType: must be a string of 1 to 64 characters']);
  t.deepEqual(await fields(['TaskType']), ['attributes: must be an object of strings']);
  t.deepEqual(await queue.peek(10), []);
});
