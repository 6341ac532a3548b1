import type { Container } from 'inversify';
import { AmqpLink } from '../../adapters/rabbitmq/amqp-link.ts';
import { RabbitMessageQueue } from '../../adapters/rabbitmq/rabbit-message-queue.ts';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SqsMessageQueue } from '../../adapters/sqs/sqs-message-queue.ts';
import { TASK_TYPES } from '../../core/domain/messages.ts';
import type { Outbox } from '../../core/ports/outbox.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import type { Config } from '../config.ts';
import { OutboxRelayLoop } from '../outbox-relay-loop.ts';
import { tracingOf } from '../tracing.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { bindFeature, type Feature, type FeaturePorts } from './feature.ts';
import { portsOf } from './ports.ts';

export type QueueFeature = Feature<{ relay: OutboxRelayLoop }>;

/**
 * The outbox relay, built once. Entries of the outbox table: every entry with a broker queue; with the database
 * queue, only those an earlier version of the service left behind (its transactions now enqueue directly).
 */
export function queueFeature(ports: FeaturePorts, needs: { outbox: Outbox }): QueueFeature {
  const { outbox } = needs;
  const logger = ports.logger().child({ component: 'outbox-relay' });
  const relay = new RelayOutbox({ outbox, queue: tracingOf(ports.config()).queue(ports.queue()), ids: ports.ids(), clock: ports.clock(), logger });
  return { exports: { relay: new OutboxRelayLoop({ relay, outbox, clock: ports.clock(), logger }) }, routes: [], scheduled: [] };
}

/**
 * The message queue (by QUEUE_DRIVER) and the outbox relay. Call before the modules that consume the
 * queue: lifecycles stop in reverse order, so the queue closes after its consumers.
 */
export function bindQueue(container: Container, config: Readonly<Config>): void {
  const queueConfig = config.queue;
  const ports = portsOf(container);
  const logger = () => ports.logger().child({ component: 'queue' });
  let open: () => Promise<void> = async () => undefined;
  let closeLink: () => Promise<void> = async () => undefined;
  if (queueConfig.driver === 'rabbitmq') {
    container
      .bind(TOKENS.Queue)
      .toDynamicValue(() => {
        const link = new AmqpLink({ url: queueConfig.amqpUrl, logger: logger(), name: `media-gen ${queueConfig.prefix} queue ${config.roles.join('+')}` });
        open = () => link.open();
        closeLink = () => link.close();
        return new RabbitMessageQueue(link, {
          prefix: queueConfig.prefix,
          // The broker's backstop sits above MAX_ATTEMPTS: this adapter dead-letters first, after onDeadLetter.
          deliveryLimit: config.generation.maxAttempts + 3,
          logger: logger(),
          routes: TASK_TYPES.map((taskType) => ({ environment: config.appEnv, taskType })),
        });
      })
      .inSingletonScope();
  } else if (queueConfig.driver === 'sqs') {
    container
      .bind(TOKENS.Queue)
      .toDynamicValue(() => {
        const queue = new SqsMessageQueue({
          queueUrl: queueConfig.queueUrl,
          region: queueConfig.region,
          ...(queueConfig.endpoint ? { endpoint: queueConfig.endpoint } : {}),
          ...(queueConfig.deadLetterQueueUrl ? { deadLetterQueueUrl: queueConfig.deadLetterQueueUrl } : {}),
          ...(queueConfig.credentials ? { credentials: queueConfig.credentials } : {}),
          waitTimeSeconds: queueConfig.waitTimeSeconds,
          logger: logger(),
        });
        // Start-up fails on a queue that cannot be reached or has no dead-letter queue, naming which.
        open = async () => {
          await queue.check();
          await queue.deadLetterQueueUrl();
        };
        return queue;
      })
      .inSingletonScope();
  } else {
    container
      .bind(TOKENS.Queue)
      .toDynamicValue(() => new SequelizeMessageQueue(ports.db(), { clock: ports.clock(), ids: ports.ids(), logger: logger() }))
      .inSingletonScope();
  }
  const feature = bindFeature(container, 'queue', (ports) => queueFeature(ports, { outbox: resolve(container, TOKENS.Outbox) }));
  container.bind(TOKENS.OutboxRelay).toDynamicValue(() => feature().exports.relay);

  container.bind(TOKENS.Lifecycle).toDynamicValue(() => {
    const queue = resolve(container, TOKENS.Queue);
    return {
      name: 'queue',
      roles: ['api', 'worker'],
      start: () => open(),
      stop: async () => {
        await queue.close();
        await closeLink();
      },
    };
  });
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => resolve(container, TOKENS.OutboxRelay));
  container.bind(TOKENS.HealthCheck).toDynamicValue(() => ({ name: 'queue', check: () => resolve(container, TOKENS.Queue).check() }));
}
