import { type Mutation, webGuard } from '../mutation.ts';

/**
 * "Forgot your password?" in the web client (ADR 064): the sign-in page's link (only where the service mails), the
 * page's form (the answer in place of the form, a refused email told at its field and cleared on the next try, a limit
 * told with its wait, in the unit a person counts it in) and its words for a service without mail. Each entry deletes
 * one guard in the source; the runner builds the bundle from it (ADR 058).
 *
 * Not listed: the press of the form (account.ts's `sending`, which the Account page's forms share), and the words of
 * the pages (not guards).
 */
const BROWSER = 'tests/browser/forgot-password.test.ts';
const web = (source: string) => webGuard('forgot-password-web', source, [BROWSER]);
const page = web('web/src/pages/forgot-password.ts');
const signIn = web('web/src/pages/auth.ts');
const api = web('web/src/api.ts');

export const MUTATIONS: Mutation[] = [
  signIn('the sign-in page offers "Forgot your password?" where the service sends no mail', ["mode === 'login' && ctx.features.passwordResetByMail ? ", "mode === 'login' ? "]),
  signIn('the sign-in page never offers "Forgot your password?"', ["mode === 'login' && ctx.features.passwordResetByMail ? ", '(false as boolean) ? ']),
  page('a service without mail shows the form that asks it for a mail', ['  if (!ctx.features.passwordResetByMail) {\n', '  if (false as boolean) {\n']),
  page('the answer is not shown in place of the form', ['          replace(\n            main,\n', "          replace(\n            h('div'),\n"]),
  page('a refused email is told on the status line, not at its field', ['            if (!refused) throw failure;\n', '            throw failure;\n']),
  page("a field's refusal stays after the next try", ["          fieldError(email, '');\n", '']),
  api('a limit does not say how long to wait', ['errorBodyOf(res, text), retryAfterOf(res));', 'errorBodyOf(res, text));']),
  api('a wait of an hour is told as 60 minutes', ['return minutes < 60 ? count(', 'return true ? count(']),
];
