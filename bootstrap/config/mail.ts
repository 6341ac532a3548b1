import type { Reader } from './reader.ts';

/** Outgoing mail (SMTP_URL, MAIL_FROM) and the "forgot your password?" requests it serves (ADR 064). */
export interface MailConfig {
  /** null: no mail is sent, and users cannot ask for a reset link themselves (administrators still make them). */
  smtpUrl: string | null;
  from: string;
  timeoutMs: number;
  /** Reset requests per hour, per email asked for and per client address. */
  resetRequestsPerEmail: number;
  resetRequestsPerAddress: number;
}

/** A From header: an address, or `Name <address>`. */
const FROM = /^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

export function readMail(read: Reader): MailConfig {
  const smtpUrl = read.raw('SMTP_URL') ?? null;
  if (smtpUrl !== null) read.url('SMTP_URL', smtpUrl, ['smtp:', 'smtps:']);
  const from = smtpUrl !== null ? read.required('MAIL_FROM', 'when SMTP_URL is set') : read.string('MAIL_FROM', '');
  if (from && !FROM.test(from)) read.problems.push(`MAIL_FROM must be an address or "Name <address>" (got "${from}")`);
  return {
    smtpUrl,
    from,
    timeoutMs: read.int('SMTP_TIMEOUT_MS', 15_000, 100, 300_000),
    resetRequestsPerEmail: read.int('PASSWORD_RESET_REQUESTS_PER_EMAIL', 3, 1, 1000),
    resetRequestsPerAddress: read.int('PASSWORD_RESET_REQUESTS_PER_ADDRESS', 10, 1, 100_000),
  };
}
