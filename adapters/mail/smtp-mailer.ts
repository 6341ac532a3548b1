import nodemailer, { type Transporter } from 'nodemailer';
import type { Mail, Mailer } from '../../core/ports/mailer.port.ts';

export interface SmtpMailerOptions {
  /** smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://…:465 (TLS from the start). */
  url: string;
  /** The From header: an address, or `Name <address>`. */
  from: string;
  /** For connecting, the server's greeting and each exchange after. */
  timeoutMs: number;
  /** With smtp://, refuse to send unless the relay upgrades the connection to TLS (STARTTLS); smtps:// is TLS anyway. */
  requireTls: boolean;
}

/** Mail over SMTP with nodemailer: one connection per mail (reset mails are rare), closed when it is sent. */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(options: SmtpMailerOptions) {
    const timeout = options.timeoutMs;
    this.transport = nodemailer.createTransport(
      { url: options.url, requireTLS: options.requireTls, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout },
      { from: options.from },
    );
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text });
  }
}
