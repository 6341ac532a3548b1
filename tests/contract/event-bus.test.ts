import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
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

test('redis: after the subscriber connection is killed, ioredis reconnects and resubscribes; handlers receive again, and the reconnect listeners are told once', async (t) => {
  const redis = await rawRedis(t);
  const prefix = testPrefix();
  const name = `mgs-test-${randomBytes(4).toString('hex')}`;
  const subscriber = new RedisEventBus(REDIS_URL, { prefix, connectionName: name });
  // Registered before the first connection is ready: that one is not a reconnection.
  let told = 0;
  subscriber.onReconnect(() => void (told += 1));
  let toldStopped = 0;
  const stop = subscriber.onReconnect(() => void (toldStopped += 1));
  stop();
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
  t.is(told, 0, 'the first connection is not announced as a reconnection');

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
  await waitFor(() => told === 1, 'the reconnect listener');
  t.is(told, 1, 'told once of the one reconnection');
  t.is(toldStopped, 0, 'a listener that stopped listening is not told');
});

test('redis: a SUBSCRIBE the server refuses fails that subscribe only; once allowed, subscribing to the same channel works', async (t) => {
  const admin = await rawRedis(t);
  const prefix = testPrefix();
  const user = `mgs-test-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(8).toString('hex');
  // A Redis user allowed on the `<prefix>open` channel only: a SUBSCRIBE to any other is refused with NOPERM.
  await admin.acl('SETUSER', user, 'on', `>${password}`, '~*', '+@all', 'resetchannels', `&${prefix}open`);
  t.teardown(async () => void (await admin.acl('DELUSER', user)));
  const url = new URL(REDIS_URL);
  url.username = user;
  url.password = password;
  const bus = new RedisEventBus(url.toString(), { prefix });
  const publisher = new RedisEventBus(REDIS_URL, { prefix });
  t.teardown(async () => {
    await bus.close();
    await publisher.close();
  });
  const got: unknown[] = [];
  await bus.subscribe('open', (payload) => got.push(payload));
  await t.throwsAsync(() => bus.subscribe('shut', () => undefined), { message: /NOPERM|permission/i });
  await admin.acl('SETUSER', user, `&${prefix}shut`);
  // Pins: the refused SUBSCRIBE left nothing behind, so this one is sent again and succeeds.
  await bus.subscribe('shut', (payload) => got.push(payload));
  await publisher.publish('shut', 'now allowed');
  await publisher.publish('open', 'still there');
  await waitFor(() => got.length === 2, 'both messages');
  t.deepEqual(got, ['now allowed', 'still there']);
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

const run = promisify(execFile);

/** Has the broker close every connection whose client named itself `name` (as a broker restart or a network cut would). */
async function closeRabbitConnections(name: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q', '--no-table-headers']);
  const ours = stdout.split('\n').filter((line) => line.includes(`{"connection_name","${name}"}`)).map((line) => line.split('\t')[0]!);
  for (const pid of ours) await run('rabbitmqctl', ['close_connection', pid, 'test: connection cut']);
  return ours.length;
}

test('rabbitmq: after the broker closes the subscriber connection, the bus listens again on every channel, then tells its reconnect listeners once', async (t) => {
  const prefix = `mgs-test-${randomBytes(4).toString('hex')}`;
  rabbitPrefixes.push(prefix);
  const name = `mgs-test-${randomBytes(4).toString('hex')}`;
  const subscriber = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix, name });
  const publisher = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix });
  t.teardown(async () => {
    await subscriber.close();
    await publisher.close();
  });
  const got: unknown[] = [];
  let told = 0;
  // Registered before the first connection: that one is not a reconnection.
  subscriber.onReconnect(() => {
    told += 1;
    // Published the moment the listener hears of it: the new queue must already be bound, or this is lost.
    void publisher.publish('a', 'published by the listener');
  });
  let toldStopped = 0;
  const stop = subscriber.onReconnect(() => void (toldStopped += 1));
  stop();
  await subscriber.open();
  await publisher.open();
  await subscriber.subscribe('a', (payload) => got.push(payload));
  await subscriber.subscribe('b', (payload) => got.push(payload));
  await publisher.publish('a', 1);
  await waitFor(() => got.length === 1, 'the first message');
  t.is(told, 0, 'the first connection is not announced as a reconnection');

  t.is(await closeRabbitConnections(name), 1, 'the subscriber connection was closed by the broker');
  await waitFor(() => told === 1, 'the reconnect listener', 20_000);
  await waitFor(() => got.includes('published by the listener'), 'the message published by the listener');
  await publisher.publish('b', 2);
  await waitFor(() => got.includes(2), 'a message on the other channel after the reconnection');
  t.deepEqual(got, [1, 'published by the listener', 2]);
  t.is(told, 1, 'told once of the one reconnection');
  t.is(toldStopped, 0, 'a listener that stopped listening is not told');
});

test('rabbitmq: a channel-level error on the listening channel (a bind to an exchange deleted under it): the bus listens again, tells its reconnect listeners once, and its handlers receive', async (t) => {
  const prefix = `mgs-test-${randomBytes(4).toString('hex')}`;
  rabbitPrefixes.push(prefix);
  const subscriber = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix });
  const publisher = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix });
  t.teardown(async () => {
    await subscriber.close();
    await publisher.close();
  });
  await subscriber.open();
  await publisher.open();
  let told = 0;
  subscriber.onReconnect(() => void (told += 1));
  const got: unknown[] = [];
  await subscriber.subscribe('a', (payload) => got.push(payload));
  const connection = await amqp.connect(AMQP_URL);
  t.teardown(() => connection.close());
  const admin = await connection.createChannel();
  await admin.deleteExchange(`${prefix}.events`);
  // The bind of a new subscription fails (NOT_FOUND), and the broker closes the listening channel with it.
  await t.throwsAsync(() => subscriber.subscribe('b', () => undefined), { message: /NOT_FOUND|no exchange/ });
  await waitFor(() => told === 1, 'the reconnect listener', 20_000);
  // Listening again declared the exchange anew and bound the handlers it has; a new subscription works too.
  await subscriber.subscribe('c', (payload) => got.push(payload));
  await publisher.publish('a', 'to a');
  await publisher.publish('c', 'to c');
  await waitFor(() => got.length === 2, 'both messages');
  t.deepEqual(got.sort(), ['to a', 'to c']);
  t.is(told, 1);
});

test('rabbitmq: foreign (non-JSON) text on the exchange is reported, not delivered; the next message is', async (t) => {
  const prefix = `mgs-test-${randomBytes(4).toString('hex')}`;
  rabbitPrefixes.push(prefix);
  const errors: string[] = [];
  const bus = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix, onHandlerError: (error, channel) => errors.push(`${channel}: ${(error as Error).message}`) });
  t.teardown(() => bus.close());
  await bus.open();
  const got: unknown[] = [];
  await bus.subscribe('user-events', (payload) => got.push(payload));
  const connection = await amqp.connect(AMQP_URL);
  t.teardown(() => connection.close());
  const channel = await connection.createConfirmChannel();
  channel.publish(`${prefix}.events`, 'user-events', Buffer.from('not json'));
  channel.publish(`${prefix}.events`, 'user-events', Buffer.from('{"ok":true}'));
  await channel.waitForConfirms();
  await waitFor(() => got.length === 1 && errors.length === 1, 'one delivery and one report');
  t.deepEqual(got, [{ ok: true }]);
  t.regex(errors[0]!, /^user-events: not JSON/);
});

test('rabbitmq: a subscribe that fails (the exchange cannot be declared) leaves nothing behind; once it can, subscribing works and only the new handler gets messages', async (t) => {
  const prefix = `mgs-test-${randomBytes(4).toString('hex')}`;
  rabbitPrefixes.push(prefix);
  const connection = await amqp.connect(AMQP_URL);
  t.teardown(() => connection.close());
  const admin = await connection.createChannel();
  // An exchange of that name but another type: the bus's declaration of it is refused (PRECONDITION_FAILED).
  await admin.assertExchange(`${prefix}.events`, 'fanout', { durable: false });
  const subscriber = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix });
  const publisher = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix });
  t.teardown(async () => {
    await subscriber.close();
    await publisher.close();
  });
  await subscriber.open();
  await publisher.open();
  const stale: unknown[] = [];
  await t.throwsAsync(() => subscriber.subscribe('a', (payload) => stale.push(payload)), { message: /PRECONDITION_FAILED|inequivalent/ });
  await admin.deleteExchange(`${prefix}.events`);
  const got: unknown[] = [];
  // Pins: neither the failed listen nor the failed subscription's handler was kept.
  await subscriber.subscribe('a', (payload) => got.push(payload));
  await publisher.publish('a', 1);
  await waitFor(() => got.length === 1, 'the message after subscribing again');
  await publisher.publish('a', 2);
  await waitFor(() => got.length === 2, 'the second message');
  t.deepEqual(got, [1, 2]);
  t.deepEqual(stale, []);
});

// Pins: a message can arrive for a channel whose last handler just left (its UNSUBSCRIBE or unbind still in flight).
// It is dropped: no throw in the connection's message handler, nothing reported as a handler error.
test('redis and rabbitmq: a message for a channel without handlers (an unsubscribe in flight) is dropped', async (t) => {
  const reported: string[] = [];
  const prefix = testPrefix();
  const redis = new RedisEventBus(REDIS_URL, { prefix, onHandlerError: (_e, channel) => reported.push(channel) });
  const rabbitPrefix = `mgs-test-${randomBytes(4).toString('hex')}`;
  rabbitPrefixes.push(rabbitPrefix);
  const rabbit = new RabbitEventBus({ url: AMQP_URL, logger: quietLogger, prefix: rabbitPrefix, onHandlerError: (_e, channel) => reported.push(channel) });
  await rabbit.open();
  t.teardown(async () => {
    await redis.close();
    await rabbit.close();
  });
  const left = await redis.subscribe('left', () => undefined);
  await left();
  t.notThrows(() => (redis as unknown as { dispatch(key: string, text: string): void }).dispatch(`${prefix}left`, '"late"'));
  t.notThrows(() => (rabbit as unknown as { dispatch(channel: string, text: string): void }).dispatch('left', '"late"'));
  t.deepEqual(reported, []);
});
