import type { Container } from 'inversify';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { SequelizeUserEventStore } from '../../adapters/sequelize/sequelize-user-event-store.ts';
import { WsGateway } from '../../adapters/ws/ws-gateway.ts';
import type { EventBus, UserEventStore } from '../../core/ports/user-events.port.ts';
import type { Authenticate } from '../../core/use-cases/auth/authenticate.use-case.ts';
import { PublishUserEvent } from '../../core/use-cases/events/publish-user-event.use-case.ts';
import { PurgeUserEvents } from '../../core/use-cases/events/purge-user-events.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS, type ActiveJobsSnapshot, type HttpServerRef, type LifecycleBinding } from '../tokens.ts';
import { portsOf } from './ports.ts';

/** Events stay replayable this long (API.md §6), and the purge runs this often. */
const RETENTION_MS = 24 * 3600_000;
const PURGE_EVERY_MS = 10 * 60_000;

/** The user event log, the bus, PublishUserEvent, the WebSocket gateway and the purge of old events. */
export function bindEvents(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  container.bind<UserEventStore>(TOKENS.UserEventStore).toDynamicValue(() => new SequelizeUserEventStore(ports.db())).inSingletonScope();
  // In process for now; Redis pub/sub or a RabbitMQ fanout exchange when API and workers run apart (a later issue).
  container
    .bind<EventBus>(TOKENS.EventBus)
    .toDynamicValue(() => new InProcessEventBus((error, channel) => ports.logger().error('event handler failed', { channel, error: String(error) })))
    .inSingletonScope();
  container
    .bind(TOKENS.PublishUserEvent)
    .toDynamicValue(
      () =>
        new PublishUserEvent({
          store: container.get<UserEventStore>(TOKENS.UserEventStore),
          bus: container.get<EventBus>(TOKENS.EventBus),
          clock: ports.clock(),
        }),
    )
    .inSingletonScope();

  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue(() => {
    let gateway: WsGateway | null = null;
    return {
      name: 'ws-gateway',
      roles: ['api'],
      async start() {
        if (!container.isBound(TOKENS.ActiveJobsSnapshot)) {
          throw new Error(
            'TOKENS.ActiveJobsSnapshot is not bound: the WebSocket gateway needs `(userId) => Promise<GenerationJob[]>` ' +
              "for the sync's job.snapshot (bound by the generation module).",
          );
        }
        const snapshot = container.get<ActiveJobsSnapshot>(TOKENS.ActiveJobsSnapshot);
        const server = container.get<HttpServerRef>(TOKENS.HttpServer).server;
        if (!server) throw new Error('the WebSocket gateway runs with the api role, which has an HTTP server; none was found');
        const authenticate = container.get<Authenticate>(TOKENS.Authenticate);
        const store = container.get<UserEventStore>(TOKENS.UserEventStore);
        gateway = new WsGateway({
          authenticate: (token) => authenticate.execute(token),
          replay: (userId, since, max) => store.listSince(userId, since, max),
          snapshot,
          bus: container.get<EventBus>(TOKENS.EventBus),
          allowedOrigins: config.corsOrigins,
          pingIntervalMs: config.realtime.pingIntervalSeconds * 1000,
          logger: ports.logger(),
        });
        await gateway.start(server);
      },
      async beforeServerClose() {
        await gateway?.stop();
      },
      async stop() {
        await gateway?.stop();
        gateway = null;
      },
    };
  });

  container.bind<LifecycleBinding>(TOKENS.Lifecycle).toDynamicValue(() => {
    const purge = new PurgeUserEvents({ store: container.get<UserEventStore>(TOKENS.UserEventStore), clock: ports.clock(), retentionMs: RETENTION_MS });
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<void> | null = null;
    const tick = (): void => {
      if (running) return; // a slow purge is still going; the next tick catches up
      running = purge
        .execute()
        .then((removed) => {
          if (removed > 0) ports.logger().info('user events purged', { removed });
        })
        .catch((error: unknown) => ports.logger().error('user event purge failed', { error: String(error) }))
        .finally(() => {
          running = null;
        });
    };
    return {
      name: 'user-events-purge',
      roles: ['api'],
      async start() {
        tick();
        timer = setInterval(tick, PURGE_EVERY_MS);
        timer.unref();
      },
      async stop() {
        if (timer) clearInterval(timer);
        timer = null;
        await running;
      },
    };
  });
}
