/**
 * A real SMTP server for the tests (smtp-server, from the nodemailer project), on a free loopback port: it takes mail
 * as any relay would, parses it (mailparser) and keeps it for the test to read. It can ask for a login, and refuse the
 * next mails with a temporary error (451), as a busy relay does.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's sender and recipients, as the client gave them in MAIL FROM and RCPT TO. */
  envelopeFrom: string;
  envelopeTo: string[];
  /** The From header as written. */
  from: string;
  subject: string;
  text: string;
}

export interface SmtpTestServer {
  /** smtp://[user:password@]127.0.0.1:port */
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Logins refused (wrong user or password). */
  refusedLogins: number;
  /** The next `count` mails get 451 after their data. */
  refuseNext(count: number): void;
  /** Waits until at least `count` mails have come (rejects after `timeoutMs`). */
  waitForMails(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The mails whose envelope named this recipient. */
  mailsTo(address: string): ReceivedMail[];
  /** Waits until at least `count` mails to this recipient have come (rejects after `timeoutMs`). */
  waitForMailTo(address: string, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpTestServer(options: { user?: string; password?: string } = {}): Promise<SmtpTestServer> {
  const mails: ReceivedMail[] = [];
  let refusals = 0;
  const state = { refusedLogins: 0 };
  const login = options.user !== undefined ? { user: options.user, password: options.password ?? '' } : null;
  const server = new SMTPServer({
    secure: false,
    // Plain text on loopback: no certificate to make, and nodemailer would upgrade to TLS if offered.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: login === null,
    logger: false,
    onAuth(auth, _session, callback) {
      if (login && auth.username === login.user && auth.password === login.password) return callback(null, { user: auth.username });
      state.refusedLogins++;
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          if (refusals > 0) {
            refusals--;
            return callback(Object.assign(new Error('Busy: try again later'), { responseCode: 451 }));
          }
          const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          mails.push({ envelopeFrom, envelopeTo: session.envelope.rcptTo.map((to) => to.address), from: parsed.from?.text ?? '', subject: parsed.subject ?? '', text: parsed.text ?? '' });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const mailsTo = (address: string) => mails.filter((mail) => mail.envelopeTo.includes(address));
  const credentials = login ? `${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@` : '';
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    port,
    mails,
    get refusedLogins() {
      return state.refusedLogins;
    },
    refuseNext(count) {
      refusals = count;
    },
    waitForMails: (count, timeoutMs) => waitFor(() => mails, count, timeoutMs, 'mail(s)'),
    mailsTo,
    waitForMailTo: (address, count = 1, timeoutMs) => waitFor(() => mailsTo(address), count, timeoutMs, `mail(s) to ${address}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(list: () => ReceivedMail[], count: number, timeoutMs = 10_000, what: string): Promise<ReceivedMail[]> {
  const deadline = Date.now() + timeoutMs;
  while (list().length < count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} ${what}; ${list().length} came`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return list();
}

/**
 * One server for the tests of a file (serial ones: the mails are shared), started before them and closed after; with
 * `clearEachTest` each test starts with no mail and no refusal. Call at the top level of the test file.
 */
export function sharedSmtpTestServer(test: TestHooks, options: { clearEachTest?: boolean } = {}): () => SmtpTestServer {
  let server: SmtpTestServer | undefined;
  test.before(async () => {
    server = await startSmtpTestServer();
  });
  test.after.always(() => server?.close());
  if (options.clearEachTest) {
    test.beforeEach(() => {
      server!.mails.length = 0;
      server!.refuseNext(0);
    });
  }
  return () => server!;
}

/** The part of ava's `test` the hooks above need. */
interface TestHooks {
  before(fn: () => Promise<void>): void;
  after: { always(fn: () => Promise<void> | undefined): void };
  beforeEach(fn: () => void): void;
}
