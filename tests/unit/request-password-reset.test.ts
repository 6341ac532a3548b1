/**
 * "Forgot your password?" (ADR 064) on the in-memory adapters, mailing through the real SMTP adapter to a real SMTP
 * server: what the HTTP tests cannot reach there (an account without a password, a relay that refuses or is down, a
 * lookup that has not even started when the answer is given, a database failure after the answer).
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { LogFields, Logger } from '../../core/ports/logger.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import { IssuePasswordReset } from '../../core/use-cases/auth/issue-password-reset.use-case.ts';
import { RequestPasswordReset } from '../../core/use-cases/auth/request-password-reset.use-case.ts';
import { sharedSmtpTestServer, startSmtpTestServer } from '../support/smtp-test-server.ts';

const T0 = Date.parse('2031-07-01T12:00:00.000Z');
const FRONTEND = 'https://app.example';

function recordingLogger(): Logger & { lines: { level: string; message: string; fields?: LogFields }[] } {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const logger = {
    lines,
    debug: (message: string, fields?: LogFields) => void lines.push({ level: 'debug', message, fields }),
    info: (message: string, fields?: LogFields) => void lines.push({ level: 'info', message, fields }),
    warn: (message: string, fields?: LogFields) => void lines.push({ level: 'warn', message, fields }),
    error: (message: string, fields?: LogFields) => void lines.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return logger;
}

interface WorldOptions {
  smtpUrl: string;
  requireTls?: boolean;
  users?: (users: UserRepository) => UserRepository;
  limits?: { perEmail: number; perAddress: number };
  retryDelaysMs?: number[];
}

function world(options: WorldOptions) {
  const store = new MemoryStore();
  const uow = new MemoryUnitOfWork(store);
  const repos = uow.autocommit;
  const tokens = new JwtTokenIssuer({ secret: 'x'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 });
  const clock = { now: () => new Date(T0) };
  const issueReset = new IssuePasswordReset({ uow, tokens, ids: { newId: randomUUID }, clock, frontendUrl: FRONTEND, ttlSeconds: 600 });
  const logger = recordingLogger();
  const slept: number[] = [];
  const request = new RequestPasswordReset({
    users: options.users ? options.users(repos.users) : repos.users,
    issueReset,
    mailer: new SmtpMailer({ url: options.smtpUrl, from: 'Media service <no-reply@app.example>', timeoutMs: 2_000, requireTls: options.requireTls ?? false }),
    cache: new MemoryCache(() => T0),
    logger,
    frontendUrl: FRONTEND,
    limits: { windowSeconds: 3600, ...(options.limits ?? { perEmail: 3, perAddress: 10 }) },
    retryDelaysMs: options.retryDelaysMs ?? [7, 11],
    sleep: async (ms) => void slept.push(ms),
  });
  const addUser = async (passwordHash: string | null) => {
    const id = randomUUID();
    const email = `${id}@example.com`;
    await repos.users.create({ id, email, displayName: 'Someone', role: 'user', passwordHash, createdAt: new Date(T0) });
    return { id, email };
  };
  const ask = async (email: unknown, clientAddress = '10.0.0.1') => {
    const result = await request.execute({ email, clientAddress });
    if (!result.ok) throw new Error(`refused: ${result.code}`);
    return result.value.delivery;
  };
  return { store, repos, tokens, request, logger, slept, addUser, ask };
}

const server = sharedSmtpTestServer(test, { clearEachTest: true });

const mailsTo = (address: string) => server().mails.filter((mail) => mail.envelopeTo.includes(address));
const tokenIn = (text: string) => /#token=([A-Za-z0-9_-]+)/.exec(text)?.[1];

test.serial('an account with a password gets the link: to its own address, from MAIL_FROM, and the link is the one stored', async (t) => {
  const w = world({ smtpUrl: server().url });
  const user = await w.addUser('hash');
  t.is(await w.ask(`  ${user.email.toUpperCase()} `), 'link-sent');
  const [mail] = mailsTo(user.email);
  t.truthy(mail);
  t.is(mail!.envelopeFrom, 'no-reply@app.example');
  t.is(mail!.from, '"Media service" <no-reply@app.example>');
  t.is(mail!.subject, 'Set a new password');
  t.true(mail!.text.includes(`${FRONTEND}/reset-password#token=`));
  t.true(mail!.text.includes('2031-07-01 12:10 UTC'), 'the expiry, PASSWORD_RESET_TTL after the request');
  const token = tokenIn(mail!.text)!;
  const stored = w.store.users.get(user.id)!.passwordReset;
  t.is(stored?.tokenHash, w.tokens.hashOpaqueToken(token), 'the mailed link is the one stored (its hash, never the token)');
  t.deepEqual(stored?.expiresAt, new Date(T0 + 600_000));
  t.is(server().mails.length, 1);
});

test.serial('an account without a password (made through a provider) gets a note and no link; nothing is stored on it', async (t) => {
  const w = world({ smtpUrl: server().url });
  const user = await w.addUser(null);
  t.is(await w.ask(user.email), 'notice-sent');
  const [mail] = mailsTo(user.email);
  t.is(mail!.subject, 'Your account has no password');
  t.is(tokenIn(mail!.text), undefined);
  t.false(mail!.text.includes('reset-password'));
  t.is(w.store.users.get(user.id)!.passwordReset ?? null, null);
});

test.serial('an email no account has: no mail, nothing stored, and the same answer', async (t) => {
  const w = world({ smtpUrl: server().url });
  const user = await w.addUser('hash');
  t.is(await w.ask('nobody-here@example.com'), 'no-account');
  t.is(server().mails.length, 0);
  t.is(w.store.users.get(user.id)!.passwordReset ?? null, null);
});

test.serial('the answer comes before the account is looked up: its timing tells nothing', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let lookups = 0;
  const w = world({
    smtpUrl: server().url,
    users: (users) =>
      new Proxy(users, {
        get(target, key, receiver) {
          if (key !== 'findByEmail') return Reflect.get(target, key, receiver);
          return async (email: string) => {
            lookups++;
            await gate;
            return target.findByEmail(email);
          };
        },
      }),
  });
  t.teardown(open);
  const user = await w.addUser('hash');
  // An answer that waited for the lookup would never come while it is held: give up on it after a second.
  const result = await Promise.race([w.request.execute({ email: user.email, clientAddress: '10.0.0.1' }), new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 1_000))]);
  if (result === 'held') return t.fail('the answer waited for the lookup');
  t.true(result.ok, 'answered while the lookup is held');
  t.is(lookups, 1, 'the lookup has started, and is held');
  t.is(server().mails.length, 0);
  open();
  t.is(await (result as { value: { delivery: Promise<string> } }).value.delivery, 'link-sent');
  t.is(lookups, 1);
});

test.serial('a relay that refuses (451) is tried again after each wait; the third refusal gives up and says so in the log', async (t) => {
  const w = world({ smtpUrl: server().url });
  const user = await w.addUser('hash');
  server().refuseNext(2);
  t.is(await w.ask(user.email), 'link-sent');
  t.deepEqual(w.slept, [7, 11]);
  t.is(mailsTo(user.email).length, 1);

  server().refuseNext(3);
  t.is(await w.ask(user.email), 'failed');
  t.deepEqual(w.slept, [7, 11, 7, 11]);
  t.is(mailsTo(user.email).length, 1);
  const error = w.logger.lines.find((line) => line.level === 'error');
  t.like(error, { message: 'password reset mail not sent', fields: { userId: user.id, attempts: 3 } });
  t.false(JSON.stringify(w.logger.lines.map((line) => line.fields?.userId)).includes('token'));
});

test.serial('a relay that is down: the request still answers, the delivery fails without throwing', async (t) => {
  const down = await startSmtpTestServer();
  await down.close();
  const w = world({ smtpUrl: down.url, retryDelaysMs: [1] });
  const user = await w.addUser('hash');
  t.is(await w.ask(user.email), 'failed');
  t.is(w.slept.length, 1);
  t.like(w.logger.lines.at(-1), { level: 'error', message: 'password reset mail not sent' });
});

test.serial('a relay that asks for a login gets the one in SMTP_URL; a wrong one is refused and nothing is sent', async (t) => {
  const guarded = await startSmtpTestServer({ user: 'relay user', password: 'p@ss:word' });
  t.teardown(() => guarded.close());
  const w = world({ smtpUrl: guarded.url });
  const user = await w.addUser('hash');
  t.is(await w.ask(user.email), 'link-sent');
  t.is(guarded.mails.length, 1);
  t.is(guarded.refusedLogins, 0);

  const wrong = world({ smtpUrl: guarded.url.replace('p%40ss', 'nope'), retryDelaysMs: [] });
  const other = await wrong.addUser('hash');
  t.is(await wrong.ask(other.email), 'failed');
  t.is(guarded.refusedLogins, 1);
  t.is(guarded.mails.length, 1);
});

test.serial('a database failure after the answer is logged, and the delivery does not reject', async (t) => {
  const w = world({
    smtpUrl: server().url,
    users: (users) =>
      new Proxy(users, {
        get(target, key, receiver) {
          if (key === 'findByEmail') return async () => Promise.reject(new Error('database gone'));
          return Reflect.get(target, key, receiver);
        },
      }),
  });
  const user = await w.addUser('hash');
  t.is(await w.ask(user.email), 'failed');
  t.like(w.logger.lines.at(-1), { level: 'error', message: 'password reset request failed' });
  t.is(server().mails.length, 0);
});

test.serial('limits: per email asked for (whether or not an account has it), and per client address', async (t) => {
  const w = world({ smtpUrl: server().url, limits: { perEmail: 2, perAddress: 3 } });
  const user = await w.addUser('hash');
  for (const email of [user.email, 'nobody@example.com']) {
    for (let i = 0; i < 2; i++) t.true((await w.request.execute({ email, clientAddress: `10.0.1.${i}` })).ok);
    const third = await w.request.execute({ email: email.toUpperCase(), clientAddress: '10.0.1.9' });
    t.like(third, { ok: false, code: 'AUTH.RATE_LIMITED' });
    t.true((third as { retryAfterSeconds: number }).retryAfterSeconds > 0);
  }
  // One address: three requests for three emails, the fourth refused, and the refusal takes no hit from its email.
  const asked = ['a@example.com', 'b@example.com', 'c@example.com'];
  for (const email of asked) t.true((await w.request.execute({ email, clientAddress: '10.0.2.1' })).ok);
  t.like(await w.request.execute({ email: 'd@example.com', clientAddress: '10.0.2.1' }), { ok: false, code: 'AUTH.RATE_LIMITED' });
  t.true((await w.request.execute({ email: 'd@example.com', clientAddress: '10.0.2.2' })).ok);
  t.true((await w.request.execute({ email: 'd@example.com', clientAddress: '10.0.2.3' })).ok, 'd@ had one hit, not two');
});

test.serial('an email that is not one is 400 naming email, and counts on no limit', async (t) => {
  const w = world({ smtpUrl: server().url, limits: { perEmail: 1, perAddress: 1 } });
  for (const email of [undefined, '', 'no-at-sign', 42, 'x@deleted.invalid']) {
    t.like(await w.request.execute({ email, clientAddress: '10.0.3.1' }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'email' }] });
  }
  t.true((await w.request.execute({ email: 'fine@example.com', clientAddress: '10.0.3.1' })).ok);
});

test.serial('with TLS required, a relay that offers no STARTTLS gets no mail (the link would cross the network in clear text)', async (t) => {
  const w = world({ smtpUrl: server().url, requireTls: true, retryDelaysMs: [] });
  const user = await w.addUser('hash');
  t.is(await w.ask(user.email), 'failed');
  t.is(server().mails.length, 0);
  t.like(w.logger.lines.at(-1), { level: 'error', message: 'password reset mail not sent' });
});
