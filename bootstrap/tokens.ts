import type { Server } from 'node:http';
import type { Container } from 'inversify';
import type { RouteModule } from '../adapters/http/http-app.ts';
import type { FeatureContribution } from '../adapters/http/routes/features.routes.ts';
import type { IdempotentResponder } from '../adapters/http/idempotency.ts';
import type { SequelizeDatabase } from '../adapters/sequelize/sequelize-database.ts';
import type { PromMetrics } from '../adapters/metrics/prom-metrics.ts';
import type { Cache } from '../core/ports/cache.port.ts';
import type { Clock } from '../core/ports/clock.port.ts';
import type { IdGenerator } from '../core/ports/id-generator.port.ts';
import type { Logger } from '../core/ports/logger.port.ts';
import type { JobMetrics } from '../core/ports/metrics.port.ts';
import type { ObjectStorage } from '../core/ports/object-storage.port.ts';
import type { Outbox } from '../core/ports/outbox.port.ts';
import type { OidcProviders } from '../core/ports/oidc-providers.port.ts';
import type { PasswordHasher } from '../core/ports/password-hasher.port.ts';
import type { DeliveredMessage, HandlerOutcome, MessageQueue } from '../core/ports/queue.port.ts';
import type { TaskType } from '../core/domain/messages.ts';
import type { TokenIssuer } from '../core/ports/token-issuer.port.ts';
import type { Transaction, UnitOfWork } from '../core/ports/unit-of-work.port.ts';
import type { EventBus } from '../core/ports/user-events.port.ts';
import type { NodeCatalog } from '../core/ports/node-catalog.port.ts';
import type { WorkflowEngine } from '../core/ports/workflow-engine.port.ts';
import type { Authenticate } from '../core/use-cases/auth/authenticate.use-case.ts';
import type { AuthenticateApiKey } from '../core/use-cases/api-keys/authenticate-api-key.use-case.ts';
import type { AuthenticateSocket } from '../core/use-cases/api-keys/authenticate-socket.use-case.ts';
import type { SessionRevocations } from '../core/use-cases/auth/session-revocations.service.ts';
import type { UserEventLog } from '../core/use-cases/events/user-event-log.service.ts';
import type { JobPayment } from '../core/use-cases/coins/job-payment.service.ts';
import type { StoreUpload } from '../core/use-cases/uploads/store-upload.use-case.ts';
import type { GetTemplateVersion } from '../core/use-cases/templates/get-template-version.use-case.ts';
import type { Config } from './config.ts';
import type { AccountDeletion } from './modules/account-deletion.module.ts';
import type { OutboxRelayLoop } from './outbox-relay-loop.ts';
import type { ScheduledTask, Scheduler } from './scheduler.ts';

/** A container key that knows the type it resolves to. `Symbol.for`, so every module naming one gets the same. */
export type Token<T> = symbol & { readonly __resolves?: T };
const token = <T>(name: string): Token<T> => Symbol.for(name) as Token<T>;

/** Typed lookups: `resolve(container, TOKENS.Clock)` is a Clock, without a cast at the call site. */
export const resolve = <T>(container: Container, key: Token<T>): T => container.get<T>(key);
export const resolveAll = <T>(container: Container, key: Token<T>): T[] => container.getAll<T>(key);

/** The repositories outside any transaction (each call commits on its own); `uow.run` hands out the others. */
export type Repositories = Omit<Transaction, 'afterCommit'>;

export interface HttpServerRef {
  server: Server | null;
}

export interface HealthCheckBinding {
  name: string;
  /** Throws when unhealthy; may resolve with details shown under the health answer's `details`. */
  check(): Promise<void | Record<string, unknown>>;
}

export interface LifecycleBinding {
  name: string;
  /** Which roles run it. */
  roles: ('api' | 'worker')[];
  start(): Promise<void>;
  /**
   * Optional: runs before the HTTP server closes. Long-lived connections (WebSockets) end here;
   * server.close() waits for every connection, upgraded ones included, so it would never return.
   */
  beforeServerClose?(): Promise<void>;
  stop(): Promise<void>;
}

/** A user's queued and running jobs in their API shape (GenerationJob), for the socket's `job.snapshot`. */
export type ActiveJobsSnapshot = (userId: string) => Promise<unknown[]>;

/** Every container key of the application, in one place. */
export const TOKENS = {
  Config: token<Readonly<Config>>('Config'),
  Logger: token<Logger>('Logger'),
  Clock: token<Clock>('Clock'),
  Ids: token<IdGenerator>('IdGenerator'),
  Database: token<SequelizeDatabase>('SequelizeDatabase'),
  UnitOfWork: token<UnitOfWork>('UnitOfWork'),
  Repositories: token<Repositories>('Repositories'),
  Cache: token<Cache>('Cache'),
  PasswordHasher: token<PasswordHasher>('PasswordHasher'),
  TokenIssuer: token<TokenIssuer>('TokenIssuer'),
  Authenticate: token<Authenticate>('Authenticate'),
  /** `mgs_…` API keys on the authenticated request path (api-keys.module.ts). */
  AuthenticateApiKey: token<AuthenticateApiKey>('AuthenticateApiKey'),
  AuthenticateSocket: token<AuthenticateSocket>('AuthenticateSocket'),
  SessionRevocations: token<SessionRevocations>('SessionRevocations'),
  /** Deleting accounts and purging them (account-deletion.module.ts), for the operator's command line. */
  AccountDeletion: token<AccountDeletion>('AccountDeletion'),
  /** The configured OpenID Connect providers (oidc.module.ts). */
  OidcProviders: token<OidcProviders>('OidcProviders'),
  /** The `Idempotency-Key` responder shared by the coin routes and POST /generate. */
  Idempotency: token<IdempotentResponder>('IdempotentResponder'),
  /** ObjectStorage port, chosen by STORAGE_DRIVER (storage.module.ts). */
  ObjectStorage: token<ObjectStorage>('ObjectStorage'),
  /** MessageQueue port, chosen by QUEUE_DRIVER (queue.module.ts). */
  Queue: token<MessageQueue>('MessageQueue'),
  /** The outbox table as relays see it (lease, mark, purge). */
  Outbox: token<Outbox>('Outbox'),
  /** OutboxRelayLoop: `flush()` relays now (tests, shutdown paths); also bound as a Lifecycle. */
  OutboxRelay: token<OutboxRelayLoop>('OutboxRelay'),
  /** The one periodic scheduler: it runs the features' TOKENS.ScheduledTasks. */
  Scheduler: token<Scheduler>('Scheduler'),
  /** The process's Prometheus metrics (metrics.module.ts); null when METRICS_TOKEN and METRICS_PORT are unset. */
  Metrics: token<PromMetrics | null>('PromMetrics'),
  /** What the use cases count: the metrics above, or a no-op when they are off. */
  JobMetrics: token<JobMetrics>('JobMetrics'),
  /** A template version's workflow, map, cost and output type, for generation and history. */
  GetTemplateVersion: token<GetTemplateVersion>('GetTemplateVersion'),
  /** The API role's node:http server (null in a worker-only process), for WebSocket upgrades. */
  HttpServer: token<HttpServerRef>('HttpServer'),
  /** Multi-bound: every feature adds its HTTP routes. */
  RouteModule: token<RouteModule>('RouteModule'),
  /** Multi-bound: what an optional feature adds to `GET /features` (login providers, platforms, chat). */
  FeatureContribution: token<FeatureContribution>('FeatureContribution'),
  /** Multi-bound: `{ name, check }` for the health route. */
  HealthCheck: token<HealthCheckBinding>('HealthCheck'),
  /** Multi-bound: background parts started after migrations and stopped on shutdown, in reverse order. */
  Lifecycle: token<LifecycleBinding>('Lifecycle'),
  /** Fan-out of user events, session revocations and cancel requests between processes. */
  EventBus: token<EventBus>('EventBus'),
  /** Records user events in a transaction and fans them out after it commits. */
  UserEventLog: token<UserEventLog>('UserEventLog'),
  ActiveJobsSnapshot: token<ActiveJobsSnapshot>('ActiveJobsSnapshot'),
  Engine: token<WorkflowEngine>('WorkflowEngine'),
  /** Bound only when the engine's node classes should vet templates (ENGINE_DRIVER=comfyui). */
  NodeCatalog: token<NodeCatalog>('NodeCatalog'),
  JobPayment: token<JobPayment>('JobPayment'),
  /** Stores an input image (POST /uploads, and the Comfy API v2 asset upload, ADR 042). */
  StoreUpload: token<StoreUpload>('StoreUpload'),
  /** Multi-bound, one entry per feature: the worker's handlers of task types (generation, publish); one consumer serves them all. */
  TaskHandlers: token<TaskHandlerBinding[]>('TaskHandlers'),
  /** Multi-bound, one entry per feature: its periodic work, added to the scheduler when the scheduler is resolved. */
  ScheduledTasks: token<ScheduledTask[]>('ScheduledTasks'),
} as const;

/** How the worker handles messages of one task type, and ends their work when they go to the dead letters. */
export interface TaskHandlerBinding {
  taskType: TaskType;
  handle(message: DeliveredMessage): Promise<HandlerOutcome>;
  onDeadLetter(message: DeliveredMessage, reason: string): Promise<void>;
}
