import type { Container } from 'inversify';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { SequelizeOutbox } from '../../adapters/sequelize/sequelize-outbox.ts';
import type { MessageQueue } from '../../core/ports/queue.port.ts';
import type { Outbox } from '../../core/ports/outbox.port.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import type { Config } from '../config.ts';
import { OutboxRelayLoop } from '../outbox-relay-loop.ts';
import { TOKENS, type HealthCheckBinding, type LifecycleBinding } from '../tokens.ts';
import { portsOf } from './ports.ts';

/**
 * The message queue (by QUEUE_DRIVER), the outbox and its relay. Call before the modules that
 * consume the queue: lifecycles stop in reverse order, so the queue closes after its consumers.
 */
export function bindQueue(container: Container, config: Readonly<Config>): void {
  if (config.queue.driver !== 'db') {
    throw new Error(`QUEUE_DRIVER=${config.queue.driver} is not available in this build (use QUEUE_DRIVER=db)`);
  }
  const ports = portsOf(container);
  container
    .bind<MessageQueue>(TOKENS.Queue)
    .toDynamicValue(
      () =>
        new SequelizeMessageQueue(ports.db(), {
          clock: ports.clock(),
          ids: ports.ids(),
          logger: ports.logger().child({ component: 'queue' }),
        }),
    )
    .inSingletonScope();
  container
    .bind<Outbox>(TOKENS.Outbox)
    .toDynamicValue(() => new SequelizeOutbox(ports.db()))
    .inSingletonScope();
  container
    .bind<OutboxRelayLoop>(TOKENS.OutboxRelay)
    .toDynamicValue((ctx) => {
      const queue = ctx.get<MessageQueue>(TOKENS.Queue);
      const outbox = ctx.get<Outbox>(TOKENS.Outbox);
      const relay = new RelayOutbox({ outbox, queue, uow: ports.uow(), clock: ports.clock() });
      return new OutboxRelayLoop({ relay, outbox, clock: ports.clock(), logger: ports.logger().child({ component: 'outbox-relay' }) });
    })
    .inSingletonScope();

  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue((ctx) => {
    const queue = ctx.get<MessageQueue>(TOKENS.Queue);
    return { name: 'queue', roles: ['api', 'worker'], start: async () => {}, stop: () => queue.close() };
  });
  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue((ctx) => ctx.get<OutboxRelayLoop>(TOKENS.OutboxRelay));
  container.bind<HealthCheckBinding>(TOKENS.HealthCheck).toDynamicValue((ctx) => ({
    name: 'queue',
    check: () => ctx.get<MessageQueue>(TOKENS.Queue).check(),
  }));
}
