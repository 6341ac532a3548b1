import type { CoinReason, CoinTransaction } from '../domain/coin.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';

export interface LedgerEntry {
  id: string;
  userId: string;
  /** Signed: negative deducts. */
  amount: number;
  reason: CoinReason;
  relatedEntityId: string | null;
  actorId: string | null;
  createdAt: Date;
}

export type LedgerApplyResult =
  | { ok: true; transaction: CoinTransaction }
  | { ok: false; reason: 'insufficient' | 'user_not_found' };

export interface CoinLedger {
  /** A conditional balance update (never below zero) plus one ledger row. Call it inside a unit of
   * work when other writes must commit with it; on its own it is still atomic. */
  apply(entry: LedgerEntry): Promise<LedgerApplyResult>;
  list(userId: string, request: PageRequest): Promise<Page<CoinTransaction>>;
  /** The user's ledger rows linked to `relatedEntityId` (a request id, a job id), oldest first. */
  findByRelatedEntity(userId: string, relatedEntityId: string): Promise<CoinTransaction[]>;
  /** Sum of a user's ledger amounts (an audit: it must always equal the balance). */
  sum(userId: string): Promise<number>;
}
