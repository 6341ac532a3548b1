import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Schema } from 'express-validator';
import type { ErrorCode, Fail } from '../../core/domain/result.ts';
import type { StoredResponse } from '../../core/ports/idempotency-store.port.ts';
import { IDEMPOTENCY_KEY_MAX, type ExecuteIdempotently } from '../../core/use-cases/idempotency/execute-idempotently.use-case.ts';
import { errorBody, sendFail, STATUS_BY_CODE } from './error-table.ts';

/**
 * `Idempotency-Key` support for any state-changing route: spread `idempotencyKeyValidation` into the
 * route's `validate` and `idempotencyKeyHeader` into its `headers`, then answer through
 * `respondIdempotently(req, res, idempotency, produce)` where `produce` calls the use case and returns
 * `{ status, body }` (`failureResponse(result)` for a failed Result). `produce` runs inside a unit of
 * work together with storing its response; a 5xx or a throw is not remembered.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

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

/** JSON with object keys sorted at every level, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Method, path below the API prefix (so /api and /api/v1 agree) and canonical body. */
export const requestFingerprint = (req: Request): string =>
  createHash('sha256').update(`${req.method}\n${req.path}\n${canonicalJson(req.body ?? null)}`).digest('hex');

/** A server error is not an answer to remember: the same request may succeed when retried. */
export const rememberResponse = (response: StoredResponse): boolean => response.status < 500;

export function failureResponse(failure: Fail<string>): StoredResponse {
  const status = STATUS_BY_CODE[failure.code as ErrorCode] ?? 500;
  return { status, body: errorBody(status, failure.message, failure.details) };
}

const send = (res: Response, response: StoredResponse): void => {
  res.status(response.status).json(response.body);
};

export async function respondIdempotently(
  req: Request,
  res: Response,
  idempotency: ExecuteIdempotently,
  produce: () => Promise<StoredResponse>,
): Promise<void> {
  const key = req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) return send(res, await produce());
  const result = await idempotency.execute({ userId: req.principal!.userId, key, fingerprint: requestFingerprint(req), run: produce });
  if (!result.ok) return sendFail(res, result);
  if (result.value.replayed) res.setHeader(REPLAYED_HEADER, 'true');
  send(res, result.value.response);
}
