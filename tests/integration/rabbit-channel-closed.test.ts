import test from 'ava';
import type { Channel, Message } from 'amqplib';
import { AmqpLink } from '../../adapters/rabbitmq/amqp-link.ts';
import { RabbitMessageQueue } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import { FAST, waitFor } from '../contract/message-queue.contract.ts';
import { quietLogger } from '../support/generation-harness.ts';

// The broker may close a consumer's channel while the connection stays up: a channel error, such as its
// consumer_timeout on a job that outlasts it (30 min by default). The consumer must take messages again on a new
// channel, the job in hand coming back as attempt 2. The test provokes the channel error directly (an ack of a delivery
// tag the channel never gave, which the broker answers by closing the channel with 406), rather than lowering the
// broker-wide consumer_timeout, which would reach every other test's channels.

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

test('a consumer whose channel the broker closed (a channel error) consumes again on a new one', async (t) => {
  const prefix = `chclose-${Date.now().toString(36)}`;
  const link = new AmqpLink({ url: AMQP_URL, logger: quietLogger, initialMaxRetries: 0 });
  await link.open();
  const queue = new RabbitMessageQueue(link, { prefix, backoff: FAST.backoff });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  t.teardown(async () => {
    release();
    await queue.close();
    await queue.destroyTopology().catch(() => undefined);
    await link.close();
  });
  await queue.publish({ taskType: 'generation', environment: 'local', body: 'long' });
  const seen: string[] = [];
  const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 3, maxAttempts: 5, visibilitySeconds: 300 }, async (m) => {
    seen.push(`${String(m.body)}#${m.attempt}`);
    if (m.attempt === 1 && m.body === 'long') await held;
    return { action: 'ack' };
  });
  await waitFor(() => seen.includes('long#1'), 'the job taken', 10_000);
  const channel = (consumer as unknown as { channel: Channel | null }).channel;
  if (!channel) return t.fail('the consumer has no channel');
  const closed = new Promise<void>((resolve) => channel.once('close', () => resolve()));
  channel.ack({ fields: { deliveryTag: 999_999 } } as Message);
  await closed;
  await waitFor(() => seen.includes('long#2'), 'the job again on a new channel', 10_000);
  await queue.publish({ taskType: 'generation', environment: 'local', body: 'next' });
  await waitFor(() => seen.includes('next#1'), 'a new message taken', 5000);
  t.deepEqual(seen, ['long#1', 'long#2', 'next#1']);
});

// Pins: a reopen comes once per channel the broker closed (scheduled by its close). One that comes while the consumer
// already has a channel again (onConnect was quicker) opens none: a second channel would consume beside the first, each
// with the consumer's whole prefetch, so the consumer would hold twice the jobs it may run.
test('a reopen while the consumer has a channel opens no second one', async (t) => {
  const prefix = `chreopen-${Date.now().toString(36)}`;
  const link = new AmqpLink({ url: AMQP_URL, logger: quietLogger, initialMaxRetries: 0 });
  await link.open();
  const queue = new RabbitMessageQueue(link, { prefix, backoff: FAST.backoff });
  t.teardown(async () => {
    await queue.close();
    await queue.destroyTopology().catch(() => undefined);
    await link.close();
  });
  const consumer = await queue.consume({ taskTypes: ['generation'], environment: 'local', concurrency: 1, maxAttempts: 5, visibilitySeconds: 300 }, async () => ({ action: 'ack' }));
  const inside = consumer as unknown as { channel: Channel | null; reopen(model: unknown): Promise<void> };
  const before = inside.channel;
  t.truthy(before);
  await inside.reopen(link.live);
  t.is(inside.channel, before, 'the same channel');
});
