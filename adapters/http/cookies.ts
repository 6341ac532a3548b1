import { randomBytes } from 'node:crypto';
import type { CookieOptions, Response } from 'express';

export const ACCESS_COOKIE = 'access_token';
export const REFRESH_COOKIE = 'refresh_token';
export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';

export interface CookiePolicy {
  secure: boolean;
}

const base = (policy: CookiePolicy): CookieOptions =>
  policy.secure ? { secure: true, sameSite: 'none' } : { secure: false, sameSite: 'lax' };

export function setSessionCookies(
  res: Response,
  policy: CookiePolicy,
  session: { accessToken: string; accessTokenExpiresAt: Date; refreshToken: string; refreshTokenExpiresAt: Date },
): void {
  const now = Date.now();
  res.cookie(ACCESS_COOKIE, session.accessToken, { ...base(policy), httpOnly: true, path: '/', maxAge: session.accessTokenExpiresAt.getTime() - now });
  // Path /api: sent to the refresh and logout routes under both prefixes, never to static files.
  res.cookie(REFRESH_COOKIE, session.refreshToken, { ...base(policy), httpOnly: true, path: '/api', maxAge: session.refreshTokenExpiresAt.getTime() - now });
}

export function setXsrfCookie(res: Response, policy: CookiePolicy): string {
  const token = randomBytes(24).toString('base64url');
  // Login replaces the token the request-wide middleware may have set a moment earlier: send one, not two.
  const existing = res.getHeader('Set-Cookie');
  if (Array.isArray(existing)) res.setHeader('Set-Cookie', existing.filter((cookie) => !cookie.startsWith(`${XSRF_COOKIE}=`)));
  res.cookie(XSRF_COOKIE, token, { ...base(policy), httpOnly: false, path: '/' });
  return token;
}

export function clearSessionCookies(res: Response, policy: CookiePolicy): void {
  res.clearCookie(ACCESS_COOKIE, { ...base(policy), httpOnly: true, path: '/' });
  res.clearCookie(REFRESH_COOKIE, { ...base(policy), httpOnly: true, path: '/api' });
}
