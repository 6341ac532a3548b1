import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { PlatformError } from '../../core/ports/social-platform.port.ts';

/** What a platform answered: status, headers and the body as text (uploads answer small JSON bodies). */
export interface PlatformResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Retry-After in seconds (at most an hour): delay-seconds, or an HTTP-date (RFC 9110) counted from `now`; null when neither. */
export const retryAfter = (headers: IncomingHttpHeaders, now = Date.now()): number | null => {
  const raw = headers['retry-after']?.trim() ?? '';
  if (/^\d+$/.test(raw)) return Math.min(Number(raw), 3600);
  // An HTTP-date names its day and month ("Wed, 21 Oct 2015 07:28:00 GMT"); a bare "-1" or "1.5" is no date.
  const at = /[a-z]/i.test(raw) ? Date.parse(raw) : NaN;
  return Number.isFinite(at) ? Math.min(Math.max(Math.ceil((at - now) / 1000), 0), 3600) : null;
};

/**
 * One HTTP exchange with a platform, by node:http(s) (a streamed request body with an exact Content-Length,
 * which fetch cannot send). A network failure or an idle socket becomes a transient PlatformError; the
 * answer is returned whatever its status, for the caller to judge.
 */
export function platformRequest(
  url: string,
  init: { method: string; headers: Record<string, string | number>; body?: Buffer | string | Readable; idleTimeoutMs: number },
): Promise<PlatformResponse> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, { method: init.method, headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => reject(new PlatformError('transient', `${target.host}: ${error.message}`)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.setTimeout(init.idleTimeoutMs, () => req.destroy(new Error(`no answer within ${init.idleTimeoutMs} ms`)));
    req.on('error', (error) => reject(error instanceof PlatformError ? error : new PlatformError('transient', `${target.host}: ${error.message}`)));
    const body = init.body;
    if (body === undefined) req.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else {
      body.on('error', (error) => req.destroy(new PlatformError('transient', `reading the file: ${error.message}`)));
      body.pipe(req);
    }
  });
}

export const formBody = (fields: Record<string, string>): { body: string; headers: Record<string, string | number> } => {
  const body = new URLSearchParams(fields).toString();
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } };
};

export const jsonBody = (value: unknown): { body: string; headers: Record<string, string | number> } => {
  const body = JSON.stringify(value);
  return { body, headers: { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) } };
};

export const parseJson = (response: PlatformResponse): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(response.text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** The platform's own words for an error, bounded (never a token: platforms do not echo them). */
export const errorText = (response: PlatformResponse): string => {
  const json = parseJson(response);
  const error = json.error;
  const nested = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : null;
  const words = [nested?.code, nested?.message, typeof error === 'string' ? error : null, json.error_description, json.message]
    .filter((part): part is string => typeof part === 'string' && part.length > 0 && part !== 'ok');
  return (words.length > 0 ? words.join(': ') : response.text || `HTTP ${response.status}`).slice(0, 300);
};

/**
 * A non-success answer as a PlatformError: 5xx, 408 and 429 are transient, 401 means the authorization is
 * gone, an OAuth `invalid_grant` too, anything else is the platform refusing this request.
 */
export function failure(response: PlatformResponse, what: string): PlatformError {
  const text = `${what}: HTTP ${response.status} ${errorText(response)}`;
  if (response.status >= 500 || response.status === 408 || response.status === 429) return new PlatformError('transient', text, retryAfter(response.headers));
  if (response.status === 401 || parseJson(response).error === 'invalid_grant') return new PlatformError('unauthorized', text);
  return new PlatformError('rejected', text);
}

export interface OAuthTokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  open_id?: unknown;
}

export const tokensOf = (json: OAuthTokenAnswer, what: string) => {
  if (typeof json.access_token !== 'string' || json.access_token.length === 0) throw new PlatformError('rejected', `${what}: the answer holds no access token`);
  return {
    accessToken: json.access_token,
    refreshToken: typeof json.refresh_token === 'string' && json.refresh_token.length > 0 ? json.refresh_token : null,
    expiresInSeconds: typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : null,
    accountId: typeof json.open_id === 'string' ? json.open_id : null,
    scope: typeof json.scope === 'string' ? json.scope : null,
  };
};

/** A fresh state and, for PKCE, a verifier (43 characters of base64url) with its S256 challenge. */
export function authorizationSecrets(pkce: boolean): { state: string; codeVerifier: string | null; codeChallenge: string | null } {
  const state = randomBytes(32).toString('base64url');
  if (!pkce) return { state, codeVerifier: null, codeChallenge: null };
  const codeVerifier = randomBytes(32).toString('base64url');
  return { state, codeVerifier, codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url') };
}
