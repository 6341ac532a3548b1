import { type Mutation, webGuard } from '../mutation.ts';

/**
 * Changing the email in the web client (ADR 065): the Account page's form (only where the service mails, the password
 * asked for, no form for an account without one, the answer told with the email that signs in meanwhile, refusals
 * at their fields), the page the mailed link opens (the new email told, the signed-in user reloaded, sign-in offered
 * to a signed-out tab, a dead link pointed back to Account) and the reset page's way to "Forgot your password?". Each
 * entry deletes one guard in the source; the runner builds the bundle from it (ADR 058).
 *
 * Not listed: the press of the forms (account.ts's `sending`, pinned by account.mutations.ts), the token leaving the
 * address bar (the reset page's entry pins the same step), and the words of the pages (not guards).
 */
const BROWSER = 'tests/browser/email-change.test.ts';
const web = (source: string) => webGuard('email-change-web', source, [BROWSER]);
const account = web('web/src/pages/account.ts');
const confirm = web('web/src/pages/confirm-email.ts');

export const MUTATIONS: Mutation[] = [
  account('a service without mail offers a change of email', ['ctx.features.emailChange ? emailForm(user, hasPassword) : null', 'emailForm(user, hasPassword)']),
  account('an account without a password is offered a change of email it cannot make', ['  if (!hasPassword) {\n    return h(\'section\'', '  if (false as boolean) {\n    return h(\'section\'']),
  account('the change of email does not send the password', ["answer = await api.post<{ message: string }>('/auth/email', { newEmail: newEmail.value, password: password.value });", "answer = await api.post<{ message: string }>('/auth/email', { newEmail: newEmail.value });"]),
  account('a sent change of email is not told', ['return `${answer.message.replace(', 'return void `${answer.message.replace(']),
  account('a refused new email or password is told on the status line, not at its field', ['            if (refusedAtFields(failure, controls)) return;\n', '']),
  account('a dead reset link points to an administrator where the service mails links', ['const byMail = ctx.features.passwordResetByMail;', 'const byMail = false as boolean;']),
  confirm('the signed-in user keeps the old email after the change', ['          if (ctx.user) await ctx.refreshUser().catch(() => undefined);\n', '']),
  confirm('a tab signed out is sent to Account, not to sign in, after the change', ['const next = ctx.user ? ', 'const next = (true as boolean) ? ']),
  confirm('a dead link is told without the way to ask again', ['            if (!deadLinkTold(failure, status, ', '            if (failure || !deadLinkTold(failure, status, ']),
];
