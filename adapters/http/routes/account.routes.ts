import type { Request, Response } from 'express';
import { isUuid } from '../../../core/domain/ids.ts';
import type { ChangePassword } from '../../../core/use-cases/auth/change-password.use-case.ts';
import type { ConfirmEmailChange } from '../../../core/use-cases/auth/confirm-email-change.use-case.ts';
import type { IssuePasswordReset } from '../../../core/use-cases/auth/issue-password-reset.use-case.ts';
import type { RequestEmailChange } from '../../../core/use-cases/auth/request-email-change.use-case.ts';
import type { RequestPasswordReset } from '../../../core/use-cases/auth/request-password-reset.use-case.ts';
import type { ResetPassword } from '../../../core/use-cases/auth/reset-password.use-case.ts';
import type { UpdateProfile } from '../../../core/use-cases/auth/update-profile.use-case.ts';
import type { ApiRouter } from '../api-router.ts';
import { userDto, userSchema } from '../dto.ts';
import { sendError, sendFail } from '../error-table.ts';
import { ref } from '../openapi.ts';
import { clientAddress, sendLimitedFail } from './auth.routes.ts';

export interface AccountRoutesDeps {
  updateProfile: UpdateProfile;
  changePassword: ChangePassword;
  issueReset: IssuePasswordReset;
  resetPassword: ResetPassword;
  /** Present when mail is configured (SMTP_URL): users ask for a reset link themselves (ADR 064). */
  requestReset: RequestPasswordReset | null;
  /** Present when mail is configured: users change their email, confirmed by a link mailed to the new one (ADR 065). */
  emailChange: { request: RequestEmailChange; confirm: ConfirmEmailChange } | null;
}

const password = { type: 'string', minLength: 8, maxLength: 128 };
const error = (description: string) => ({ description, schema: ref('Error') });

/** A user's own account (display name, password) and the reset links administrators make (ADR 062). */
export const accountRoutes = (deps: AccountRoutesDeps) => (api: ApiRouter) => {
  api.add(
    {
      method: 'patch',
      path: '/auth/profile',
      summary: 'Change your display name',
      tag: 'auth',
      auth: 'access',
      body: { type: 'object', required: ['displayName'], properties: { displayName: { type: 'string', minLength: 1, maxLength: 64 } } },
      responses: { 200: { description: 'The user after the change', schema: userSchema }, 400: error('displayName empty or over 64 characters') },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.updateProfile.execute({ userId: req.principal!.userId, displayName: body.displayName });
      if (!result.ok) return sendFail(res, result);
      res.json(userDto(result.value));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/password',
      summary: 'Change your password; every other session of yours is signed out (API keys stay)',
      tag: 'auth',
      auth: 'access',
      body: { type: 'object', required: ['currentPassword', 'newPassword'], properties: { currentPassword: { type: 'string' }, newPassword: password } },
      responses: {
        200: {
          description: 'Changed',
          schema: { type: 'object', required: ['message', 'otherSessionsEnded'], properties: { message: { type: 'string' }, otherSessionsEnded: { type: 'integer', minimum: 0 } } },
        },
        400: error('currentPassword wrong or missing; newPassword too short, too long, common, repetitive, or the current one'),
        409: error('The account has no password (it signs in through an identity provider), or its password was changed meanwhile (a reset)'),
        429: error('Too many wrong passwords: the login limits (Retry-After)'),
      },
    },
    async (req: Request, res: Response) => {
      const principal = req.principal!;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.changePassword.execute({
        userId: principal.userId,
        email: principal.user.email,
        sessionId: principal.sessionId,
        currentPassword: body.currentPassword,
        newPassword: body.newPassword,
        clientAddress: clientAddress(req),
      });
      if (!result.ok) return sendLimitedFail(res, result);
      res.json({ message: 'Password changed', otherSessionsEnded: result.value.otherSessionsEnded });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/password-reset',
      summary: "Set a new password with the reset link's token; every session of the user is signed out",
      tag: 'auth',
      auth: 'public',
      body: { type: 'object', required: ['token', 'newPassword'], properties: { token: { type: 'string', maxLength: 256 }, newPassword: password } },
      responses: {
        200: {
          description: 'Password set: sign in with it',
          schema: { type: 'object', required: ['message', 'email'], properties: { message: { type: 'string' }, email: { type: 'string' } } },
        },
        400: error('The link is invalid, used, replaced or expired (details: token), or the new password is refused (details: newPassword)'),
      },
    },
    async (req: Request, res: Response) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const result = await deps.resetPassword.execute({ token: body.token, newPassword: body.newPassword });
      if (!result.ok) return sendFail(res, result);
      res.json({ message: 'Password set; sign in with it', email: result.value.email });
    },
  );

  if (deps.requestReset) {
    const requestReset = deps.requestReset;
    api.add(
      {
        method: 'post',
        path: '/auth/forgot-password',
        summary: 'Ask for a link that sets a new password, mailed to the account with this email (only where mail is configured)',
        tag: 'auth',
        auth: 'public',
        body: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } },
        responses: {
          202: {
            description: 'The same answer whether or not an account has this email: if one has, the link (or, for an account without a password, a note saying so) is on its way',
            schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
          },
          400: error('email missing or not an email (details: email)'),
          429: error('Too many requests for this email or from this address (Retry-After)'),
        },
      },
      async (req: Request, res: Response) => {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const result = await requestReset.execute({ email: body.email, clientAddress: clientAddress(req) });
        if (!result.ok) return sendLimitedFail(res, result);
        res.status(202).json({ message: 'If an account uses this email, a mail with a link to set a new password is on its way' });
      },
    );
  }

  if (deps.emailChange) {
    const { request, confirm } = deps.emailChange;
    api.add(
      {
        method: 'post',
        path: '/auth/email',
        summary: 'Change your email: a link is mailed to the new address, and the email changes when it is opened (only where mail is configured)',
        tag: 'auth',
        auth: 'access',
        body: { type: 'object', required: ['newEmail', 'password'], properties: { newEmail: { type: 'string', format: 'email' }, password: { type: 'string' } } },
        responses: {
          202: {
            description: 'The link is mailed to newEmail, valid until expiresAt (EMAIL_CHANGE_TTL); nothing changes until it is opened',
            schema: {
              type: 'object',
              required: ['message', 'newEmail', 'expiresAt'],
              properties: { message: { type: 'string' }, newEmail: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } },
            },
          },
          400: error('newEmail not an email or already yours; password missing or wrong'),
          404: error('The account is gone (deleted meanwhile)'),
          409: error('Another account has this email; or this account keeps its email: it has no password (it signs in through a provider), or ADMIN_EMAILS lists it'),
          429: error('Too many wrong passwords (the login limits), or too many changes asked for: per user, per address mailed, per client address (Retry-After)'),
          502: error('The mail relay refused the mail or could not be reached'),
        },
      },
      async (req: Request, res: Response) => {
        const principal = req.principal!;
        const body = (req.body ?? {}) as Record<string, unknown>;
        const result = await request.execute({ userId: principal.userId, email: principal.user.email, newEmail: body.newEmail, password: body.password, clientAddress: clientAddress(req) });
        if (!result.ok) return sendLimitedFail(res, result);
        res.status(202).json({ message: `A link to confirm ${result.value.newEmail} is on its way there`, newEmail: result.value.newEmail, expiresAt: result.value.expiresAt.toISOString() });
      },
    );
    api.add(
      {
        method: 'post',
        path: '/auth/email/confirm',
        summary: "Confirm a change of email with the token of the link mailed to the new address; the account's email becomes it",
        tag: 'auth',
        auth: 'public',
        body: { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 256 } } },
        responses: {
          200: { description: 'Changed: sign in with the new email', schema: { type: 'object', required: ['message', 'email'], properties: { message: { type: 'string' }, email: { type: 'string' } } } },
          400: error('The link is invalid, used, replaced or expired (details: token)'),
          409: error('Another account took this email meanwhile, or ADMIN_EMAILS now lists the email the change would free'),
        },
      },
      async (req: Request, res: Response) => {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const result = await confirm.execute({ token: body.token });
        if (!result.ok) return sendFail(res, result);
        res.json({ message: 'Email changed; sign in with it', email: result.value.email });
      },
    );
  }

  api.add(
    {
      method: 'post',
      path: '/admin/users/:id/password-reset',
      summary: "Make a one-time link that sets a user's password, to hand over; replaces the user's last link (one the user asked for by mail too)",
      tag: 'admin',
      auth: 'admin',
      responses: {
        201: {
          description: 'The link, valid until expiresAt (PASSWORD_RESET_TTL)',
          schema: { type: 'object', required: ['resetUrl', 'expiresAt'], properties: { resetUrl: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } },
        },
        404: error('No such user (also for an id that is not a UUID)'),
      },
    },
    async (req: Request, res: Response) => {
      const userId = String(req.params.id);
      if (!isUuid(userId)) return sendError(res, 404, 'User not found');
      const result = await deps.issueReset.execute({ actorId: req.principal!.userId, userId: userId.toLowerCase() });
      if (!result.ok) return sendFail(res, result);
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json({ resetUrl: result.value.resetUrl, expiresAt: result.value.expiresAt.toISOString() });
    },
  );
};
