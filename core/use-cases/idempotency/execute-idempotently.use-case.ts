import { fail, ok, validationFailed, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore, StoredResponse } from '../../ports/idempotency-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export const IDEMPOTENCY_KEY_MAX = 128;

export interface ExecuteIdempotentlyDeps {
  store: IdempotencyStore;
  uow: UnitOfWork;
  ids: IdGenerator;
  clock: Clock;
  sleep(ms: number): Promise<void>;
  /** Whether a response is final and may be replayed; one that is not (a server error) frees the key for a retry. */
  remember(response: StoredResponse): boolean;
  /** How long a key is remembered (24 h). */
  ttlSeconds: number;
  /** How long a repeat waits for the first request with its key to finish (about 10 s). */
  waitMs: number;
  pollMs: number;
  /** A claim still pending after this long belongs to a request that died; it may be taken over. */
  abandonedAfterSeconds: number;
}

export interface IdempotentRequest {
  userId: string;
  key: string;
  /** Hash of what was asked (method, path, canonical body): the same key with another fingerprint is a conflict. */
  fingerprint: string;
  /** Produces the response. It runs inside a unit of work that also stores the response, so the change and
   * its remembered response commit together; a response `remember` refuses, or a throw, leaves the key free. */
  run(): Promise<StoredResponse>;
}

export interface IdempotentOutcome {
  response: StoredResponse;
  /** True when this is the stored response of an earlier request. */
  replayed: boolean;
}

/** Thrown inside the unit of work to roll the change back when the claim was taken over meanwhile. */
class ClaimLost extends Error {}

/**
 * Runs a request at most once per (user, key) within the TTL. Two concurrent requests with one key:
 * the unique claim picks a winner; the other waits for the winner's stored response and replays it.
 */
export class ExecuteIdempotently {
  constructor(private readonly deps: ExecuteIdempotentlyDeps) {}

  async execute(input: IdempotentRequest): Promise<Result<IdempotentOutcome>> {
    if (input.key.length === 0 || input.key.length > IDEMPOTENCY_KEY_MAX) {
      return validationFailed([{ field: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` }]);
    }
    const { store, sleep, waitMs, pollMs } = this.deps;
    const maxPolls = Math.max(1, Math.ceil(waitMs / pollMs));
    let existing: IdempotencyRecord | null = null;
    for (let attempt = 0; ; attempt++) {
      const claim = this.newClaim(input);
      if (existing === null) {
        const outcome = await store.claim(claim);
        if (outcome.claimed) return this.runClaimed(claim, input.run);
        existing = outcome.existing;
      }
      const now = claim.claimedAt;
      const expired = existing.expiresAt.getTime() <= now.getTime();
      if (!expired && existing.fingerprint !== input.fingerprint) {
        return fail('IDEMPOTENCY.KEY_REUSED', 'This Idempotency-Key was already used for a different request');
      }
      if (!expired && existing.response) return ok({ response: existing.response, replayed: true });
      if (expired || this.abandoned(existing, now)) {
        if (await store.replace(existing, claim)) return this.runClaimed(claim, input.run);
      } else if (attempt >= maxPolls) {
        return fail('IDEMPOTENCY.IN_PROGRESS', 'A request with this Idempotency-Key is still in progress; retry later');
      } else {
        await sleep(pollMs);
      }
      // Gone (the first request failed and released it): the next turn claims it for this request.
      existing = await store.find(input.userId, input.key);
    }
  }

  private newClaim(input: IdempotentRequest): IdempotencyClaim {
    const claimedAt = this.deps.clock.now();
    return {
      userId: input.userId,
      key: input.key,
      fingerprint: input.fingerprint,
      token: this.deps.ids.newId(),
      claimedAt,
      expiresAt: new Date(claimedAt.getTime() + this.deps.ttlSeconds * 1000),
    };
  }

  private abandoned(record: IdempotencyRecord, now: Date): boolean {
    return record.response === null && now.getTime() - record.claimedAt.getTime() >= this.deps.abandonedAfterSeconds * 1000;
  }

  private async runClaimed(claim: IdempotencyClaim, run: () => Promise<StoredResponse>): Promise<Result<IdempotentOutcome>> {
    const { store, uow, clock } = this.deps;
    let response: StoredResponse;
    try {
      response = await uow.run(async () => {
        const produced = await run();
        if (!this.deps.remember(produced)) return produced;
        if (!(await store.complete(claim, produced, clock.now()))) throw new ClaimLost();
        return produced;
      });
    } catch (error) {
      // A failed release only delays a retry until the claim counts as abandoned; the first error matters more.
      await store.release(claim).catch(() => undefined);
      if (error instanceof ClaimLost) {
        return fail('IDEMPOTENCY.IN_PROGRESS', 'Another request with this Idempotency-Key took over; retry to get its response');
      }
      throw error;
    }
    if (!this.deps.remember(response)) await store.release(claim);
    return ok({ response, replayed: false });
  }
}
