import type { Container } from 'inversify';
import { SequelizeMessageQueue } from '../../adapters/sequelize/sequelize-message-queue.ts';
import { RelayOutbox } from '../../core/use-cases/queue/relay-outbox.use-case.ts';
import type { Config } from '../config.ts';
import { OutboxRelayLoop } from '../outbox-relay-loop.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { portsOf } from './ports.ts';

/**
 * The message queue (by QUEUE_DRIVER) and the outbox relay. Call before the modules that consume the
 * queue: lifecycles stop in reverse order, so the queue closes after its consumers.
 */
export function bindQueue(container: Container, config: Readonly<Config>): void {
  if (config.queue.driver !== 'db') {
    throw new Error(`QUEUE_DRIVER=${config.queue.driver} is not available in this build (use QUEUE_DRIVER=db)`);
  }
  const ports = portsOf(container);
  container
    .bind(TOKENS.Queue)
    .toDynamicValue(() => new SequelizeMessageQueue(ports.db(), { clock: ports.clock(), ids: ports.ids(), logger: ports.logger().child({ component: 'queue' }) }))
    .inSingletonScope();
  container
    .bind(TOKENS.OutboxRelay)
    .toDynamicValue(() => {
      // Entries of the outbox table: every entry with a broker queue; with the database queue, only those an
      // earlier version of the service left behind (its transactions now enqueue directly).
      const outbox = resolve(container, TOKENS.Outbox);
      const logger = ports.logger().child({ component: 'outbox-relay' });
      const relay = new RelayOutbox({ outbox, queue: resolve(container, TOKENS.Queue), ids: ports.ids(), clock: ports.clock(), logger });
      return new OutboxRelayLoop({ relay, outbox, clock: ports.clock(), logger });
    })
    .inSingletonScope();

  container.bind(TOKENS.Lifecycle).toDynamicValue(() => {
    const queue = resolve(container, TOKENS.Queue);
    return { name: 'queue', roles: ['api', 'worker'], start: async () => {}, stop: () => queue.close() };
  });
  container.bind(TOKENS.Lifecycle).toDynamicValue(() => resolve(container, TOKENS.OutboxRelay));
  container.bind(TOKENS.HealthCheck).toDynamicValue(() => ({ name: 'queue', check: () => resolve(container, TOKENS.Queue).check() }));
}
