import { api } from '../api.ts';
import { h, replace, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { deadLinkTold, sending } from './account.ts';

const TITLE = 'Confirm your new email';
const PATH = '/confirm-email';

/**
 * Confirms a change of email with the link mailed to the new address (`/confirm-email#token=…`, ADR 065). The token
 * travels in the fragment, which no server log or Referer carries, and goes to the service only when the button is
 * pressed: a mail scanner that opens the link, even one that runs the page, changes no login (a mistyped address's
 * mailbox must not confirm itself). Open whether or not someone is signed in here, since the mail may be read on
 * another device; the token leaves the address bar once the service has answered for it.
 */
export function confirmEmailPage(ctx: Ctx, main: HTMLElement): void {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  if (!token) {
    replace(main, h('section', { className: 'card narrow' }, h('h1', null, TITLE), h('p', { className: 'status error', role: 'alert' }, 'This link is incomplete: open the whole link from the mail.')));
    return;
  }
  const status = statusLine('status error');
  const confirm = h('button', { type: 'submit' }, 'Confirm new email');
  const form = h(
    'form',
    {
      className: 'card narrow',
      on: {
        submit: sending(confirm, status, {}, async () => {
          let done: { email: string };
          try {
            done = await api.post<{ email: string }>('/auth/email/confirm', { token });
          } catch (failure) {
            // A dead link is asked for again where it was asked for (signed out, Account leads through sign-in); a
            // taken address or no connection is told as it is.
            if (!deadLinkTold(failure, status, h('a', { href: '/account', 'data-link': '' }, 'Ask again on Account'))) throw failure;
            history.replaceState(null, '', PATH);
            return;
          }
          history.replaceState(null, '', PATH);
          // The header and the Account page show the new email (a failed reload leaves the old one until the next load).
          if (ctx.user) await ctx.refreshUser().catch(() => undefined);
          const heading = h('h1', { tabIndex: -1 }, 'Email changed');
          const next = ctx.user ? h('a', { href: '/account', 'data-link': '' }, 'Back to Account') : h('a', { className: 'button', href: `/login?email=${encodeURIComponent(done.email)}`, 'data-link': '' }, 'Sign in');
          replace(main, h('section', { className: 'card narrow' }, heading, h('p', { role: 'status' }, `Your email is now ${done.email}.`), h('p', null, next)));
          heading.focus();
        }),
      },
    },
    h('h1', null, TITLE),
    h('p', null, 'Press the button to make the address this link was mailed to the email you sign in with.'),
    status,
    confirm,
  );
  main.append(form);
  confirm.focus();
}
