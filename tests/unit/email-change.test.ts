/**
 * Changing one's email (ADR 065) on the in-memory adapters, mailing through the real SMTP adapter to a real SMTP server:
 * what the HTTP tests cannot reach there (an account without a password, a refused proof that must leave nothing, a
 * relay that refuses the confirmation or the notice, an answer that must not wait for the notice).
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.ts';
import { MemoryCache } from '../../adapters/memory/memory-cache.ts';
import { MemoryStore } from '../../adapters/memory/memory-store.ts';
import { MemoryUnitOfWork } from '../../adapters/memory/memory-unit-of-work.ts';
import type { LogFields, Logger } from '../../core/ports/logger.port.ts';
import type { Mailer } from '../../core/ports/mailer.port.ts';
import type { PasswordHasher } from '../../core/ports/password-hasher.port.ts';
import { ConfirmEmailChange } from '../../core/use-cases/auth/confirm-email-change.use-case.ts';
import { LISTED_ADMIN_EMAIL, RequestEmailChange } from '../../core/use-cases/auth/request-email-change.use-case.ts';
import { sharedSmtpTestServer, startSmtpTestServer } from '../support/smtp-test-server.ts';

const T0 = Date.parse('2031-07-01T12:00:00.000Z');
const FRONTEND = 'https://app.example';
const PASSWORD = 'correct horse battery';

const server = sharedSmtpTestServer(test, { clearEachTest: true });

function world(options: { mailer?: (real: Mailer) => Mailer; perUser?: number; perAddress?: { mailed: number; client: number } } = {}) {
  const store = new MemoryStore();
  const repos = new MemoryUnitOfWork(store).autocommit;
  const tokens = new JwtTokenIssuer({ secret: 'x'.repeat(40), issuer: 'i', audience: 'a', accessTokenTtlSeconds: 60 });
  const clock = { now: () => new Date(T0) };
  const errors: { message: string; fields?: LogFields }[] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message, fields) => void errors.push({ message, fields }), child: () => logger };
  const hasher: PasswordHasher = { hash: async (password) => `plain:${password}`, verify: async (password, hash) => hash === `plain:${password}` };
  const real = new SmtpMailer({ url: server().url, from: 'no-reply@app.example', timeoutMs: 2_000, requireTls: false });
  const mailer = options.mailer ? options.mailer(real) : real;
  const common = { users: repos.users, tokens, clock, mailer, logger, frontendUrl: FRONTEND, adminEmails: ['listed-admin@example.com'] };
  const request = new RequestEmailChange({
    ...common,
    hasher,
    cache: new MemoryCache(() => T0),
    limits: { perAccountAndAddress: 10, perAccount: 100, perAddress: 20, windowSeconds: 900 },
    ttlSeconds: 600,
    perUser: { max: options.perUser ?? 5, windowSeconds: 3600 },
    perAddress: options.perAddress ?? { mailed: 3, client: 20 },
  });
  const confirm = new ConfirmEmailChange(common);
  const addUser = async (passwordHash: string | null = `plain:${PASSWORD}`, email?: string) => {
    const id = randomUUID();
    email ??= `${id}@example.com`;
    await repos.users.create({ id, email, displayName: 'Someone', role: 'user', passwordHash, createdAt: new Date(T0) });
    return { id, email };
  };
  const ask = (user: { id: string; email: string }, newEmail: unknown, password: unknown = PASSWORD, clientAddress = '10.0.0.1') => request.execute({ userId: user.id, email: user.email, newEmail, password, clientAddress });
  return { store, repos, errors, request, confirm, addUser, ask, common };
}

const tokenIn = (text: string) => /#token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
const fresh = () => `new-${randomUUID()}@example.com`;

test.serial('the link mailed to the new address changes the email; the old address is told; a reset link of the old address dies', async (t) => {
  const w = world();
  const user = await w.addUser();
  await w.repos.users.setPasswordReset(user.id, { tokenHash: 'mailed to the old address', expiresAt: new Date(T0 + 60_000) }, new Date(T0));
  const newEmail = fresh();
  t.like(await w.ask(user, newEmail), { ok: true, value: { newEmail, expiresAt: new Date(T0 + 600_000) } });
  const [mail] = await server().waitForMails(1);
  t.deepEqual(mail!.envelopeTo, [newEmail]);
  t.true(mail!.text.includes(`${FRONTEND}/confirm-email#token=`));
  t.true(mail!.text.includes('2031-07-01 12:10 UTC'));
  const confirmed = await w.confirm.execute({ token: tokenIn(mail!.text) });
  t.like(confirmed, { ok: true, value: { email: newEmail } });
  t.is(w.store.users.get(user.id)!.email, newEmail);
  t.is(w.store.users.get(user.id)!.passwordReset ?? null, null);
  t.true(await (confirmed as { value: { notified: Promise<boolean> } }).value.notified);
  const notice = server().mails.find((sent) => sent.envelopeTo.includes(user.email));
  t.like(notice, { subject: 'Your email was changed' });
  t.true(notice!.text.includes(`from ${user.email} to ${newEmail}`));
});

test.serial('an account without a password, and one whose email ADMIN_EMAILS lists, keep their email: CONFLICT, nothing stored or mailed', async (t) => {
  const w = world();
  const provider = await w.addUser(null);
  const admin = await w.addUser(`plain:${PASSWORD}`, 'listed-admin@example.com');
  t.like(await w.ask(provider, fresh(), null), { ok: false, code: 'CONFLICT', message: 'This account signs in through an identity provider and has no password: its email cannot be changed here' });
  t.like(await w.ask(admin, fresh()), { ok: false, code: 'CONFLICT', message: LISTED_ADMIN_EMAIL });
  t.is(w.store.users.get(provider.id)!.emailChange ?? null, null);
  t.is(w.store.users.get(admin.id)!.emailChange ?? null, null);
  t.is(server().mails.length, 0);
});

test.serial('an email ADMIN_EMAILS lists by the time of the confirmation stays: CONFLICT, and the change waits', async (t) => {
  const w = world();
  const user = await w.addUser();
  t.like(await w.ask(user, fresh()), { ok: true });
  const token = tokenIn((await server().waitForMails(1))[0]!.text);
  const listedNow = new ConfirmEmailChange({ ...w.common, adminEmails: [user.email] });
  t.like(await listedNow.execute({ token }), { ok: false, code: 'CONFLICT', message: LISTED_ADMIN_EMAIL });
  t.is(w.store.users.get(user.id)!.email, user.email);
  t.like(await w.confirm.execute({ token }), { ok: true }, 'the link still works once the list no longer names it');
});

test.serial('limits per address mailed and per client address, besides the per-user one', async (t) => {
  const w = world({ perAddress: { mailed: 2, client: 3 } });
  const target = fresh();
  for (let i = 0; i < 2; i++) t.like(await w.ask(await w.addUser(), target, PASSWORD, `10.0.5.${i}`), { ok: true });
  t.like(await w.ask(await w.addUser(), target, PASSWORD, '10.0.5.9'), { ok: false, code: 'AUTH.RATE_LIMITED' }, 'a third mail to one address');
  t.like(await w.ask(await w.addUser(), fresh(), PASSWORD, '10.0.6.1'), { ok: true });
  t.like(await w.ask(await w.addUser(), fresh(), PASSWORD, '10.0.6.1'), { ok: true });
  t.like(await w.ask(await w.addUser(), fresh(), PASSWORD, '10.0.6.1'), { ok: true });
  t.like(await w.ask(await w.addUser(), fresh(), PASSWORD, '10.0.6.1'), { ok: false, code: 'AUTH.RATE_LIMITED' }, 'a fourth request from one client address');
});

test.serial('a refused proof leaves nothing: no mail, no pending change, and no hit on the per-user limit', async (t) => {
  const w = world({ perUser: 1 });
  const user = await w.addUser(`plain:${PASSWORD}`);
  t.like(await w.ask(user, fresh(), 'wrong password'), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'password', message: 'is wrong' }] });
  t.like(await w.ask(user, fresh(), null), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'password', message: 'is required' }] });
  t.is(w.store.users.get(user.id)!.emailChange ?? null, null);
  t.like(await w.ask(user, fresh(), PASSWORD), { ok: true }, 'the one change allowed is still there');
  t.like(await w.ask(user, fresh(), PASSWORD), { ok: false, code: 'AUTH.RATE_LIMITED' });
  t.is(server().mails.length, 1);
});

test.serial('an address another account has: 409 before anything is stored or mailed', async (t) => {
  const w = world();
  const user = await w.addUser(`plain:${PASSWORD}`);
  const other = await w.addUser(null);
  t.like(await w.ask(user, other.email.toUpperCase(), PASSWORD), { ok: false, code: 'USER.EMAIL_TAKEN' });
  t.is(w.store.users.get(user.id)!.emailChange ?? null, null);
  t.is(server().mails.length, 0);
});

test.serial('a relay that refuses the confirmation: UPSTREAM.FAILED at once, logged; the change and its hit on the limit are gone', async (t) => {
  const w = world({ perUser: 1 });
  const user = await w.addUser();
  server().refuseNext(1);
  t.like(await w.ask(user, fresh()), { ok: false, code: 'UPSTREAM.FAILED' });
  t.like(w.errors, [{ message: 'email change mail not sent', fields: { userId: user.id } }]);
  t.is(w.store.users.get(user.id)!.email, user.email);
  t.is(w.store.users.get(user.id)!.emailChange, null, 'no change waits on a link nobody has');
  t.like(await w.ask(user, fresh()), { ok: true }, 'the one change allowed is still there');
});

test.serial('the confirmation answers without waiting for the notice to the old address; a refused notice is logged and the change stands', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let held = 0;
  const w = world({
    mailer: (real) => ({
      async send(mail) {
        if (mail.subject === 'Your email was changed') {
          held++;
          await gate;
          throw new Error('relay gone');
        }
        return real.send(mail);
      },
    }),
  });
  t.teardown(open);
  const user = await w.addUser();
  const newEmail = fresh();
  t.like(await w.ask(user, newEmail), { ok: true });
  const token = tokenIn((await server().waitForMails(1))[0]!.text);
  const answer = await Promise.race([w.confirm.execute({ token }), new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 1_000))]);
  if (answer === 'held') return t.fail('the answer waited for the notice');
  t.like(answer, { ok: true, value: { email: newEmail } });
  t.is(held, 1, 'the notice is under way');
  open();
  t.false(await (answer as { value: { notified: Promise<boolean> } }).value.notified);
  t.like(w.errors, [{ message: 'email change notice not sent', fields: { userId: user.id } }]);
  t.is(w.store.users.get(user.id)!.email, newEmail);
});

test.serial('a token that is not one is refused before any lookup', async (t) => {
  const w = world();
  for (const token of [undefined, '', 42, 'x'.repeat(257)]) {
    t.like(await w.confirm.execute({ token }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'token' }] });
  }
  t.like(await w.confirm.execute({ token: 'made-up' }), { ok: false, code: 'VALIDATION.FAILED', details: [{ field: 'token' }] });
});

test.serial('confirmations of one link at once: one changes the email, the others are told the link is dead', async (t) => {
  const w = world();
  const user = await w.addUser();
  const newEmail = fresh();
  t.like(await w.ask(user, newEmail), { ok: true });
  const token = tokenIn((await server().waitForMails(1))[0]!.text);
  const answers = await Promise.all([1, 2, 3].map(() => w.confirm.execute({ token })));
  t.is(answers.filter((answer) => answer.ok).length, 1);
  t.deepEqual(
    answers.filter((answer) => !answer.ok).map((answer) => (answer as { code: string }).code),
    ['VALIDATION.FAILED', 'VALIDATION.FAILED'],
  );
  await Promise.all(answers.map((answer) => (answer.ok ? answer.value.notified : null)));
  t.is(server().mails.filter((mail) => mail.subject === 'Your email was changed').length, 1, 'the old address is told once');
});
