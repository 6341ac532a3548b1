import { fail, ok, validationFailed, type Fail, type Result } from '../../domain/result.ts';
import { isValidEmail, normalizeEmail } from '../../domain/user.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { Mail, Mailer } from '../../ports/mailer.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import { mailText, tokenLink, untilUtc } from './account-mail.service.ts';
import { reserveAttempt } from './attempt-limits.service.ts';
import { provePassword, type PasswordProofDeps, type PasswordProofFailure } from './password-proof.service.ts';

/** What both halves of a change of email need: the account, its tokens, the clock, and the mail with what it names. */
export interface EmailChangeMailDeps {
  users: UserRepository;
  tokens: TokenIssuer;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
  frontendUrl: string;
  /** ADMIN_EMAILS: a listed address stays the account's (`mustKeepEmail`). */
  adminEmails: readonly string[];
}

export interface RequestEmailChangeDeps extends PasswordProofDeps, EmailChangeMailDeps {
  /** How long the link mailed to the new address works (EMAIL_CHANGE_TTL). */
  ttlSeconds: number;
  /** Changes one user may ask for per window: each one mails an address the user chose. */
  perUser: { max: number; windowSeconds: number };
  /** Requests per window (the same) that mail one address, and that come from one client address. */
  perAddress: { mailed: number; client: number };
}

export interface RequestEmailChangeInput {
  userId: string;
  /** The account's email, as the session names it. */
  email: string;
  newEmail: unknown;
  password: unknown;
  clientAddress: string;
}

/** Where the web client takes the token of a change of email: in the fragment, like a reset link's. */
export const emailChangeLink = (frontendUrl: string, token: string): string => tokenLink(frontendUrl, '/confirm-email', token);

/**
 * A signed-in user asks to change the account's email (ADR 065): the password proves it is them, and a link mailed to
 * the new address proves that address is theirs (an account without a password, or with a listed administrator's
 * address, keeps its email: `mustKeepEmail`). Nothing changes until
 * that link is used (`ConfirmEmailChange`); a newer request replaces the last. The relay's refusal is told at once
 * (502): the user is there to try again.
 */
export class RequestEmailChange {
  constructor(private readonly deps: RequestEmailChangeDeps) {}

  async execute(input: RequestEmailChangeInput): Promise<Result<{ newEmail: string; expiresAt: Date }> | PasswordProofFailure> {
    const { users, tokens, clock, mailer, logger, frontendUrl, ttlSeconds, cache, perUser, perAddress } = this.deps;
    if (typeof input.newEmail !== 'string' || !isValidEmail(input.newEmail.trim())) return validationFailed([{ field: 'newEmail', message: 'must be a valid email' }]);
    const newEmail = normalizeEmail(input.newEmail);
    const account = await users.findByEmail(input.email);
    if (!account || account.id !== input.userId) return fail('NOT_FOUND', 'User not found');
    if (newEmail === account.email) return validationFailed([{ field: 'newEmail', message: 'is already your email' }]);
    const stays = mustKeepEmail(this.deps, account);
    if (stays) return stays;
    const { password } = input;
    if (typeof password !== 'string' || password.length === 0 || password.length > 1024) return validationFailed([{ field: 'password', message: 'is required' }]);
    const refused = await provePassword(this.deps, { email: account.email, passwordHash: account.passwordHash! }, { password, field: 'password', clientAddress: input.clientAddress });
    if (refused) return refused;
    // Each request mails an address the user chose: limited per user, per address mailed and per client address.
    const reserved = await reserveAttempt(
      cache,
      [
        { key: `email-change:user:${account.id}`, max: perUser.max },
        { key: `email-change:to:${newEmail}`, max: perAddress.mailed },
        { key: `email-change:from:${input.clientAddress}`, max: perAddress.client },
      ],
      perUser.windowSeconds,
    );
    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many changes of email; try again later'), retryAfterSeconds: reserved.retryAfterSeconds };
    if (await users.findByEmail(newEmail)) return fail('USER.EMAIL_TAKEN', 'An account with this email already exists');

    const token = tokens.newOpaqueToken();
    const tokenHash = tokens.hashOpaqueToken(token);
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    if (!(await users.setEmailChange(account.id, { email: newEmail, tokenHash, expiresAt }, now))) return fail('NOT_FOUND', 'User not found');
    try {
      await mailer.send(confirmationMail(newEmail, account.email, frontendUrl, { url: emailChangeLink(frontendUrl, token), expiresAt }));
    } catch (error) {
      logger.error('email change mail not sent', { userId: account.id, error });
      // Nothing of a request whose mail never left stays: not its link (nobody has it), not its hits on the limits.
      await users.clearEmailChange(account.id, tokenHash, clock.now());
      await reserved.release();
      return fail('UPSTREAM.FAILED', 'The mail to the new address could not be sent; try again later');
    }
    return ok({ newEmail, expiresAt });
  }
}

export const LISTED_ADMIN_EMAIL = 'This email is listed in ADMIN_EMAILS, which makes whoever signs up with it an administrator: the operator takes it off that list before it can change';

/**
 * Why this account's email cannot change here, or null. An address in ADMIN_EMAILS makes whoever signs up with it an
 * administrator, so it must not be freed while listed. An account without a password (made through a provider) has
 * only its session to prove it is its owner's, and a provider login links to the account by its email (ADR 053): a
 * stolen session would make the account the thief's for good.
 */
export function mustKeepEmail(deps: { adminEmails: readonly string[] }, account: { email: string; passwordHash: string | null }): Fail | null {
  if (deps.adminEmails.includes(account.email)) return fail('CONFLICT', LISTED_ADMIN_EMAIL);
  if (!account.passwordHash) return fail('CONFLICT', 'This account signs in through an identity provider and has no password: its email cannot be changed here');
  return null;
}

export function confirmationMail(to: string, currentEmail: string, frontendUrl: string, link: { url: string; expiresAt: Date }): Mail {
  return {
    to,
    subject: 'Confirm your new email',
    text: mailText(
      `Someone, probably you, asked to change the email of the account ${currentEmail} at ${frontendUrl} to this address.`,
      frontendUrl,
      [`Open this link to confirm it. It works once, until ${untilUtc(link.expiresAt)}:`, link.url],
      'If you did not ask, ignore this mail: nothing changes.',
    ),
  };
}
