import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { isApiKeyText, type ApiKeyScope } from '../../core/domain/api-key.ts';
import type { ApiKeyAuthentication } from '../../core/use-cases/api-keys/authenticate-api-key.use-case.ts';
import type { Authenticated } from '../../core/use-cases/auth/authenticate.use-case.ts';
import { ACCESS_COOKIE, XSRF_COOKIE, XSRF_HEADER } from './cookies.ts';
import { HttpError } from './error-table.ts';

export type AuthLevel = 'public' | 'access' | 'admin';

export interface Principal extends Authenticated {
  via: 'cookie' | 'bearer' | 'api-key';
  /** Set when the request came with an API key: its id and the scopes it holds now. */
  apiKey?: { id: string; scopes: ApiKeyScope[] };
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    requestId?: string;
  }
}

export interface AuthDeps {
  /** Claims and the user as stored now: a demoted administrator loses access at once (`user.role`, not the token's). */
  authenticate(token: string): Promise<Authenticated | null>;
  /** An `mgs_…` API key (ADR 035); without it keys are refused like any bad token. */
  authenticateKey?(key: string): Promise<ApiKeyAuthentication>;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function tokenFrom(req: Request): { token: string; via: 'cookie' | 'bearer' } | null {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return { token: header.slice(7).trim(), via: 'bearer' };
  const cookie = (req.cookies as Record<string, string> | undefined)?.[ACCESS_COOKIE];
  return cookie ? { token: cookie, via: 'cookie' } : null;
}

/** Double-submit check: the header must equal the cookie. Only cookie-authenticated requests can be forged. */
export function csrfOk(req: Request): boolean {
  const cookie = (req.cookies as Record<string, string> | undefined)?.[XSRF_COOKIE];
  const header = req.get(XSRF_HEADER);
  if (!cookie || !header) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(header);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * An API key in `Authorization: Bearer mgs_…`: valid now, within its rate, and holding the route's scope. Like any
 * bearer request it needs no CSRF header. A route with no scope (`keyScope` null) needs a session and refuses keys.
 */
async function keyPrincipal(deps: AuthDeps, key: string, keyScope: ApiKeyScope | null): Promise<Principal> {
  if (!deps.authenticateKey) throw new HttpError(401, 'API key is invalid');
  const outcome = await deps.authenticateKey(key);
  if (!outcome.ok && outcome.code === 'RATE_LIMITED') throw new HttpError(429, outcome.message, undefined, { 'Retry-After': String(outcome.retryAfterSeconds) });
  if (!outcome.ok) throw new HttpError(401, outcome.message);
  if (keyScope === null) throw new HttpError(403, 'This route does not accept API keys: sign in (cookie or access token)');
  if (!outcome.key.scopes.includes(keyScope)) throw new HttpError(403, `This API key lacks the "${keyScope}" scope this route needs`);
  return { ...outcome.principal, via: 'api-key', apiKey: outcome.key };
}

export function requireAuth(deps: AuthDeps, level: Exclude<AuthLevel, 'public'>, keyScope: ApiKeyScope | null = null) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const found = tokenFrom(req);
    if (!found) throw new HttpError(401, 'Authentication required');
    if (found.via === 'bearer' && isApiKeyText(found.token)) {
      const principal = await keyPrincipal(deps, found.token, keyScope);
      if (level === 'admin' && principal.user.role !== 'admin') throw new HttpError(403, 'Administrator role required');
      req.principal = principal;
      return next();
    }
    const claims = await deps.authenticate(found.token);
    if (!claims) throw new HttpError(401, 'Access token is invalid or expired');
    if (found.via === 'cookie' && STATE_CHANGING.has(req.method) && !csrfOk(req)) {
      throw new HttpError(403, 'Missing or invalid CSRF token (send the XSRF-TOKEN cookie value in X-XSRF-TOKEN)');
    }
    if (level === 'admin' && claims.user.role !== 'admin') throw new HttpError(403, 'Administrator role required');
    req.principal = { ...claims, via: found.via };
    next();
  };
}
