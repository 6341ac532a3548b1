/** One plain-text mail to one address. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail (SMTP_URL); a deployment without one binds none, and what needs it is not offered (ADR 064). */
export interface Mailer {
  /** Resolves once the mail server took the mail; rejects when it refused it or could not be reached. */
  send(mail: Mail): Promise<void>;
}
