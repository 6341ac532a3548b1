import type { ApiKeyRepository } from './api-key-repository.port.ts';
import type { AuditLog } from './audit-log.port.ts';
import type { CoinLedger } from './coin-ledger.port.ts';
import type { LinkedDeductions } from './linked-deductions.port.ts';
import type { HistoryRepository } from './history-repository.port.ts';
import type { IdentityRepository } from './identity-repository.port.ts';
import type { IdempotencyStore } from './idempotency-store.port.ts';
import type { JobRepository } from './job-repository.port.ts';
import type { OutboxWriter } from './outbox.port.ts';
import type { PublicationRepository } from './publication-repository.port.ts';
import type { SocialConnectionRepository } from './social-connection-repository.port.ts';
import type { SessionRepository } from './session-repository.port.ts';
import type { StagedOutputs } from './staged-outputs.port.ts';
import type { TemplateRepository } from './template-repository.port.ts';
import type { UploadRepository } from './upload-repository.port.ts';
import type { UserEventStore } from './user-events.port.ts';
import type { UserRepository } from './user-repository.port.ts';
import type { WebhookDeliveryRepository } from './webhook-delivery-repository.port.ts';

/**
 * The repositories of one transaction. Every call made through them commits together or not at all;
 * a function that must join its caller's transaction says so by taking a `Transaction` parameter
 * (nesting is visible in the types; there is no ambient transaction).
 */
export interface Transaction {
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly ledger: CoinLedger;
  readonly deductions: LinkedDeductions;
  readonly jobs: JobRepository;
  readonly history: HistoryRepository;
  readonly staged: StagedOutputs;
  readonly outbox: OutboxWriter;
  readonly audit: AuditLog;
  readonly idempotency: IdempotencyStore;
  readonly templates: TemplateRepository;
  readonly uploads: UploadRepository;
  readonly events: UserEventStore;
  readonly identities: IdentityRepository;
  readonly connections: SocialConnectionRepository;
  readonly publications: PublicationRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly webhooks: WebhookDeliveryRepository;
  /**
   * Runs `hook` once this transaction has committed, never when it rolls back: notifications, bus
   * publishes and socket fan-out go here, so nobody hears of a change that did not happen. A hook that
   * throws is reported by the adapter and does not undo the commit.
   */
  afterCommit(hook: () => void | Promise<void>): void;
}

export interface UnitOfWork {
  /**
   * Runs `work` in a new transaction: it commits when `work` resolves and rolls back when it throws.
   * `work` may run more than once when the database asks for a retry (a deadlock), so it must keep every
   * effect outside the database in `afterCommit` hooks. Calling `run` again from inside `work` is an
   * error: pass `tx` to the code that must join.
   */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/**
 * Writes a caller adds to a use case's own transaction, so they commit with its change or not at all
 * (an HTTP layer's remembered response for an Idempotency-Key, an embedder's bookkeeping). Throwing
 * rolls the change back.
 */
export type CommitHook<T> = (tx: Transaction, value: T) => Promise<void>;
