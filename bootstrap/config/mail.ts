import type { Reader } from './reader.ts';

/** Outgoing mail (SMTP_URL, MAIL_FROM) and what it serves: "forgot your password?" (ADR 064), changes of email (ADR 065). */
export interface MailConfig {
  /** null: no mail is sent; users cannot ask for a reset link themselves (administrators still make them) or change their email. */
  smtpUrl: string | null;
  from: string;
  timeoutMs: number;
  /** smtp:// refuses a relay that does not offer STARTTLS (the links must not cross a network in clear text). */
  requireTls: boolean;
  /** Reset requests per hour, per email asked for and per client address. */
  resetRequestsPerEmail: number;
  resetRequestsPerAddress: number;
  /** How long the link mailed to a new address works (ADR 065). */
  emailChangeTtlSeconds: number;
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
    requireTls: read.bool('SMTP_REQUIRE_TLS', smtpUrl === null || !onLoopback(smtpUrl)),
    resetRequestsPerEmail: read.int('PASSWORD_RESET_REQUESTS_PER_EMAIL', 3, 1, 1000),
    resetRequestsPerAddress: read.int('PASSWORD_RESET_REQUESTS_PER_ADDRESS', 10, 1, 100_000),
    emailChangeTtlSeconds: read.duration('EMAIL_CHANGE_TTL', 24 * 3600),
  };
}

/** A relay on this machine (the links never cross a network): plain SMTP is fine there unless asked otherwise. */
function onLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}
