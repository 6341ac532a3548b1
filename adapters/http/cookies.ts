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

/** Bytes of an XSRF token (32 characters of base64url). */
const XSRF_TOKEN_BYTES = 24;
/** Random bytes drawn at once for XSRF tokens: one call into the CSPRNG per 170 tokens, not one per response. */
const XSRF_POOL_BYTES = XSRF_TOKEN_BYTES * 170;
let xsrfPool = Buffer.alloc(0);
let xsrfPoolOffset = 0;

/**
 * A new XSRF token: the next unused bytes of a pool of CSPRNG output (as Node's randomUUID batches its entropy), each
 * byte used once. Every response to a request without the cookie mints one (a Bearer client's every request), and a
 * call into the CSPRNG per response was a measurable share of a small request's CPU.
 */
export function newXsrfToken(): string {
  if (xsrfPoolOffset + XSRF_TOKEN_BYTES > xsrfPool.length) {
    xsrfPool = randomBytes(XSRF_POOL_BYTES);
    xsrfPoolOffset = 0;
  }
  const token = xsrfPool.subarray(xsrfPoolOffset, xsrfPoolOffset + XSRF_TOKEN_BYTES).toString('base64url');
  xsrfPoolOffset += XSRF_TOKEN_BYTES;
  return token;
}

export function setXsrfCookie(res: Response, policy: CookiePolicy): string {
  const token = newXsrfToken();
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
