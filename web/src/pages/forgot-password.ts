import { api, ApiError } from '../api.ts';
import { field, fieldError, h, replace, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { sending } from './account.ts';

const TITLE = 'Forgot your password?';

const backToSignIn = () => h('p', null, h('a', { href: '/login', 'data-link': '' }, 'Back to sign in'));

/**
 * Asks the service to mail the account's one-time link to `/reset-password` (ADR 064). The answer is the same whether
 * or not an account has the email, and the page says no more than it. A service without mail (SMTP_URL unset, so
 * `passwordResetByMail` false) takes no such request: the page says who makes the links there instead.
 */
export function forgotPasswordPage(ctx: Ctx, main: HTMLElement): void {
  if (!ctx.features.passwordResetByMail) {
    replace(
      main,
      h('section', { className: 'card narrow' }, h('h1', null, TITLE), h('p', null, 'This service does not send mail: ask an administrator for a link to set a new password.'), backToSignIn()),
    );
    return;
  }
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, maxLength: 254 });
  const status = statusLine('status error');
  const submit = h('button', { type: 'submit' }, 'Send link');
  const form = h(
    'form',
    {
      className: 'card narrow',
      on: {
        submit: sending(submit, status, {}, async () => {
          fieldError(email, '');
          let answer: { message: string };
          try {
            answer = await api.post<{ message: string }>('/auth/forgot-password', { email: email.value });
          } catch (failure) {
            // A refused email is told at its field; anything else (a limit, no connection) on the status line.
            const refused = failure instanceof ApiError ? failure.body.details?.find((detail) => detail.field === 'email') : undefined;
            if (!refused) throw failure;
            fieldError(email, `Email ${refused.message}.`);
            email.focus();
            return;
          }
          const heading = h('h1', { tabIndex: -1 }, 'Check your mail');
          replace(
            main,
            h(
              'section',
              { className: 'card narrow' },
              heading,
              h('p', { role: 'status' }, answer.message.replace(/\.?$/, '.')),
              h('p', null, 'The link works once, and for a limited time only.'),
              backToSignIn(),
            ),
          );
          heading.focus();
        }),
      },
    },
    h('h1', null, TITLE),
    h('p', null, 'Give the email of your account: a link to set a new password will be mailed to it.'),
    field('Email', email),
    status,
    submit,
  );
  main.append(form);
  email.focus();
}
