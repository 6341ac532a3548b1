/**
 * Remembers, per user and `Idempotency-Key`, the first request (by fingerprint) and its response.
 * A key is claimed by a unique insert before the request runs; `token` fences the claim, so a holder
 * that lost it (taken over after it was abandoned or expired) can no longer complete or release it.
 */
export interface StoredResponse {
  status: number;
  /** JSON-serializable. */
  body: unknown;
}

export interface IdempotencyClaim {
  userId: string;
  key: string;
  /** Hash of what the request asked for (method, path, body). */
  fingerprint: string;
  token: string;
  claimedAt: Date;
  expiresAt: Date;
}

export interface IdempotencyRecord extends IdempotencyClaim {
  /** Null while the first request is still running. */
  response: StoredResponse | null;
  completedAt: Date | null;
}

export type ClaimOutcome = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyStore {
  /** Inserts the claim unless (userId, key) already exists; then returns the existing record. */
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  find(userId: string, key: string): Promise<IdempotencyRecord | null>;
  /** Replaces the record only while it is still the one seen: same token and same completion state (so a
   * claim that completed meanwhile is never taken over as abandoned). For expired or abandoned claims. */
  replace(seen: Pick<IdempotencyRecord, 'token' | 'completedAt'>, claim: IdempotencyClaim): Promise<boolean>;
  /** Stores the response only while the claim is ours and still pending. Call it in the unit of work of the
   * change, so the change and its response commit together. */
  complete(claim: Pick<IdempotencyClaim, 'userId' | 'key' | 'token'>, response: StoredResponse, at: Date): Promise<boolean>;
  /** Deletes the claim if it is ours and still pending, so a retry can run. */
  release(claim: Pick<IdempotencyClaim, 'userId' | 'key' | 'token'>): Promise<void>;
  /** Deletes records whose expiresAt is at or before `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}
