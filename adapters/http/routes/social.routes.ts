import type { CookieOptions, Request, Response } from 'express';
import type { Logger } from '../../../core/ports/logger.port.ts';
import type { CompleteConnection, StartConnection } from '../../../core/use-cases/social/connect-platform.use-case.ts';
import type { ManageConnections } from '../../../core/use-cases/social/manage-connections.service.ts';
import { PENDING_CONNECTION_SECONDS } from '../../../core/use-cases/social/pending-connections.service.ts';
import type { RequestPublication } from '../../../core/use-cases/social/request-publication.use-case.ts';
import type { ListPublications } from '../../../core/use-cases/social/list-publications.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import type { CookiePolicy } from '../cookies.ts';
import { sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';

export interface SocialRoutesDeps {
  start: StartConnection;
  complete: CompleteConnection;
  manage: ManageConnections;
  publish: RequestPublication;
  publications: ListPublications;
  cookies: CookiePolicy;
  /** Where the callback sends the browser: `${pagesUrl}/connect/success.html` or `/connect/failure.html`. */
  pagesUrl: string;
  logger: Logger;
}

/** Binds a connection to the browser that started it: the callback must come with the same state. */
export const CONNECT_STATE_COOKIE = 'connect_state';

const stateCookie = (policy: CookiePolicy): CookieOptions => ({
  httpOnly: true,
  path: '/api',
  ...(policy.secure ? { secure: true, sameSite: 'none' } : { secure: false, sameSite: 'lax' }),
});

const notFound = { description: 'Unknown output, or not yours', schema: ref('Error') };

export const socialRoutes = (deps: SocialRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'get',
      path: '/connect/:platform',
      summary: "Connect a social platform to the signed-in user: 302 to the platform's OAuth 2.0 consent page (state bound to the user, PKCE where supported)",
      tag: 'social',
      auth: 'access',
      responses: {
        302: { description: "To the platform's authorization page" },
        404: { description: 'No such platform', schema: ref('Error') },
        503: { description: 'The platform is not configured on this server', schema: ref('Error') },
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.start.execute({ userId: req.principal!.userId, platform: String(req.params.platform) });
      if (!result.ok) return sendFail(res, result);
      res.cookie(CONNECT_STATE_COOKIE, result.value.state, { ...stateCookie(deps.cookies), maxAge: PENDING_CONNECTION_SECONDS * 1000 });
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, result.value.url);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/connect/:platform/callback',
      summary: 'Where the platform sends the browser back: stores the connection, then 302 to /connect/success.html or /connect/failure.html?error=<code>',
      tag: 'social',
      auth: 'public',
      responses: { 302: { description: 'To /connect/success.html?platform=<P>, or /connect/failure.html?platform=<P>&error=invalid_state|denied|exchange_failed' } },
    },
    async (req: Request, res: Response) => {
      const browserState = (req.cookies as Record<string, string | undefined>)[CONNECT_STATE_COOKIE] ?? null;
      res.clearCookie(CONNECT_STATE_COOKIE, stateCookie(deps.cookies));
      const result = await deps.complete.execute({ platform: String(req.params.platform), query: req.query as Record<string, unknown>, browserState });
      res.setHeader('Cache-Control', 'no-store');
      const platform = encodeURIComponent(result.platform);
      if (result.failure) {
        deps.logger.warn('social: connection refused', { requestId: req.requestId, platform: result.platform, userId: result.userId, code: result.failure, cause: result.cause });
        return res.redirect(302, `${deps.pagesUrl}/connect/failure.html?platform=${platform}&error=${result.failure}`);
      }
      deps.logger.info('social: connected', { requestId: req.requestId, platform: result.platform, userId: result.userId });
      res.redirect(302, `${deps.pagesUrl}/connect/success.html?platform=${platform}`);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/connections',
      summary: 'The platforms the caller has connected',
      tag: 'social',
      auth: 'access',
      responses: { 200: { description: 'Platform identifiers, uppercase', schema: { type: 'array', items: { type: 'string', enum: ['YOUTUBE', 'TIKTOK'] } } } },
    },
    async (req: Request, res: Response) => {
      res.json(await deps.manage.list(req.principal!.userId));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/disconnect/:platform',
      summary: "Disconnect a platform: its tokens are deleted, and the grant revoked at the platform",
      tag: 'social',
      auth: 'access',
      responses: { 204: { description: 'Disconnected (or was not connected)' }, 404: { description: 'No such platform', schema: ref('Error') } },
    },
    async (req: Request, res: Response) => {
      const result = await deps.manage.disconnect({ userId: req.principal!.userId, platform: String(req.params.platform) });
      if (!result.ok) return sendFail(res, result);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'post',
      path: '/my-outputs/:id/publish',
      summary: 'Publish a video output to connected platforms, in the background (publish.completed / publish.failed events follow)',
      tag: 'outputs',
      auth: 'access',
      body: {
        type: 'object',
        required: ['platforms'],
        properties: {
          platforms: { type: 'array', minItems: 1, items: { type: 'string', enum: ['YOUTUBE', 'TIKTOK'] } },
          title: { type: 'string', maxLength: 100, description: 'Defaults to the file name' },
          description: { type: 'string', maxLength: 5000 },
          privacy: { type: 'string', enum: ['private', 'unlisted', 'public'], description: 'Defaults to private' },
        },
      },
      responses: {
        202: { description: 'Publishing started (or already under way or done)', schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } },
        400: { description: 'Unknown or not-connected platform, not a video, or a bad field', schema: ref('Error') },
        404: notFound,
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.publish.execute({ userId: req.principal!.userId, outputId: String(req.params.id), body: req.body });
      if (!result.ok) return sendFail(res, result);
      res.status(202).json({ message: result.value.message });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/my-outputs/:id/publications',
      summary: "The output's publications, one per platform",
      tag: 'outputs',
      auth: 'access',
      responses: {
        200: {
          description: 'Publications',
          schema: {
            type: 'array',
            items: {
              type: 'object',
              required: ['platform', 'status', 'updatedAt'],
              properties: {
                platform: { type: 'string' },
                status: { type: 'string', enum: ['pending', 'uploading', 'published', 'failed'] },
                url: { type: 'string', format: 'uri' },
                error: { type: 'string' },
                updatedAt: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
        404: notFound,
      },
    },
    async (req: Request, res: Response) => {
      const result = await deps.publications.execute({ userId: req.principal!.userId, outputId: String(req.params.id) });
      if (!result.ok) return sendFail(res, result);
      res.json(result.value);
    },
  );
};
