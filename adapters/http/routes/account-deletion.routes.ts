import type { Request, Response } from 'express';
import { isUuid } from '../../../core/domain/ids.ts';
import type { AccountRemoved, DeleteAccount, DeleteUser } from '../../../core/use-cases/auth/delete-account.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { clearSessionCookies, type CookiePolicy } from '../cookies.ts';
import { sendError, sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';
import { clientAddress, sendLimitedFail } from './auth.routes.ts';

export interface AccountDeletionRoutesDeps {
  deleteAccount: DeleteAccount;
  deleteUser: DeleteUser;
  cookies: CookiePolicy;
}

const error = (description: string) => ({ description, schema: ref('Error') });

const removedSchema = {
  type: 'object',
  required: ['message', 'jobsCancelled', 'coinsForfeited'],
  properties: {
    message: { type: 'string' },
    jobsCancelled: { type: 'integer', minimum: 0, description: 'Queued and running jobs cancelled (each refunded first)' },
    coinsForfeited: { type: 'integer', minimum: 0, description: 'The balance the account held once those refunds were made' },
  },
};

const removedBody = (removed: AccountRemoved) => ({
  message: 'Account deleted; its outputs and uploads are being removed',
  jobsCancelled: removed.jobsCancelled,
  coinsForfeited: removed.coinsForfeited,
});

/** Deleting an account: a user their own, an administrator another's (ADR 063). Neither accepts an API key. */
export const accountDeletionRoutes = (deps: AccountDeletionRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'delete',
      path: '/auth/account',
      summary: 'Delete your account: jobs cancelled, every session and API key ended, outputs and uploads removed; signs you out',
      tag: 'auth',
      auth: 'access',
      body: {
        type: 'object',
        properties: {
          password: { type: 'string', description: 'Required when the account has a password' },
          confirmEmail: { type: 'string', description: "Required when it has none (it signs in through a provider): the account's email" },
        },
      },
      responses: {
        200: { description: 'Deleted: sessions and API keys end now, stored files within a minute', schema: removedSchema },
        400: error('password missing or wrong, or confirmEmail not the account email'),
        429: error('Too many wrong passwords: the login limits (Retry-After)'),
      },
    },
    async (req: Request, res: Response) => {
      const principal = req.principal!;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.deleteAccount.execute({
        userId: principal.userId,
        email: principal.user.email,
        password: body.password,
        confirmEmail: body.confirmEmail,
        clientAddress: clientAddress(req),
      });
      if (!result.ok) return sendLimitedFail(res, result);
      clearSessionCookies(res, deps.cookies);
      res.json(removedBody(result.value));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/admin/users/:id',
      summary: "Delete a user's account, as they could themselves (audited); not your own",
      tag: 'admin',
      auth: 'admin',
      responses: {
        200: { description: 'Deleted: their sessions and API keys end now, stored files within a minute', schema: removedSchema },
        404: error('No such user, or already deleted (also for an id that is not a UUID)'),
        409: error('Your own account: delete it from the Account page, which asks for your password'),
      },
    },
    async (req: Request, res: Response) => {
      const userId = String(req.params.id);
      if (!isUuid(userId)) return sendError(res, 404, 'User not found');
      const result = await deps.deleteUser.execute({ actorId: req.principal!.userId, userId: userId.toLowerCase() });
      if (!result.ok) return sendFail(res, result);
      res.json(removedBody(result.value));
    },
  );
};
