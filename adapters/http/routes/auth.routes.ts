import type { Request, Response } from 'express';
import type { Authenticate } from '../../../core/use-cases/auth/authenticate.use-case.ts';
import type { LoginUser } from '../../../core/use-cases/auth/login-user.use-case.ts';
import type { LogoutUser } from '../../../core/use-cases/auth/logout-user.use-case.ts';
import type { RefreshSession } from '../../../core/use-cases/auth/refresh-session.use-case.ts';
import type { RegisterUser } from '../../../core/use-cases/auth/register-user.use-case.ts';
import type { Fail } from '../../../core/domain/result.ts';
import type { ApiRouter } from '../api-router.ts';
import { clearSessionCookies, REFRESH_COOKIE, setSessionCookies, setXsrfCookie, type CookiePolicy } from '../cookies.ts';
import { messageSchema, userDto, userSchema } from '../dto.ts';
import { sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';

export interface AuthRoutesDeps {
  register: RegisterUser;
  login: LoginUser;
  refresh: RefreshSession;
  logout: LogoutUser;
  authenticate: Authenticate;
  cookies: CookiePolicy;
}

const credentials = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 8, maxLength: 128 } },
};

/** The client's address as Express sees it (X-Forwarded-For only from a trusted proxy, see `trust proxy`). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** A refusal, with Retry-After when it is a rate limit. */
export function sendLimitedFail(res: Response, failure: Fail & { retryAfterSeconds?: number }): void {
  if (failure.retryAfterSeconds) res.setHeader('Retry-After', String(failure.retryAfterSeconds));
  sendFail(res, failure);
}

export const authRoutes = (deps: AuthRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'post',
      path: '/auth/register',
      summary: 'Create an account',
      tag: 'auth',
      auth: 'public',
      body: { ...credentials, required: ['email', 'password', 'displayName'], properties: { ...credentials.properties, displayName: { type: 'string', minLength: 1, maxLength: 64 } } },
      responses: {
        201: { description: 'Created', schema: userSchema },
        400: { description: 'Invalid field, or a password that is common, repetitive or only whitespace', schema: ref('Error') },
        409: { description: 'Email taken', schema: ref('Error') },
        429: { description: 'Too many sign-ups from this address (Retry-After)', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.register.execute({ email: body.email, password: body.password, displayName: body.displayName, clientAddress: clientAddress(req) });
      if (!result.ok) return sendLimitedFail(res, result);
      res.status(201).json(userDto(result.value));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/login',
      summary: 'Log in; sets the access_token, refresh_token and XSRF-TOKEN cookies',
      tag: 'auth',
      auth: 'public',
      body: credentials,
      responses: {
        200: {
          description: 'Logged in',
          schema: {
            type: 'object',
            required: ['user', 'accessTokenExpiresAt', 'refreshTokenExpiresAt'],
            properties: { user: userSchema, accessTokenExpiresAt: { type: 'string', format: 'date-time' }, refreshTokenExpiresAt: { type: 'string', format: 'date-time' } },
          },
        },
        401: { description: 'Wrong email or password', schema: ref('Error') },
        429: { description: 'Too many failed logins for this account from this address, for this account, or from this address (Retry-After)', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.login.execute({ email: body.email, password: body.password, clientAddress: clientAddress(req) });
      if (!result.ok) return sendLimitedFail(res, result);
      const session = result.value;
      setSessionCookies(res, deps.cookies, session);
      setXsrfCookie(res, deps.cookies);
      res.json({ user: userDto(session.user), accessTokenExpiresAt: session.accessTokenExpiresAt.toISOString(), refreshTokenExpiresAt: session.refreshTokenExpiresAt.toISOString() });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/refresh',
      summary: 'Exchange the refresh_token cookie for new tokens (rotation; reuse revokes the family)',
      tag: 'auth',
      auth: 'public',
      responses: { 200: { description: 'Refreshed', schema: messageSchema }, 401: { description: 'Missing, reused, revoked or expired refresh token', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const token = (req.cookies as Record<string, string>)[REFRESH_COOKIE];
      const result = await deps.refresh.execute({ refreshToken: token });
      if (!result.ok) {
        clearSessionCookies(res, deps.cookies);
        return sendFail(res, result);
      }
      setSessionCookies(res, deps.cookies, result.value);
      res.json({ message: 'Tokens refreshed' });
    },
  );

  api.add(
    { method: 'get', path: '/auth/profile', summary: 'The current user', tag: 'auth', auth: 'access', responses: { 200: { description: 'Profile', schema: userSchema } } },
    // Authenticate read the user as stored now in the statement that checked the login: no second read.
    (req: Request, res: Response) => {
      res.json(userDto(req.principal!.user));
    },
  );

  api.add(
    { method: 'post', path: '/auth/logout', summary: 'Revoke the session and clear cookies', tag: 'auth', auth: 'access', responses: { 204: { description: 'Logged out' } } },
    async (req: Request, res: Response) => {
      const principal = req.principal!;
      await deps.logout.execute({
        userId: principal.userId,
        refreshToken: (req.cookies as Record<string, string>)[REFRESH_COOKIE],
        sessionId: principal.sessionId,
      });
      clearSessionCookies(res, deps.cookies);
      res.status(204).end();
    },
  );
};
