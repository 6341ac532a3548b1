import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import { isValidEmail, normalizeEmail } from '../../domain/user.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Mail, Mailer } from '../../ports/mailer.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { mailText, untilUtc } from './account-mail.service.ts';
import { reserveAttempt } from './attempt-limits.service.ts';
import type { IssuePasswordReset } from './issue-password-reset.use-case.ts';

export interface RequestPasswordResetDeps {
  users: UserRepository;
  issueReset: IssuePasswordReset;
  mailer: Mailer;
  cache: Cache;
  logger: Logger;
  /** Named in the mail, so its reader knows which service it is about. */
  frontendUrl: string;
  /** Requests per window, counted per email asked for and per client address, whether or not an account has the email. */
  limits: { perEmail: number; perAddress: number; windowSeconds: number };
  /** The waits before the second, third… try of a mail the server refused or could not take; one try more than waits. */
  retryDelaysMs: readonly number[];
  sleep?: (ms: number) => Promise<void>;
}

/** What became of one request, for tests and logs; the client is told none of it. */
export type ResetMailOutcome = 'link-sent' | 'notice-sent' | 'no-account' | 'failed';

export type RequestResetFailure = Fail & { retryAfterSeconds?: number };

/**
 * "Forgot your password?" (ADR 064): mails the one-time link an administrator could make (ADR 062) to the account's
 * own address. The answer is the same whether or not an account has the address, and it is given before the account
 * is even looked up: the lookup, the link and the mail run after it (`delivery`), so neither the answer nor its
 * timing tells who has an account. An account without a password (made through a provider) gets a mail saying so,
 * with no link: a mailbox alone does not add a password to it. The limits count every request, for any address.
 */
export class RequestPasswordReset {
  constructor(private readonly deps: RequestPasswordResetDeps) {}

  async execute(input: { email: unknown; clientAddress: string }): Promise<Result<{ delivery: Promise<ResetMailOutcome> }> | RequestResetFailure> {
    if (typeof input.email !== 'string' || !isValidEmail(input.email.trim())) return validationFailed([{ field: 'email', message: 'must be a valid email' }]);
    const email = normalizeEmail(input.email);
    const { cache, limits } = this.deps;
    const reserved = await reserveAttempt(
      cache,
      [
        { key: `reset-mail:address:${input.clientAddress}`, max: limits.perAddress },
        { key: `reset-mail:email:${email}`, max: limits.perEmail },
      ],
      limits.windowSeconds,
    );
    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many reset requests; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };
    return ok({ delivery: this.deliver(email) });
  }

  /** Never rejects: nobody awaits it on the request's path. */
  private async deliver(email: string): Promise<ResetMailOutcome> {
    const { users, issueReset, logger } = this.deps;
    try {
      const user = await users.findByEmail(email);
      if (!user) return 'no-account';
      if (user.passwordHash === null) return (await this.send(user.id, noticeMail(user.email, this.deps.frontendUrl))) ? 'notice-sent' : 'failed';
      const link = await issueReset.execute({ actorId: null, userId: user.id });
      if (!link.ok) return 'no-account';
      return (await this.send(user.id, linkMail(user.email, this.deps.frontendUrl, link.value))) ? 'link-sent' : 'failed';
    } catch (error) {
      logger.error('password reset request failed', { error });
      return 'failed';
    }
  }

  private async send(userId: string, mail: Mail): Promise<boolean> {
    const { mailer, logger, retryDelaysMs } = this.deps;
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    for (let attempt = 0; ; attempt++) {
      try {
        await mailer.send(mail);
        return true;
      } catch (error) {
        if (attempt >= retryDelaysMs.length) {
          logger.error('password reset mail not sent', { userId, attempts: attempt + 1, error });
          return false;
        }
        logger.warn('password reset mail refused; trying again', { userId, attempt: attempt + 1, error });
        await sleep(retryDelaysMs[attempt]!);
      }
    }
  }
}

const askedForReset = (to: string, frontendUrl: string): string => `Someone, probably you, asked to set a new password for the account ${to} at ${frontendUrl}.`;

export function linkMail(to: string, frontendUrl: string, link: { resetUrl: string; expiresAt: Date }): Mail {
  return {
    to,
    subject: 'Set a new password',
    text: mailText(
      askedForReset(to, frontendUrl),
      frontendUrl,
      [`Open this link to choose one. It works once, until ${untilUtc(link.expiresAt)}:`, link.resetUrl],
      'If you did not ask, ignore this mail: your password stays as it is.',
    ),
  };
}

export function noticeMail(to: string, frontendUrl: string): Mail {
  return {
    to,
    subject: 'Your account has no password',
    text: mailText(askedForReset(to, frontendUrl), frontendUrl, ["This account has no password: it signs in through an identity provider. Use that provider's button on the sign-in page."], 'If you did not ask, ignore this mail.'),
  };
}
