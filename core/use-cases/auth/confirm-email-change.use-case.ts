import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import type { Mail } from '../../ports/mailer.port.ts';
import { mailText } from './account-mail.service.ts';
import { LISTED_ADMIN_EMAIL, type EmailChangeMailDeps } from './request-email-change.use-case.ts';

export type ConfirmEmailChangeDeps = EmailChangeMailDeps;

const DEAD_LINK = 'is invalid, used or expired; ask for the change again';

/**
 * Uses the link mailed to a new address (ADR 065): the account's email becomes that address, once, while the link is
 * the account's live one and no other account has the address. Sessions stay (the person is the same); the old
 * address is told, after the change, so that an owner who did not make it knows (`notified`, never awaited by the
 * answer).
 */
export class ConfirmEmailChange {
  constructor(private readonly deps: ConfirmEmailChangeDeps) {}

  async execute(input: { token: unknown }): Promise<Result<{ email: string; notified: Promise<boolean> }> | Fail> {
    const { users, tokens, clock } = this.deps;
    if (typeof input.token !== 'string' || input.token.length === 0 || input.token.length > 256) return validationFailed([{ field: 'token', message: DEAD_LINK }]);
    const tokenHash = tokens.hashOpaqueToken(input.token);
    const found = await users.findByEmailChange(tokenHash, clock.now());
    if (!found) return validationFailed([{ field: 'token', message: DEAD_LINK }]);
    // Checked again: ADMIN_EMAILS may have changed since the request (a restart with another list).
    if (this.deps.adminEmails.includes(found.user.email)) return fail('CONFLICT', LISTED_ADMIN_EMAIL);
    const outcome = await users.applyEmailChange(found.user.id, { tokenHash, newEmail: found.newEmail }, clock.now());
    if (outcome === 'taken') return fail('USER.EMAIL_TAKEN', 'Another account has this email now');
    if (outcome === 'dead') return validationFailed([{ field: 'token', message: DEAD_LINK }]);
    return ok({ email: found.newEmail, notified: this.notify(found.user.id, noticeOfChange(found.user.email, found.newEmail, this.deps.frontendUrl)) });
  }

  /** Never rejects: nobody awaits it on the request's path. */
  private async notify(userId: string, mail: Mail): Promise<boolean> {
    try {
      await this.deps.mailer.send(mail);
      return true;
    } catch (error) {
      this.deps.logger.error('email change notice not sent', { userId, error });
      return false;
    }
  }
}

export function noticeOfChange(oldEmail: string, newEmail: string, frontendUrl: string): Mail {
  return {
    to: oldEmail,
    subject: 'Your email was changed',
    text: mailText(
      `The email of your account at ${frontendUrl} was changed from ${oldEmail} to ${newEmail}; sign in with the new one.`,
      frontendUrl,
      [],
      'If you did not make this change, tell an administrator of the service at once.',
    ),
  };
}
