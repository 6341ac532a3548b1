import type { Outbox, OutboxWriter } from '../../core/ports/outbox.port.ts';
import type { Transaction, UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { SequelizeApiKeyRepository } from './sequelize-api-key-repository.ts';
import { SequelizeAuditLog } from './sequelize-audit-log.ts';
import { SequelizeCoinLedger } from './sequelize-coin-ledger.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';
import { SequelizeLinkedDeductions } from './sequelize-linked-deductions.ts';
import { SequelizeHistoryRepository } from './sequelize-history-repository.ts';
import { SequelizeIdentityRepository } from './sequelize-identity-repository.ts';
import { SequelizePublicationRepository } from './sequelize-publication-repository.ts';
import { SequelizeSocialConnectionRepository } from './sequelize-social-connection-repository.ts';
import { SequelizeIdempotencyStore } from './sequelize-idempotency-store.ts';
import { SequelizeJobRepository } from './sequelize-job-repository.ts';
import { OutboxSignal, SequelizeOutbox } from './sequelize-outbox.ts';
import { SequelizeSessionRepository } from './sequelize-session-repository.ts';
import { SequelizeStagedOutputs } from './sequelize-staged-outputs.ts';
import { SequelizeTemplateRepository } from './sequelize-template-repository.ts';
import { SequelizeUploadRepository } from './sequelize-upload-repository.ts';
import { SequelizeUserEventStore } from './sequelize-user-event-store.ts';
import { SequelizeUserRepository } from './sequelize-user-repository.ts';
import { SequelizeWebhookDeliveryRepository } from './sequelize-webhook-delivery-repository.ts';
import type { SqlScope } from './sql-scope.ts';

/**
 * Every repository of the application database on one scope: `db.autocommit` for the container's
 * singletons, a transaction's scope inside `uow.run`. Built lazily: a transaction pays only for what it uses.
 */
export class SequelizeRepositories implements Omit<Transaction, 'afterCommit'> {
  private readonly made = new Map<string, unknown>();

  constructor(
    private readonly scope: SqlScope,
    private readonly writer: OutboxWriterFactory,
  ) {}

  private once<T>(name: string, make: () => T): T {
    let made = this.made.get(name) as T | undefined;
    if (made === undefined) {
      made = make();
      this.made.set(name, made);
    }
    return made;
  }

  get users() { return this.once('users', () => new SequelizeUserRepository(this.scope)); }
  get sessions() { return this.once('sessions', () => new SequelizeSessionRepository(this.scope)); }
  get ledger() { return this.once('ledger', () => new SequelizeCoinLedger(this.scope)); }
  get deductions() { return this.once('deductions', () => new SequelizeLinkedDeductions(this.scope)); }
  get jobs() { return this.once('jobs', () => new SequelizeJobRepository(this.scope)); }
  get history() { return this.once('history', () => new SequelizeHistoryRepository(this.scope)); }
  get staged() { return this.once('staged', () => new SequelizeStagedOutputs(this.scope)); }
  get outbox() { return this.once('outbox', () => this.writer(this.scope)); }
  get audit() { return this.once('audit', () => new SequelizeAuditLog(this.scope)); }
  get idempotency() { return this.once('idempotency', () => new SequelizeIdempotencyStore(this.scope)); }
  get templates() { return this.once('templates', () => new SequelizeTemplateRepository(this.scope)); }
  get uploads() { return this.once('uploads', () => new SequelizeUploadRepository(this.scope)); }
  get events() { return this.once('events', () => new SequelizeUserEventStore(this.scope)); }
  get identities() { return this.once('identities', () => new SequelizeIdentityRepository(this.scope)); }
  get connections() { return this.once('connections', () => new SequelizeSocialConnectionRepository(this.scope)); }
  get publications() { return this.once('publications', () => new SequelizePublicationRepository(this.scope)); }
  get apiKeys() { return this.once('apiKeys', () => new SequelizeApiKeyRepository(this.scope)); }
  get webhooks() { return this.once('webhooks', () => new SequelizeWebhookDeliveryRepository(this.scope)); }
}

/** Where a transaction of this adapter keeps its scope, for other parts of this adapter (the queue's `ackWith`). Not a port. */
const SCOPE = Symbol('sql-scope');

/** The scope of a transaction this adapter opened, or null (another adapter's transaction). */
export const sqlScopeOf = (tx: Transaction): SqlScope | null => ((tx as Partial<Record<typeof SCOPE, SqlScope>>)[SCOPE] ?? null);

class SequelizeTransaction extends SequelizeRepositories implements Transaction {
  readonly [SCOPE]: SqlScope;

  constructor(
    private readonly txScope: SqlScope,
    writer: OutboxWriterFactory,
  ) {
    super(txScope, writer);
    this[SCOPE] = txScope;
  }

  afterCommit(hook: () => void | Promise<void>): void {
    this.txScope.afterCommit(hook);
  }
}

/** How a scope's `outbox` writes: into the outbox table (a relay publishes it), or straight onto a queue in the same database. */
export type OutboxWriterFactory = (scope: SqlScope) => OutboxWriter;

/** The UnitOfWork port on Sequelize: `run` opens a transaction and hands out repositories bound to it. */
export class SequelizeUnitOfWork implements UnitOfWork {
  /** The repositories outside any transaction (each call commits on its own). */
  readonly autocommit: SequelizeRepositories;
  /** The outbox table as relays see it (this process's relays are woken when a transaction adds to it). */
  readonly outbox: Outbox;
  private readonly writer: OutboxWriterFactory;

  constructor(
    private readonly db: SequelizeDatabase,
    options: { outboxWriter?: OutboxWriterFactory } = {},
  ) {
    const signal = new OutboxSignal();
    this.writer = options.outboxWriter ?? ((scope) => new SequelizeOutbox(scope, signal));
    this.outbox = new SequelizeOutbox(db.autocommit, signal);
    this.autocommit = new SequelizeRepositories(db.autocommit, this.writer);
  }

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction((scope) => work(new SequelizeTransaction(scope, this.writer)));
  }
}
