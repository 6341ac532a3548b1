import type { CookieOptions, Request, Response } from 'express';
import type { Logger } from '../../../core/ports/logger.port.ts';
import type { CompleteOidcLogin } from '../../../core/use-cases/auth/complete-oidc-login.use-case.ts';
import type { ListIdentities } from '../../../core/use-cases/auth/list-identities.use-case.ts';
import { PENDING_LOGIN_SECONDS } from '../../../core/use-cases/auth/oidc-pending-logins.service.ts';
import type { StartOidcLogin } from '../../../core/use-cases/auth/start-oidc-login.use-case.ts';
import type { UnlinkIdentity } from '../../../core/use-cases/auth/unlink-identity.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { setSessionCookies, setXsrfCookie, type CookiePolicy } from '../cookies.ts';
import { sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';

export interface OidcRoutesDeps {
  start: StartOidcLogin;
  complete: CompleteOidcLogin;
  list: ListIdentities;
  unlink: UnlinkIdentity;
  cookies: CookiePolicy;
  frontendUrl: string;
  logger: Logger;
}

/** Binds a login to the browser that started it: the callback must come with the same state. */
export const OIDC_STATE_COOKIE = 'oidc_state';

const stateCookie = (policy: CookiePolicy): CookieOptions => ({
  httpOnly: true,
  path: '/api',
  // Either way it comes back on the provider's top-level redirect to the callback. Secure mode uses None like the
  // session cookies: a single-page app on another site starts a link with a cross-site fetch, and browsers refuse a
  // Lax cookie set by a cross-site response.
  ...(policy.secure ? { secure: true, sameSite: 'none' } : { secure: false, sameSite: 'lax' }),
});

const identitySchema = {
  type: 'object',
  required: ['provider', 'email', 'linkedAt'],
  properties: { provider: { type: 'string' }, email: { type: ['string', 'null'] }, linkedAt: { type: 'string', format: 'date-time' } },
};

export const oidcRoutes = (deps: OidcRoutesDeps) => (api: ApiRouter) => {
  const failed = (code: string) => `${deps.frontendUrl}/login?error=${encodeURIComponent(code)}`;

  // Before /auth/:provider, which would take the word for a provider's name.
  api.add(
    {
      method: 'get',
      path: '/auth/identities',
      summary: 'The OpenID Connect identities linked to the current user, and whether it has a password',
      tag: 'auth',
      auth: 'access',
      responses: {
        200: { description: 'Linked identities', schema: { type: 'object', required: ['hasPassword', 'identities'], properties: { hasPassword: { type: 'boolean' }, identities: { type: 'array', items: identitySchema } } } },
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.list.execute({ userId: req.principal!.userId });
      if (!result.ok) return sendFail(res, result);
      const identities = result.value.identities.map((identity) => ({ provider: identity.provider, email: identity.email, linkedAt: identity.createdAt.toISOString() }));
      res.json({ hasPassword: result.value.hasPassword, identities });
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/auth/identities/:provider',
      summary: 'Remove a linked identity (not the last way to sign in of a user without a password)',
      tag: 'auth',
      auth: 'access',
      responses: {
        204: { description: 'Removed' },
        404: { description: 'No identity of this provider is linked', schema: ref('Error') },
        409: { description: 'It is the only way this user can sign in', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.unlink.execute({ userId: req.principal!.userId, provider: String(req.params.provider).toLowerCase() });
      if (!result.ok) return sendFail(res, result);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/:provider/link',
      summary: "Start linking a provider to the signed-in user: answers the provider's authorization URL to navigate to",
      tag: 'auth',
      auth: 'access',
      responses: {
        200: { description: 'Navigate the browser to url', schema: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' } } } },
        404: { description: 'No such provider', schema: ref('Error') },
        502: { description: 'The provider could not be reached', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.start.execute({ provider: String(req.params.provider).toLowerCase(), linkUserId: req.principal!.userId });
      if (!result.ok) return sendFail(res, result);
      res.cookie(OIDC_STATE_COOKIE, result.value.state, { ...stateCookie(deps.cookies), maxAge: PENDING_LOGIN_SECONDS * 1000 });
      res.json({ url: result.value.url });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/:provider',
      summary: "Sign in with an OpenID Connect provider: 302 to its authorization URL (state, nonce, PKCE S256)",
      tag: 'auth',
      auth: 'public',
      responses: { 302: { description: 'To the provider (or to FRONTEND_URL/login?error=provider_unavailable)' }, 404: { description: 'No such provider', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const provider = String(req.params.provider).toLowerCase();
      const result = await deps.start.execute({ provider });
      if (!result.ok) {
        if (result.code === 'AUTH.UNKNOWN_PROVIDER') return sendFail(res, result);
        deps.logger.warn('oidc: login could not start', { requestId: req.requestId, provider, cause: result.message });
        return res.redirect(302, failed('provider_unavailable'));
      }
      res.cookie(OIDC_STATE_COOKIE, result.value.state, { ...stateCookie(deps.cookies), maxAge: PENDING_LOGIN_SECONDS * 1000 });
      res.redirect(302, result.value.url);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/:provider/callback',
      summary: 'Where the provider sends the browser back: 302 to FRONTEND_URL with session cookies, or to FRONTEND_URL/login?error=<code>',
      tag: 'auth',
      auth: 'public',
      responses: { 302: { description: 'To FRONTEND_URL (signed in, or ?linked=<provider>), or to FRONTEND_URL/login?error=<code>' } },
    },
    async (req: Request, res: Response) => {
      const provider = String(req.params.provider).toLowerCase();
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const browserState = (req.cookies as Record<string, string | undefined>)[OIDC_STATE_COOKIE];
      res.clearCookie(OIDC_STATE_COOKIE, stateCookie(deps.cookies));
      const result = await deps.complete.execute({ provider, query, browserState });
      if (!result.ok) {
        deps.logger.warn('oidc: sign-in refused', { requestId: req.requestId, provider, code: result.code, cause: 'cause' in result ? result.cause : result.message });
        return res.redirect(302, failed(result.code));
      }
      if (result.value.kind === 'linked') return res.redirect(302, `${deps.frontendUrl}/?linked=${encodeURIComponent(result.value.provider)}`);
      const { session, created } = result.value;
      setSessionCookies(res, deps.cookies, session);
      setXsrfCookie(res, deps.cookies);
      deps.logger.info('oidc: signed in', { requestId: req.requestId, provider, userId: session.user.id, created });
      res.redirect(302, `${deps.frontendUrl}/`);
    },
  );
};
