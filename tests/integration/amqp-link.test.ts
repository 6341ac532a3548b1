/**
 * The RabbitMQ connection holder (AmqpLink) against the running broker: one connection however often it is opened,
 * set-up listeners that fail without taking the link down, one publish channel per connection (replaced once the
 * broker closes it), and a closed link that answers at once instead of waiting for a reconnection that never comes.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { AmqpLink } from '../../adapters/rabbitmq/amqp-link.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import { waitFor } from '../contract/message-queue.contract.ts';

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const run = promisify(execFile);

let counter = 0;
const uniqueName = () => `amqp-link-test-${Date.now().toString(36)}-${(counter += 1)}`;

/** The broker's connections whose client named itself `name`, by pid. */
async function connectionsNamed(name: string): Promise<string[]> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q', '--no-table-headers']);
  return stdout
    .split('\n')
    .filter((line) => line.includes(`{"connection_name","${name}"}`))
    .map((line) => line.split('\t')[0]!);
}

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (message: string) => void warnings.push(message), error: (message: string) => void warnings.push(message), child: () => logger };
  return { logger, warnings };
}

// Pins: a second open() (two adapters sharing a link both open it) must not leave a second connection behind, one
// that close() never closes and whose set-up runs every listener again (a second consumer channel per queue).
test('open() twice keeps one connection, set up once, and close() leaves none at the broker', async (t) => {
  const name = uniqueName();
  const link = new AmqpLink({ url: AMQP_URL, logger: recordingLogger().logger, name, initialMaxRetries: 0 });
  t.teardown(() => link.close());
  let setups = 0;
  link.onConnect(() => void (setups += 1));
  await link.open();
  await link.open();
  t.is(setups, 1);
  t.is((await connectionsNamed(name)).length, 1);
  await link.close();
  await waitFor(async () => (await connectionsNamed(name)).length === 0, 'the connection closed at the broker', 10_000).catch(() => undefined);
  t.deepEqual(await connectionsNamed(name), []);
});

// Pins: a listener registered on a live link (a consumer started after start-up) is set up at once; one whose set-up
// fails is logged, and a listener that fails while connecting does not keep the link from connecting.
test('listeners: one registered on a live link runs at once; a failing one is logged and the link stays up', async (t) => {
  const { logger, warnings } = recordingLogger();
  const link = new AmqpLink({ url: AMQP_URL, logger, name: uniqueName(), initialMaxRetries: 0 });
  t.teardown(() => link.close());
  const ran: string[] = [];
  link.onConnect(() => {
    ran.push('failing before open');
    throw new Error('declare refused');
  });
  link.onConnect(() => void ran.push('before open'));
  await link.open();
  t.deepEqual(ran, ['failing before open', 'before open']);
  t.not(link.live, null);

  link.onConnect(async () => {
    ran.push('failing after open');
    throw new Error('declare refused again');
  });
  link.onConnect((model) => void ran.push(model === link.live ? 'after open, on the live connection' : 'after open, on another connection'));
  await waitFor(() => warnings.length === 2, 'both set-up failures logged', 2000).catch(() => undefined);
  t.deepEqual(ran, ['failing before open', 'before open', 'failing after open', 'after open, on the live connection']);
  t.deepEqual(warnings, ['AMQP setup failed', 'AMQP setup failed']);
});

// Pins: publishes share one confirm channel per connection (not a new channel each, which the broker caps per
// connection); when the broker closes that channel (a publish to a missing exchange), the next publish gets a new one,
// and the connection, with every consumer's channel on it, stays up.
test('publishChannel: one channel for every publish, replaced after the broker closes it, on the same connection', async (t) => {
  const { logger, warnings } = recordingLogger();
  const link = new AmqpLink({ url: AMQP_URL, logger, name: uniqueName(), initialMaxRetries: 0 });
  t.teardown(() => link.close());
  await link.open();
  const connection = link.live;
  const first = await link.publishChannel();
  t.is(await link.publishChannel(), first);
  const closed = new Promise<void>((resolve) => first.once('close', () => resolve()));
  first.publish('no-such-exchange-for-amqp-link-test', 'x', Buffer.from('lost'));
  await first.waitForConfirms().catch(() => undefined);
  await closed;
  const second = await link.publishChannel();
  t.not(second, first);
  await second.checkExchange('amq.direct'); // open and usable
  t.true(link.live === connection, 'the connection survived its channel being closed');
  t.deepEqual(warnings, []);
});

// Pins: a closed link answers at once ("closed"), also to a caller that was waiting for a reconnection when it was
// closed (a publish during a broker restart at shutdown), instead of hanging until the timeout or handing back null.
test('a closed link refuses at once, also a caller waiting for a reconnection', async (t) => {
  t.timeout(30_000);
  const name = uniqueName();
  const { logger, warnings } = recordingLogger();
  // A long reconnect delay: the link stays disconnected while the test closes it.
  const link = new AmqpLink({ url: AMQP_URL, logger, name, initialMaxRetries: 0, initialDelayMs: 5000, maxDelayMs: 5000 });
  t.teardown(() => link.close());
  await link.open();
  for (const pid of await connectionsNamed(name)) await run('rabbitmqctl', ['close_connection', pid, 'test: connection cut']);
  await waitFor(() => link.live === null, 'the disconnect', 10_000);
  t.deepEqual(warnings, ['AMQP connection lost; reconnecting']);

  const waiting = link.publishChannel(6000);
  const started = Date.now();
  await link.close();
  await t.throwsAsync(waiting, { message: 'the AMQP link is closed' });
  await t.throwsAsync(link.connection(6000), { message: 'the AMQP link is closed' });
  t.true(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  t.deepEqual(warnings, ['AMQP connection lost; reconnecting'], 'closing the link is not reported as a lost connection');
});
