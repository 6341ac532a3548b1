import { randomBytes } from 'node:crypto';
import test from 'ava';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { RabbitEventBus } from '../../adapters/rabbitmq/rabbit-event-bus.ts';
import { RedisEventBus } from '../../adapters/redis/redis-event-bus.ts';
import { quietLogger } from '../support/generation-harness.ts';
import { eventBusContract, waitFor } from './event-bus.contract.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

eventBusContract('in-process', async (onHandlerError) => {
  const bus = new InProcessEventBus(onHandlerError);
  return { publisher: bus, subscriber: bus };
});

/** A prefix of its own per bus pair, so concurrent runs on the same Redis never see each other's messages. */
const testPrefix = () => `mgs-test-${randomBytes(4).toString('hex')}:`;

// Two instances, each with its own two connections: two processes.
eventBusContract('redis', async (onHandlerError) => {
  const prefix = testPrefix();
  return {
    publisher: new RedisEventBus(REDIS_URL, { prefix }),
    subscriber: new RedisEventBus(REDIS_URL, { prefix, ...(onHandlerError ? { onHandlerError } : {}) }),
  };
});

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const rabbitPrefixes: string[] = [];
test.after.always(async () => {
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createChannel();
  for (const prefix of rabbitPrefixes) await channel.deleteExchange(`${prefix}.events`).catch(() => undefined);
  await connection.close();
});

// Two instances, each with its own connection: two processes, on an exchange of their own.
eventBusContract('rabbitmq', async (onHandlerError) => {
  const prefix = `mgs-test-${randomBytes(4).toString('hex')}`;
  rabbitPrefixes.push(prefix);
  const open = async (report?: (error: unknown, channel: string) => void) => {
    const bus = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix, ...(report ? { onHandlerError: report } : {}) });
    await bus.open();
    return bus;
  };
  return { publisher: await open(), subscriber: await open(onHandlerError) };
});

/** A plain connection for looking at what the bus does on the server. */
async function rawRedis(t: { teardown(fn: () => Promise<void>): void }): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  t.teardown(async () => void (await redis.quit().catch(() => redis.disconnect())));
  await redis.ping().catch((error: unknown) => {
    throw new Error(`Redis is not reachable at ${REDIS_URL}: ${(error as Error).message}`);
  });
  return redis;
}

const numsub = async (redis: Redis, channel: string): Promise<number> => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);

async function clientNames(redis: Redis): Promise<string[]> {
  const list = (await redis.client('LIST')) as string;
  return list
    .split('\n')
    .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '')
    .filter((name) => name !== '');
}

test('redis: one SUBSCRIBE per channel however many handlers; UNSUBSCRIBE when the last one leaves', async (t) => {
  const redis = await rawRedis(t);
  const prefix = testPrefix();
  const bus = new RedisEventBus(REDIS_URL, { prefix });
  t.teardown(() => bus.close());
  const leave = await Promise.all([1, 2, 3].map(() => bus.subscribe('jobs', () => undefined)));
  t.is(await numsub(redis, `${prefix}jobs`), 1);
  await leave[0]!();
  await leave[1]!();
  t.is(await numsub(redis, `${prefix}jobs`), 1, 'one handler left');
  await leave[2]!();
  t.is(await numsub(redis, `${prefix}jobs`), 0);
});

test('redis: channels are prefixed and carry JSON text; foreign text is reported, not delivered', async (t) => {
  const redis = await rawRedis(t);
  const listener = await rawRedis(t);
  const prefix = testPrefix();
  const errors: string[] = [];
  const bus = new RedisEventBus(REDIS_URL, { prefix, onHandlerError: (error, channel) => errors.push(`${channel}: ${(error as Error).message}`) });
  t.teardown(() => bus.close());

  const raw: [string, string][] = [];
  listener.on('message', (channel: string, text: string) => raw.push([channel, text]));
  await listener.subscribe(`${prefix}user-events`);
  await bus.publish('user-events', { userId: 'u', seq: 1 });
  await waitFor(() => raw.length === 1, 'the raw message');
  t.deepEqual(raw, [[`${prefix}user-events`, '{"userId":"u","seq":1}']]);

  const got: unknown[] = [];
  await bus.subscribe('user-events', (payload) => got.push(payload));
  await redis.publish(`${prefix}user-events`, 'not json');
  await redis.publish(`${prefix}user-events`, '{"ok":true}');
  await redis.publish('user-events', '{"unprefixed":true}');
  await waitFor(() => got.length === 1 && errors.length === 1, 'one delivery and one report');
  t.deepEqual(got, [{ ok: true }]);
  t.regex(errors[0]!, /^user-events: not JSON/);
});

test('redis: after the subscriber connection is killed, ioredis reconnects and resubscribes; handlers receive again', async (t) => {
  const redis = await rawRedis(t);
  const prefix = testPrefix();
  const name = `mgs-test-${randomBytes(4).toString('hex')}`;
  const subscriber = new RedisEventBus(REDIS_URL, { prefix, connectionName: name });
  const publisher = new RedisEventBus(REDIS_URL, { prefix });
  t.teardown(async () => {
    await subscriber.close();
    await publisher.close();
  });
  const got: number[] = [];
  await subscriber.subscribe('a', (payload) => got.push(payload as number));
  await subscriber.subscribe('b', (payload) => got.push(-(payload as number)));
  await publisher.publish('a', 1);
  await waitFor(() => got.length === 1, 'the first message');

  const killed = Number(await redis.client('KILL', 'ID', await clientId(redis, `${name}:sub`)));
  t.is(killed, 1, 'the subscriber connection was killed');
  // Messages published while it is away are lost (at most once); keep publishing until one arrives.
  let n = 100;
  const deadline = Date.now() + 10_000;
  while (!got.some((value) => value >= 100) && Date.now() < deadline) {
    await publisher.publish('a', (n += 1));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.true(got.some((value) => value >= 100), `got ${got.join(',')}`);
  await publisher.publish('b', 7);
  await waitFor(() => got.includes(-7), 'a message on the other channel after the reconnection');
  t.is(await numsub(redis, `${prefix}a`), 1, 'subscribed once again, not twice');
});

async function clientId(redis: Redis, name: string): Promise<string> {
  const list = (await redis.client('LIST')) as string;
  const line = list.split('\n').find((entry) => new RegExp(`(?:^| )name=${name}(?: |$)`).test(entry));
  if (!line) throw new Error(`no Redis client named ${name}`);
  return /(?:^| )id=(\d+)/.exec(line)![1]!;
}

test('redis: close quits both connections', async (t) => {
  const redis = await rawRedis(t);
  const name = `mgs-test-${randomBytes(4).toString('hex')}`;
  const bus = new RedisEventBus(REDIS_URL, { prefix: testPrefix(), connectionName: name });
  await bus.subscribe('x', () => undefined);
  await bus.ping();
  const mine = async () => (await clientNames(redis)).filter((client) => client.startsWith(name)).sort();
  t.deepEqual(await mine(), [`${name}:pub`, `${name}:sub`]);
  await bus.close();
  const deadline = Date.now() + 2000;
  while ((await mine()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.deepEqual(await mine(), []);
  await t.throwsAsync(() => bus.publish('x', 1), { message: /closed/ });
});

test('redis: an unreachable server fails publish and subscribe instead of hanging', async (t) => {
  const errors: string[] = [];
  const bus = new RedisEventBus('redis://127.0.0.1:1', { prefix: testPrefix(), onConnectionError: (_error, which) => errors.push(which) });
  t.teardown(() => bus.close());
  await t.throwsAsync(() => bus.publish('x', 1));
  await t.throwsAsync(() => bus.subscribe('x', () => undefined));
  await t.throwsAsync(() => bus.ping());
  t.deepEqual([...new Set(errors)].sort(), ['publisher', 'subscriber'], 'each connection reports its outage once');
  t.is(errors.length, 2);
});
