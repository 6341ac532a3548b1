import { validationFailed, type FieldProblem, type Result, ok } from './result.ts';

export interface PageRequest {
  page: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** `page` default 1 (min 1), `limit` default 20 (1..100); anything else is a validation failure. */
export function parsePageRequest(query: { page?: unknown; limit?: unknown }): Result<PageRequest> {
  const problems: FieldProblem[] = [];
  const page = parseBoundedInt(query.page, 1, 1, Number.MAX_SAFE_INTEGER, 'page', problems);
  const limit = parseBoundedInt(query.limit, DEFAULT_LIMIT, 1, MAX_LIMIT, 'limit', problems);
  return problems.length > 0 ? validationFailed(problems) : ok({ page, limit });
}

function parseBoundedInt(value: unknown, fallback: number, min: number, max: number, field: string, problems: FieldProblem[]): number {
  if (value === undefined || value === '') return fallback;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text)) {
    problems.push({ field, message: `must be an integer from ${min} to ${max}` });
    return fallback;
  }
  const parsed = Number(text);
  if (parsed < min || parsed > max) {
    problems.push({ field, message: `must be an integer from ${min} to ${max}` });
    return fallback;
  }
  return parsed;
}

export const pageOf = <T>(items: T[], request: PageRequest, total: number): Page<T> => ({
  items,
  page: request.page,
  limit: request.limit,
  total,
  totalPages: Math.ceil(total / request.limit),
});

/**
 * How many rows a read of "at most `max`" takes, in every store: a whole number, and at least one (the SQL stores
 * write it into the statement's text, so it must be an integer; a batch read of none would make no progress).
 */
export const rowCount = (max: number): number => Math.max(1, Math.floor(max));

export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.limit;
