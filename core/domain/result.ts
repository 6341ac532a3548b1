/**
 * Expected outcomes are values, not exceptions. A use case returns `Result`; only
 * unexpected failures throw. Codes are stable strings that the HTTP adapter maps to statuses.
 */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Fail<C extends string = ErrorCode> {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
  readonly details?: FieldProblem[];
}

export type Result<T, C extends string = ErrorCode> = Ok<T> | Fail<C>;

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });

export const fail = <C extends string = ErrorCode>(code: C, message: string, details?: FieldProblem[]): Fail<C> =>
  details && details.length > 0 ? { ok: false, code, message, details } : { ok: false, code, message };

export const validationFailed = (details: FieldProblem[], message = 'Validation failed'): Fail<'VALIDATION.FAILED'> =>
  fail('VALIDATION.FAILED', message, details);

/** Every code a use case may return. The HTTP error table maps each to a status. */
export const ERROR_CODES = [
  'VALIDATION.FAILED',
  'AUTH.INVALID_CREDENTIALS',
  'AUTH.UNAUTHENTICATED',
  'AUTH.FORBIDDEN',
  'AUTH.RATE_LIMITED',
  'AUTH.UNKNOWN_PROVIDER',
  'USER.EMAIL_TAKEN',
  'NOT_FOUND',
  'CONFLICT',
  'IDEMPOTENCY.KEY_REUSED',
  'IDEMPOTENCY.IN_PROGRESS',
  'COIN.INSUFFICIENT',
  'TEMPLATE.NAME_TAKEN',
  'JOB.FINISHED',
  'JOB.TOO_MANY_ACTIVE',
  'QUEUE.FULL',
  'PAYLOAD.TOO_LARGE',
  'UPSTREAM.FAILED',
  'UPSTREAM.TIMEOUT',
  'INTEGRATION.NOT_CONFIGURED',
  'RATE_LIMITED',
  'ASSET.MISSING',
  'ASSET.HASH_MISMATCH',
  'ASSET.IN_USE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
