/**
 * The API client, following API.md §0–§1: cookies carry the session, every state-changing request copies
 * the `XSRF-TOKEN` cookie into `X-XSRF-TOKEN`, and a 401 triggers one `POST /auth/refresh` (shared by
 * every request that hit it at once) and one retry.
 */
export const API = '/api/v1';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: { field: string; message: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** A rate limit's Retry-After, in seconds (the API sends one with every 429); null without one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(body.details?.length ? `${body.message}: ${body.details.map((d) => `${d.field} ${d.message}`).join('; ')}` : body.message);
  }
}

/** What to tell the user of a failed request: the server's message (with how long to wait, past a limit), or that it could not be reached. */
export function errorText(failure: unknown): string {
  if (!(failure instanceof ApiError)) return 'The service could not be reached.';
  return failure.retryAfterSeconds ? `${failure.message.replace(/\.$/, '')}. Wait ${waitText(failure.retryAfterSeconds)} before trying again.` : failure.message;
}

/** A wait in the unit a person counts it in, rounded up: "45 seconds", "15 minutes", "1 hour". */
function waitText(seconds: number): string {
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return count(Math.ceil(seconds), 'second');
  const minutes = Math.ceil(seconds / 60);
  return minutes < 60 ? count(minutes, 'minute') : count(Math.ceil(minutes / 60), 'hour');
}

export interface User {
  id: string;
  email: string;
  displayName: string;
  role: 'user' | 'admin';
  coinBalance: number;
  createdAt: string;
}

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NO_REFRESH = new Set(['/auth/login', '/auth/register', '/auth/refresh', '/auth/password-reset']);

export interface RequestOptions {
  body?: unknown;
  idempotencyKey?: string;
}

let refreshing: Promise<boolean> | null = null;
/** Called when the session is gone for good (refresh refused). */
export let onSignedOut: () => void = () => undefined;
export function setSignedOutHandler(handler: () => void): void {
  onSignedOut = handler;
}

/** One refresh at a time; concurrent 401s wait for the same one. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= send('POST', '/auth/refresh', {})
    .then((res) => res.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  if (UNSAFE.has(method)) {
    const xsrf = readCookie('XSRF-TOKEN');
    if (xsrf) headers['x-xsrf-token'] = xsrf;
  }
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  return fetch(`${API}${path}`, { method, headers, body, credentials: 'same-origin' });
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  let res = await send(method, path, options);
  if (res.status === 401 && !NO_REFRESH.has(path)) {
    if (await refreshSession()) res = await send(method, path, options);
    if (res.status === 401) onSignedOut();
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorBodyOf(res, text), retryAfterOf(res));
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Retry-After as the API sends it, whole seconds; null when absent or not a number (an HTTP-date from a proxy). */
function retryAfterOf(res: Response): number | null {
  const seconds = Number(res.headers.get('retry-after') ?? '');
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** The service's error body; else (no body, or a proxy's page) the status text, so the user still learns what happened. */
function errorBodyOf(res: Response, text: string): ErrorBody {
  try {
    const parsed = JSON.parse(text) as Partial<ErrorBody> | null;
    if (typeof parsed?.message === 'string') return parsed as ErrorBody;
  } catch {
    // Not JSON: told by its status below.
  }
  const reason = res.statusText || `Error ${res.status}`;
  return { statusCode: res.status, error: reason, message: reason };
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown, idempotencyKey?: string) => request<T>('POST', path, { body: body ?? {}, idempotencyKey }),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, { body }),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, { body }),
  delete: (path: string) => request<void>('DELETE', path),
  upload: <T>(path: string, form: FormData) => request<T>('POST', path, { body: form }),
};

export const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};
