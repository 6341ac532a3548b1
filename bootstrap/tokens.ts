/** Container tokens. `Symbol.for` so every module that names a token gets the same one. */
export const TOKENS = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  Clock: Symbol.for('Clock'),
  Ids: Symbol.for('IdGenerator'),
  Database: Symbol.for('SequelizeDatabase'),
  UnitOfWork: Symbol.for('UnitOfWork'),
  Cache: Symbol.for('Cache'),
  UserRepository: Symbol.for('UserRepository'),
  SessionRepository: Symbol.for('SessionRepository'),
  CoinLedger: Symbol.for('CoinLedger'),
  PasswordHasher: Symbol.for('PasswordHasher'),
  TokenIssuer: Symbol.for('TokenIssuer'),
  Authenticate: Symbol.for('Authenticate'),
  IdempotencyStore: Symbol.for('IdempotencyStore'),
  /** ExecuteIdempotently: the `Idempotency-Key` use case shared by coin routes and POST /generate. */
  Idempotency: Symbol.for('ExecuteIdempotently'),
  AuditLog: Symbol.for('AuditLog'),
  /** ObjectStorage port, chosen by STORAGE_DRIVER (storage.module.ts). */
  ObjectStorage: Symbol.for('ObjectStorage'),
  UploadRepository: Symbol.for('UploadRepository'),
  /** MessageQueue port, chosen by QUEUE_DRIVER (queue.module.ts). */
  Queue: Symbol.for('MessageQueue'),
  /** Outbox port: add() inside the unit of work that makes the change, notify() after it. */
  Outbox: Symbol.for('Outbox'),
  /** OutboxRelayLoop: `flush()` relays now (tests, shutdown paths); also bound as a Lifecycle. */
  OutboxRelay: Symbol.for('OutboxRelay'),
  /** TemplateRepository port (templates.module.ts). */
  TemplateRepository: Symbol.for('TemplateRepository'),
  /** GetTemplateVersion use case: a template version's workflow, map, cost and output type, for generation and history. */
  GetTemplateVersion: Symbol.for('GetTemplateVersion'),
  /** `{ server }`: the API role's node:http server (null in a worker-only process), for WebSocket upgrades. */
  HttpServer: Symbol.for('HttpServer'),
  /** Multi-bound: every feature adds its HTTP routes. */
  RouteModule: Symbol.for('RouteModule'),
  /** Multi-bound: `{ name, check }` for the health route. */
  HealthCheck: Symbol.for('HealthCheck'),
  /** Multi-bound: background parts started after migrations and stopped on shutdown. */
  Lifecycle: Symbol.for('Lifecycle'),
  /** Per-user event log for WebSocket replay (UserEventStore). */
  UserEventStore: Symbol.for('UserEventStore'),
  /** Fan-out of user events from workers to every API instance (EventBus). */
  EventBus: Symbol.for('EventBus'),
  /** The PublishUserEvent use case: store an event for a user (gets its seq), then fan it out. */
  PublishUserEvent: Symbol.for('PublishUserEvent'),
  /** `ActiveJobsSnapshot`: a user's queued and running jobs for the socket's `job.snapshot`. Bound by the generation module. */
  ActiveJobsSnapshot: Symbol.for('ActiveJobsSnapshot'),
} as const;

export interface HttpServerRef {
  server: import('node:http').Server | null;
}

export interface HealthCheckBinding {
  name: string;
  check(): Promise<void>;
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

/** What TOKENS.ActiveJobsSnapshot resolves to: the user's queued and running jobs in their API shape (GenerationJob). */
export type ActiveJobsSnapshot = (userId: string) => Promise<unknown[]>;
