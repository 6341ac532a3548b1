import type { Container } from 'inversify';
import { InProcessEventBus } from '../../adapters/memory/in-process-event-bus.ts';
import { RabbitEventBus } from '../../adapters/rabbitmq/rabbit-event-bus.ts';
import { RedisEventBus } from '../../adapters/redis/redis-event-bus.ts';
import { WsGateway } from '../../adapters/ws/ws-gateway.ts';
import type { EventBus } from '../../core/ports/user-events.port.ts';
import { PurgeUserEvents } from '../../core/use-cases/events/purge-user-events.use-case.ts';
import { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { bindFeature, type Feature, type FeaturePorts } from './feature.ts';
import { portsOf } from './ports.ts';

/** Events stay replayable this long (API.md §6), and the purge runs this often. */
const RETENTION_MS = 24 * 3600_000;
const PURGE_EVERY_MS = 10 * 60_000;

export type EventsFeature = Feature<{ eventLog: UserEventLog }>;

/** The user event log and the purge of old events. */
export function eventsFeature(ports: FeaturePorts): EventsFeature {
  const eventLog = new UserEventLog({ bus: ports.bus(), clock: ports.clock(), logger: ports.logger().child({ component: 'events' }) });
  const purge = new PurgeUserEvents({ store: ports.repos().events, clock: ports.clock(), retentionMs: RETENTION_MS });
  return {
    exports: { eventLog },
    routes: [],
    scheduled: [{ name: 'user-events-purge', roles: ['api'], everyMs: PURGE_EVERY_MS, run: () => purge.execute() }],
  };
}

/**
 * The bus, the events feature and the WebSocket gateway. The gateway is an adapter built at start (it needs
 * the HTTP server), so it looks its parts up then.
 */
export function bindEvents(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  bindEventBus(container, config);
  const events = bindFeature(container, 'events', eventsFeature);
  container.bind(TOKENS.UserEventLog).toDynamicValue(() => events().exports.eventLog);

  container.bind(TOKENS.Lifecycle).toDynamicValue(() => {
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
        const snapshot = resolve(container, TOKENS.ActiveJobsSnapshot);
        const server = resolve(container, TOKENS.HttpServer).server;
        if (!server) throw new Error('the WebSocket gateway runs with the api role, which has an HTTP server; none was found');
        const authenticate = resolve(container, TOKENS.AuthenticateSocket);
        const events = ports.repos().events;
        gateway = new WsGateway({
          authenticate: (token) => authenticate.execute(token),
          replay: (userId, since, max) => events.listSince(userId, since, max),
          snapshot,
          bus: ports.bus(),
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
}

/**
 * TOKENS.EventBus by EVENT_BUS_DRIVER, with an `events` health check for Redis, and a lifecycle that
 * checks Redis at start (or warns that a split deployment has no live events) and closes the bus on
 * shutdown. Bound before the gateway and the worker, so it starts before and stops after them.
 */
function bindEventBus(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  const bus = config.eventBus;
  const onHandlerError = (error: unknown, channel: string) => ports.logger().error('event handler failed', { channel, error: String(error) });
  container
    .bind(TOKENS.EventBus)
    .toDynamicValue(() => {
      if (bus.driver === 'redis') {
        return new RedisEventBus(bus.url, {
          onHandlerError,
          onConnectionError: (error, connection) =>
            ports.logger().warn('event bus: lost its Redis connection; reconnecting (events published meanwhile are replayed by sync)', { connection, error: String(error) }),
        });
      }
      if (bus.driver === 'rabbitmq') {
        return new RabbitEventBus({ url: bus.url, prefix: bus.prefix, logger: ports.logger().child({ component: 'event-bus' }), onHandlerError, name: `media-gen ${bus.prefix} events ${config.roles.join('+')}` });
      }
      return new InProcessEventBus(onHandlerError);
    })
    .inSingletonScope();
  const redisBus = (): RedisEventBus | null => {
    const bound: EventBus = resolve(container, TOKENS.EventBus);
    return bound instanceof RedisEventBus ? bound : null;
  };
  const rabbitBus = (): RabbitEventBus | null => {
    const bound: EventBus = resolve(container, TOKENS.EventBus);
    return bound instanceof RabbitEventBus ? bound : null;
  };
  if (bus.driver === 'redis') {
    container.bind(TOKENS.HealthCheck).toConstantValue({ name: 'events', check: async () => redisBus()?.ping() });
  }
  if (bus.driver === 'rabbitmq') {
    container.bind(TOKENS.HealthCheck).toConstantValue({ name: 'events', check: async () => rabbitBus()?.ping() });
  }

  container.bind(TOKENS.Lifecycle).toDynamicValue(() => ({
    name: 'event-bus',
    roles: ['api', 'worker'],
    async start() {
      if (bus.driver === 'rabbitmq') {
        const rabbit = rabbitBus();
        await rabbit?.open().catch(async (error: unknown) => {
          await rabbit.close();
          throw new Error(`EVENT_BUS_DRIVER=rabbitmq: RabbitMQ (AMQP_URL) is not reachable: ${(error as Error).message}`);
        });
      } else if (bus.driver === 'redis') {
        const redis = redisBus();
        await redis?.ping().catch(async (error: unknown) => {
          await redis.close(); // app.stop() skips a part whose start failed; ioredis would retry forever
          throw new Error(`EVENT_BUS_DRIVER=redis: Redis (REDIS_URL) is not reachable: ${(error as Error).message}`);
        });
      } else if (config.roles.length === 1) {
        // Not an error: jobs, coins and results still work across processes; only live delivery is lost.
        const other = config.roles[0] === 'api' ? 'worker' : 'api';
        ports.logger().warn(
          `ROLES=${config.roles[0]} with EVENT_BUS_DRIVER=memory: events stay in this process, so sockets get no live events of jobs run ` +
            `by a separate ${other} process (clients catch up with sync) and cancelling does not interrupt a running job. ` +
            'Set EVENT_BUS_DRIVER=redis and REDIS_URL (or EVENT_BUS_DRIVER=rabbitmq and AMQP_URL) for every api and worker process.',
          { roles: config.roles, eventBusDriver: bus.driver },
        );
      }
    },
    async stop() {
      await resolve(container, TOKENS.EventBus).close();
    },
  }));
}
