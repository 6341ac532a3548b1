import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Schema } from 'express-validator';
import { fail, type ErrorCode, type Fail } from '../../core/domain/result.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { IdGenerator } from '../../core/ports/id-generator.port.ts';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore, StoredResponse } from '../../core/ports/idempotency-store.port.ts';
import type { CommitHook } from '../../core/ports/unit-of-work.port.ts';
import { errorBody, sendFail, STATUS_BY_CODE } from './error-table.ts';
import { canonicalJson } from './json-shape.ts';

export { canonicalJson };

/**
 * `Idempotency-Key` for any state-changing route (API.md §2): spread `idempotencyKeyValidation` into the
 * route's `validate` and `idempotencyKeyHeader` into its `headers`, then answer through
 * `responder.respond(req, res, (commitWith) => ...)`. The producer passes `commitWith(toResponse)` to its use
 * case as `alsoCommit`: the response is then stored in the use case's own transaction, so the change and its
 * remembered response commit together (no fake nesting, no HTTP in the core). A response produced without a
 * commit (a 4xx: nothing changed) is stored afterwards; a 5xx or a throw frees the key for a retry.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 128;

export const idempotencyKeyValidation: Schema = {
  'idempotency-key': {
    in: ['headers'],
    optional: true,
    isLength: { options: { min: 1, max: IDEMPOTENCY_KEY_MAX }, errorMessage: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` },
  },
};

export const idempotencyKeyHeader = {
  [IDEMPOTENCY_HEADER]: {
    type: 'string',
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX,
    description: 'A repeat with the same key and body within 24 h returns the first response and changes nothing; the same key with another body gets 409.',
  },
};

/** Method, path below the API prefix (so /api and /api/v1 agree) and canonical body. */
export const requestFingerprint = (req: Request): string =>
  createHash('sha256').update(`${req.method}\n${req.path}\n${canonicalJson(req.body ?? null)}`).digest('hex');

/** A server error is not an answer to remember: the same request may succeed when retried. */
/** A server error or a "try again later" (429) is not the request's answer: the key stays free for a retry. */
export const rememberResponse = (response: StoredResponse): boolean => response.status < 500 && response.status !== 429;

/** A response as a route produces it: headers only on responses that are never stored (see rememberResponse). */
export type RouteResponse = StoredResponse & { headers?: Record<string, string> };

export function failureResponse(failure: Fail<string>): StoredResponse {
  const status = STATUS_BY_CODE[failure.code as ErrorCode] ?? 500;
  return { status, body: errorBody(status, failure.message, failure.details) };
}

/** Turns the use case's value into the response and stores it inside the use case's transaction. */
export type CommitResponse = <T>(toResponse: (value: T) => StoredResponse) => CommitHook<T> | undefined;

export interface IdempotentResponderOptions {
  store: IdempotencyStore;
  ids: IdGenerator;
  clock: Clock;
  sleep(ms: number): Promise<void>;
  /** How long a key is remembered (24 h). */
  ttlSeconds: number;
  /** How long a repeat waits for the first request with its key to finish (about 10 s). */
  waitMs: number;
  pollMs: number;
  /** A claim still pending after this long belongs to a request that died; it may be taken over. */
  abandonedAfterSeconds: number;
}

/** Thrown inside the use case's transaction to roll its change back when the claim was taken over meanwhile. */
class ClaimLost extends Error {}

const send = (res: Response, response: RouteResponse): void => {
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  res.status(response.status).json(response.body);
};

/**
 * Runs a request at most once per (user, key) within the TTL. Two concurrent requests with one key: the
 * unique claim picks a winner; the other waits for the winner's stored response and replays it.
 */
export class IdempotentResponder {
  constructor(private readonly options: IdempotentResponderOptions) {}

  async respond(req: Request, res: Response, produce: (commitWith: CommitResponse) => Promise<RouteResponse>): Promise<void> {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return send(res, await produce(() => undefined));
    const claimed = await this.claim(req.principal!.userId, key, requestFingerprint(req));
    if ('ok' in claimed) return sendFail(res, claimed);
    if ('replay' in claimed) {
      res.setHeader(REPLAYED_HEADER, 'true');
      return send(res, claimed.replay);
    }
    send(res, await this.runClaimed(claimed.claim, produce).catch((error: unknown) => {
      if (error instanceof ClaimLost) return failureResponse(fail('IDEMPOTENCY.IN_PROGRESS', 'Another request with this Idempotency-Key took over; retry to get its response'));
      throw error;
    }));
  }

  /** The key is ours to run, or there is a response to replay, or a refusal. */
  private async claim(userId: string, key: string, fingerprint: string): Promise<{ claim: IdempotencyClaim } | { replay: StoredResponse } | Fail> {
    const { store, sleep, waitMs, pollMs } = this.options;
    const maxPolls = Math.max(1, Math.ceil(waitMs / pollMs));
    let existing: IdempotencyRecord | null = null;
    for (let attempt = 0; ; attempt++) {
      const claim = this.newClaim(userId, key, fingerprint);
      if (existing === null) {
        const outcome = await store.claim(claim);
        if (outcome.claimed) return { claim };
        existing = outcome.existing;
      }
      const now = claim.claimedAt;
      const expired = existing.expiresAt.getTime() <= now.getTime();
      if (!expired && existing.fingerprint !== fingerprint) return fail('IDEMPOTENCY.KEY_REUSED', 'This Idempotency-Key was already used for a different request');
      if (!expired && existing.response) return { replay: existing.response };
      if (expired || this.abandoned(existing, now)) {
        if (await store.replace(existing, claim)) return { claim };
      } else if (attempt >= maxPolls) {
        return fail('IDEMPOTENCY.IN_PROGRESS', 'A request with this Idempotency-Key is still in progress; retry later');
      } else {
        await sleep(pollMs);
      }
      // Gone (the first request failed and released it): the next turn claims it for this request.
      existing = await store.find(userId, key);
    }
  }

  private async runClaimed(claim: IdempotencyClaim, produce: (commitWith: CommitResponse) => Promise<RouteResponse>): Promise<RouteResponse> {
    const { store, clock } = this.options;
    let stored = false;
    const commitWith: CommitResponse = (toResponse) => async (tx, value) => {
      const response = toResponse(value);
      if (!rememberResponse(response)) return;
      if (!(await tx.idempotency.complete(claim, response, clock.now()))) throw new ClaimLost();
      tx.afterCommit(() => {
        stored = true;
      });
    };
    let response: RouteResponse;
    try {
      response = await produce(commitWith);
    } catch (error) {
      // A failed release only delays a retry until the claim counts as abandoned; the first error matters more.
      await store.release(claim).catch(() => undefined);
      throw error;
    }
    if (stored) return response;
    // Nothing was committed with it (a refusal, or an answer about what already exists): remember it now.
    if (rememberResponse(response) && (await store.complete(claim, response, clock.now()))) return response;
    await store.release(claim);
    return response;
  }

  private newClaim(userId: string, key: string, fingerprint: string): IdempotencyClaim {
    const claimedAt = this.options.clock.now();
    return { userId, key, fingerprint, token: this.options.ids.newId(), claimedAt, expiresAt: new Date(claimedAt.getTime() + this.options.ttlSeconds * 1000) };
  }

  private abandoned(record: IdempotencyRecord, now: Date): boolean {
    return record.response === null && now.getTime() - record.claimedAt.getTime() >= this.options.abandonedAfterSeconds * 1000;
  }
}
