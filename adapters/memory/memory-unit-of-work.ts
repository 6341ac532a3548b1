import type { Outbox } from '../../core/ports/outbox.port.ts';
import type { Transaction, UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import { MemoryApiKeyRepository } from './memory-api-key-repository.ts';
import { MemoryAuditLog } from './memory-audit-log.ts';
import { MemoryCoinLedger } from './memory-coin-ledger.ts';
import { MemoryLinkedDeductions } from './memory-linked-deductions.ts';
import { MemoryHistoryRepository } from './memory-history-repository.ts';
import { MemoryIdentityRepository } from './memory-identity-repository.ts';
import { MemoryPublicationRepository } from './memory-publication-repository.ts';
import { MemorySocialConnectionRepository } from './memory-social-connection-repository.ts';
import { MemoryIdempotencyStore } from './memory-idempotency-store.ts';
import { MemoryJobRepository } from './memory-job-repository.ts';
import { MemoryOutbox, MemoryOutboxSignal } from './memory-outbox.ts';
import { MemorySessionRepository } from './memory-session-repository.ts';
import { MemoryStagedOutputs } from './memory-staged-outputs.ts';
import type { MemoryStore } from './memory-store.ts';
import { MemoryTemplateRepository } from './memory-template-repository.ts';
import { MemoryUploadRepository } from './memory-upload-repository.ts';
import { MemoryUserEventStore } from './memory-user-event-store.ts';
import { MemoryUserRepository } from './memory-user-repository.ts';
import { MemoryWebhookDeliveryRepository } from './memory-webhook-delivery-repository.ts';

type Repositories = Omit<Transaction, 'afterCommit'>;
type Hook = () => void | Promise<void>;

/** The memory repositories over one store; their methods run without awaiting in between, so each call is atomic. */
function memoryRepositories(store: MemoryStore, signal: MemoryOutboxSignal, afterCommit: (hook: Hook) => void): Repositories {
  return {
    users: new MemoryUserRepository(store),
    sessions: new MemorySessionRepository(store),
    ledger: new MemoryCoinLedger(store),
    deductions: new MemoryLinkedDeductions(store),
    jobs: new MemoryJobRepository(store),
    history: new MemoryHistoryRepository(store),
    staged: new MemoryStagedOutputs(store),
    outbox: new MemoryOutbox(store, signal, afterCommit),
    audit: new MemoryAuditLog(store),
    idempotency: new MemoryIdempotencyStore(store),
    templates: new MemoryTemplateRepository(store),
    uploads: new MemoryUploadRepository(store),
    events: new MemoryUserEventStore(store),
    identities: new MemoryIdentityRepository(store),
    connections: new MemorySocialConnectionRepository(store),
    publications: new MemoryPublicationRepository(store),
    apiKeys: new MemoryApiKeyRepository(store),
    webhooks: new MemoryWebhookDeliveryRepository(store),
  };
}

/** Port methods that are synchronous and touch no stored state (a listener registration). */
const SYNCHRONOUS = new Set<PropertyKey>(['onNotify']);

/** Each method call of `repository` as a transaction of its own (alone, under the store's lock). */
function autocommitted<T extends object>(repository: T, store: MemoryStore): T {
  return new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || SYNCHRONOUS.has(property)) return value;
      return (...args: unknown[]) => store.exclusive(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}

/**
 * The UnitOfWork port in memory, with a real rollback: a transaction runs alone on the store and starts
 * from a snapshot that is put back when it throws. After-commit hooks run once it has returned.
 */
export class MemoryUnitOfWork implements UnitOfWork {
  /** The repositories outside any transaction: each call is atomic and waits for a running transaction. */
  readonly autocommit: Repositories;
  /** The outbox as relays see it. */
  readonly outbox: Outbox;
  readonly signal = new MemoryOutboxSignal();
  private readonly inTransaction: Repositories;
  private hooks: Hook[] | null = null;

  constructor(
    private readonly store: MemoryStore,
    private readonly onHookError: (error: unknown) => void = () => undefined,
  ) {
    const now = (hook: Hook) => void this.runHooks([hook]);
    const raw = memoryRepositories(store, this.signal, now);
    this.autocommit = Object.fromEntries(Object.entries(raw).map(([name, repository]) => [name, autocommitted(repository, store)])) as unknown as Repositories;
    this.outbox = autocommitted(new MemoryOutbox(store, this.signal, now), store);
    this.inTransaction = memoryRepositories(store, this.signal, (hook) => this.hooks!.push(hook));
  }

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const hooks: Hook[] = [];
    const result = await this.store.transaction(async () => {
      // One transaction at a time per store, so the hooks of the running one are simply these.
      this.hooks = hooks;
      try {
        return await work({ ...this.inTransaction, afterCommit: (hook: Hook) => hooks.push(hook) });
      } finally {
        this.hooks = null;
      }
    });
    await this.runHooks(hooks);
    return result;
  }

  private runHooks(hooks: Hook[]): Promise<void> {
    return this.store.outside(async () => {
      for (const hook of hooks) {
        try {
          await hook();
        } catch (error) {
          this.onHookError(error);
        }
      }
    });
  }
}
