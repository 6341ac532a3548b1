import type { Response } from 'express';
import type { ErrorCode, Fail, FieldProblem } from '../../core/domain/result.ts';

/** The one table from use-case codes to HTTP statuses. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  'VALIDATION.FAILED': 400,
  'AUTH.INVALID_CREDENTIALS': 401,
  'AUTH.UNAUTHENTICATED': 401,
  'AUTH.FORBIDDEN': 403,
  'AUTH.RATE_LIMITED': 429,
  'AUTH.UNKNOWN_PROVIDER': 404,
  'USER.EMAIL_TAKEN': 409,
  NOT_FOUND: 404,
  CONFLICT: 409,
  'IDEMPOTENCY.KEY_REUSED': 409,
  'IDEMPOTENCY.IN_PROGRESS': 409,
  'COIN.INSUFFICIENT': 402,
  'TEMPLATE.NAME_TAKEN': 409,
  'JOB.FINISHED': 409,
  'JOB.TOO_MANY_ACTIVE': 429,
  'QUEUE.FULL': 429,
  'PAYLOAD.TOO_LARGE': 413,
  'UPSTREAM.FAILED': 502,
  'UPSTREAM.TIMEOUT': 504,
  'INTEGRATION.NOT_CONFIGURED': 503,
  RATE_LIMITED: 429,
  // A workflow's core/ASSET reference names nothing of the caller's: a bad workflow here, v2's 422 missing_asset (ADR 042).
  'ASSET.MISSING': 400,
  'ASSET.HASH_MISMATCH': 409,
  'ASSET.IN_USE': 409,
};

const REASON: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: FieldProblem[];
  requestId?: string;
}

export const errorBody = (statusCode: number, message: string, details?: FieldProblem[]): ErrorBody => ({
  statusCode,
  error: REASON[statusCode] ?? 'Error',
  message,
  ...(details && details.length > 0 ? { details } : {}),
});

/** An error raised by the HTTP layer itself (middleware), rendered by the error handler. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendError(res: Response, statusCode: number, message: string, details?: FieldProblem[]): void {
  res.status(statusCode).json(errorBody(statusCode, message, details));
}

/** The use-case code each refused response was sent for: a surface rendering errors its own way (the Comfy API v2, ADR 040) needs more than the status. */
const failCodes = new WeakMap<Response, string>();
export const failCodeOf = (res: Response): string | undefined => failCodes.get(res);

export function sendFail(res: Response, failure: Fail<string>): void {
  failCodes.set(res, failure.code);
  const status = STATUS_BY_CODE[failure.code as ErrorCode] ?? 500;
  sendError(res, status, failure.message, failure.details);
}
