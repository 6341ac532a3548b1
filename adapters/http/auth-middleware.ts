import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Authenticated } from '../../core/use-cases/auth/authenticate.use-case.ts';
import { ACCESS_COOKIE, XSRF_COOKIE, XSRF_HEADER } from './cookies.ts';
import { HttpError } from './error-table.ts';

export type AuthLevel = 'public' | 'access' | 'admin';

export interface Principal extends Authenticated {
  via: 'cookie' | 'bearer';
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

export function requireAuth(deps: AuthDeps, level: Exclude<AuthLevel, 'public'>) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const found = tokenFrom(req);
    if (!found) throw new HttpError(401, 'Authentication required');
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
