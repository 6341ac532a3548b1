import { api, ApiError, errorText, request, type User } from '../api.ts';
import { coins, field, fieldError, h, replace, statusLine, type Child } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { providerName } from './auth.ts';

interface Identities {
  hasPassword: boolean;
  identities: { provider: string; email: string | null; linkedAt: string }[];
}

/** Why linking a provider ended on this page instead of linking it (the callback's `error` code). */
const LINK_ERRORS: Record<string, string> = {
  identity_in_use: 'That account at the provider is linked to another user here, or you have another one there linked already.',
  provider_error: 'The provider refused or failed; nothing was linked.',
  invalid_state: 'The link expired or was opened in another browser; nothing was linked. Try again.',
};

/** What a refusal says, with each field named as its label names it ("Current password is wrong."). */
function refusal(failure: unknown, labels: Record<string, string>): string {
  if (!(failure instanceof ApiError) || !failure.body.details?.length) return errorText(failure);
  return failure.body.details.map((detail) => `${labels[detail.field] ?? detail.field} ${detail.message}.`).join(' ');
}

/**
 * A form's submit handler, or a button's click handler: the button is disabled while `send` runs (a second press sends
 * nothing), the status line is cleared first and then says what `send` returns or why it was refused.
 */
export function sending(button: HTMLButtonElement, status: HTMLElement, labels: Record<string, string>, send: () => Promise<string | void>) {
  return async (event: Event): Promise<void> => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = '';
    try {
      const said = await send();
      if (said) status.textContent = said;
    } catch (failure) {
      status.textContent = refusal(failure, labels);
    } finally {
      button.disabled = false;
    }
  };
}

/**
 * Tells each field `failure` refuses at its control, as its label names it ("New email is already your email."), and
 * focuses the first; false (nothing told) when the failure names none of them: it is for the status line then.
 */
function refusedAtFields(failure: unknown, controls: Record<string, { control: HTMLElement; label: string }>): boolean {
  const refused = failure instanceof ApiError ? (failure.body.details ?? []).filter((detail) => Object.hasOwn(controls, detail.field)) : [];
  for (const detail of refused) fieldError(controls[detail.field]!.control, `${controls[detail.field]!.label} ${detail.message}.`);
  controls[refused[0]?.field ?? '']?.control.focus();
  return refused.length > 0;
}

/**
 * A refusal of a mailed link's token (`details` naming `token`), told on `status` as "This link is …" with `next`, the
 * way to a new link; false for any other failure (which `sending` then tells).
 */
export function deadLinkTold(failure: unknown, status: HTMLElement, next: HTMLElement): boolean {
  const dead = failure instanceof ApiError ? failure.body.details?.find((detail) => detail.field === 'token') : undefined;
  if (!dead) return false;
  replace(status, `This link ${dead.message}. `, next);
  return true;
}

const PASSWORD_HINT = '8 to 128 characters; not a common or repetitive one.';
const newPasswordInput = () => h('input', { type: 'password', name: 'new-password', autocomplete: 'new-password', required: true, minLength: 8, maxLength: 128 });

/** The signed-in user's account (ADR 062): the display name, and the password with the current one as proof. */
export async function accountPage(ctx: Ctx, main: HTMLElement): Promise<void> {
  const user = ctx.user!;
  // Only an account made through a provider can lack a password; without providers every account has one.
  const identities = ctx.features.oidcProviders.length === 0 ? null : await api.get<Identities>('/auth/identities');
  const hasPassword = identities?.hasPassword ?? true;

  const name = h('input', { type: 'text', name: 'displayName', autocomplete: 'nickname', required: true, maxLength: 64, value: user.displayName });
  const nameStatus = statusLine();
  const saveName = h('button', { type: 'submit' }, 'Save name');
  const nameForm = h(
    'form',
    {
      className: 'card',
      on: {
        submit: sending(saveName, nameStatus, { displayName: 'Display name' }, async () => {
          const updated = await api.patch<User>('/auth/profile', { displayName: name.value });
          ctx.setUser(updated);
          name.value = updated.displayName;
          return 'Name saved.';
        }),
      },
    },
    h('h2', null, 'Display name'),
    field('Display name', name, 'Shown in the header; 1 to 64 characters.'),
    nameStatus,
    saveName,
  );

  const current = h('input', { type: 'password', name: 'current-password', autocomplete: 'current-password', required: true, maxLength: 1024 });
  const fresh = newPasswordInput();
  const passwordStatus = statusLine();
  const change = h('button', { type: 'submit' }, 'Change password');
  const passwordForm = hasPassword
    ? h(
        'form',
        {
          className: 'card',
          on: {
            submit: sending(change, passwordStatus, { currentPassword: 'Current password', newPassword: 'New password' }, async () => {
              const done = await api.post<{ otherSessionsEnded: number }>('/auth/password', { currentPassword: current.value, newPassword: fresh.value });
              current.value = '';
              fresh.value = '';
              const others = done.otherSessionsEnded;
              return others === 0 ? 'Password changed.' : `Password changed. ${others === 1 ? '1 other session was' : `${others} other sessions were`} signed out.`;
            }),
          },
        },
        h('h2', null, 'Password'),
        h('p', null, 'Changing it signs out every other session of yours. API keys keep working.'),
        field('Current password', current),
        field('New password', fresh, PASSWORD_HINT),
        passwordStatus,
        change,
      )
    : h('section', { className: 'card' }, h('h2', null, 'Password'), h('p', null, 'This account signs in through its identity provider and has no password. An administrator can make you a link to set one.'));

  replace(
    main,
    h('h1', null, 'Account'),
    ctx.features.emailChange ? null : h('p', null, 'Signed in as ', h('strong', null, user.email), '.'),
    nameForm,
    ctx.features.emailChange ? emailForm(user, hasPassword) : null,
    passwordForm,
    identities ? signInMethods(ctx, identities) : null,
    deleteAccountForm(ctx, user, hasPassword),
  );
}

/**
 * Changing the email (ADR 065), where the service mails: the new address becomes the account's only when the link
 * mailed to it is opened (`/confirm-email`), so the form asks for that link and says which email signs in meanwhile. The
 * current password proves the owner; an account without one (made through a provider) keeps its email, since its
 * session alone would have to prove it.
 */
function emailForm(user: User, hasPassword: boolean): HTMLElement {
  const heading = h('h2', { id: 'change-email' }, 'Email');
  const signsIn = (...more: string[]) => h('p', null, 'You sign in with ', h('strong', { className: 'address' }, user.email), '.', ...more);
  if (!hasPassword) {
    return h('section', { className: 'card', 'aria-labelledby': 'change-email' }, heading, signsIn(' This account signs in through its identity provider and has no password, so its email cannot be changed here.'));
  }
  const newEmail = h('input', { type: 'email', name: 'new-email', autocomplete: 'email', spellcheck: false, required: true, maxLength: 254 });
  const password = h('input', { type: 'password', name: 'email-password', autocomplete: 'current-password', required: true, maxLength: 1024 });
  const controls = { newEmail: { control: newEmail, label: 'New email' }, password: { control: password, label: 'Current password' } };
  const status = statusLine();
  const send = h('button', { type: 'submit' }, 'Send confirmation link');
  return h(
    'form',
    {
      className: 'card',
      'aria-labelledby': 'change-email',
      on: {
        submit: sending(send, status, {}, async () => {
          for (const { control } of Object.values(controls)) fieldError(control, '');
          let answer: { message: string };
          try {
            answer = await api.post<{ message: string }>('/auth/email', { newEmail: newEmail.value, password: password.value });
          } catch (failure) {
            if (refusedAtFields(failure, controls)) return;
            throw failure;
          }
          newEmail.value = '';
          password.value = '';
          return `${answer.message.replace(/\.?$/, '.')} Open the link in that mail to finish; until then you sign in with ${user.email}.`;
        }),
      },
    },
    heading,
    signsIn(' A new email takes its place once you open the link mailed to it.'),
    field('New email', newEmail),
    field('Current password', password),
    status,
    send,
  );
}

/**
 * Deleting the account (ADR 063), last on the page: what goes, in plain words, and the proof the server asks for: the
 * password, or for an account without one (made through a provider) its email typed out. Success has ended every
 * session (the answer clears the cookies): the tab signs out as Sign out does and shows the sign-in page, which says so.
 */
function deleteAccountForm(ctx: Ctx, user: User, hasPassword: boolean): HTMLElement {
  const proof = hasPassword
    ? {
        field: 'password',
        label: 'Your password',
        input: h('input', { type: 'password', name: 'delete-password', autocomplete: 'current-password', required: true, maxLength: 1024 }),
        hint: 'The password you sign in with, to show it is you.',
      }
    : {
        field: 'confirmEmail',
        label: 'Your email',
        input: h('input', { type: 'email', name: 'confirm-email', autocomplete: 'off', spellcheck: false, required: true }),
        hint: `Type ${user.email} to confirm: this account signs in through its provider, without a password.`,
      };
  const status = statusLine();
  const remove = h('button', { type: 'submit', className: 'danger' }, 'Delete my account');
  return h(
    'form',
    {
      className: 'card',
      'aria-labelledby': 'delete-account',
      on: {
        submit: sending(remove, status, { [proof.field]: proof.label }, async () => {
          await request('DELETE', '/auth/account', { body: { [proof.field]: proof.input.value } });
          ctx.setUser(null);
          ctx.navigate('/login?deleted=1');
        }),
      },
    },
    h('h2', { id: 'delete-account' }, 'Delete account'),
    h('p', null, 'Deleting your account removes it and everything in it:'),
    h(
      'ul',
      null,
      h('li', null, 'your queued and running jobs are cancelled, and their coins refunded;'),
      h('li', null, 'every session of yours is signed out, this one too, and every API key of yours stops working;'),
      h('li', null, 'your outputs and uploads are deleted;'),
      h('li', null, `the coins left on the account are lost: ${coins(user.coinBalance)} now, with the refunds of those jobs.`),
    ),
    h('p', { className: 'notice' }, h('strong', null, 'This cannot be undone.')),
    field(proof.label, proof.input, proof.hint),
    status,
    remove,
  );
}

/**
 * The providers a user signs in with (ADR 062): each linked one with Unlink (the server refuses the last way in of an
 * account without a password), a Link button for each other one. Linking leaves for the provider and comes back here
 * (main.ts sends `/?linked=` and a signed-in `/login?error=` to this page), which then says how it went.
 */
function signInMethods(ctx: Ctx, start: Identities): HTMLElement {
  const section = h('section', { className: 'card', 'aria-labelledby': 'sign-in-methods' });
  const status = statusLine();
  const params = new URLSearchParams(location.search);
  const linked = params.get('linked');
  const error = params.get('error');
  if (linked) status.textContent = `${providerName(linked)} is linked: you can sign in with it.`;
  else if (error) status.textContent = LINK_ERRORS[error] ?? `Linking the provider failed (${error}).`;

  const show = (current: Identities) => {
    const linkedKeys = new Set(current.identities.map((identity) => identity.provider));
    const rows = current.identities.map((identity) => {
      const unlink: HTMLButtonElement = h('button', { type: 'button', className: 'secondary', 'aria-label': `Unlink ${providerName(identity.provider)}` }, 'Unlink');
      unlink.addEventListener(
        'click',
        sending(unlink, status, {}, async () => {
          await api.delete(`/auth/identities/${encodeURIComponent(identity.provider)}`);
          show(await api.get<Identities>('/auth/identities'));
          return `${providerName(identity.provider)} is unlinked.`;
        }),
      );
      return h('li', null, h('strong', null, providerName(identity.provider)), identity.email ? ` (${identity.email})` : null, ' ', unlink);
    });
    const links = ctx.features.oidcProviders
      .filter((provider) => !linkedKeys.has(provider))
      .map((provider) => {
        const link: HTMLButtonElement = h('button', { type: 'button', className: 'secondary' }, `Link ${providerName(provider)}`);
        link.addEventListener(
          'click',
          sending(link, status, {}, async () => {
            const { url } = await api.post<{ url: string }>(`/auth/${encodeURIComponent(provider)}/link`);
            location.assign(url);
          }),
        );
        return link;
      });
    replace(
      section,
      h('h2', { id: 'sign-in-methods' }, 'Sign-in methods'),
      h('ul', { className: 'plain' }, current.hasPassword ? h('li', null, h('strong', null, 'Password')) : null, rows),
      links.length > 0 ? h('p', { className: 'links' }, links) : null,
      status,
    );
  };
  show(start);
  return section;
}

/**
 * Sets a new password with the link an administrator made (`/reset-password#token=…`): the token travels in the
 * fragment, which no server log or Referer carries, and leaves the address bar once it is used. Open whether or not
 * someone is signed in here; success signs this tab out too, since every session of the account ends.
 */
export function resetPasswordPage(ctx: Ctx, main: HTMLElement): void {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  // Where the service mails links, a new one is asked for on "Forgot your password?"; elsewhere an administrator makes it.
  const byMail = ctx.features.passwordResetByMail;
  const askAgain = (words: string) => h('a', { href: '/forgot-password', 'data-link': '' }, words);
  if (!token) {
    const ask: Child[] = byMail ? [askAgain('ask for a new one'), '.'] : ['ask an administrator for a new one.'];
    replace(main, h('section', { className: 'card narrow' }, h('h1', null, 'Set a new password'), h('p', { className: 'status error', role: 'alert' }, 'This link is incomplete: open the whole link you were given, or ', ask)));
    return;
  }
  const fresh = newPasswordInput();
  const status = statusLine('status error');
  const submit = h('button', { type: 'submit' }, 'Set password');
  const form = h(
    'form',
    {
      className: 'card narrow',
      on: {
        submit: sending(submit, status, { token: 'This link', newPassword: 'The new password' }, async () => {
          let done: { email: string };
          try {
            done = await api.post<{ email: string }>('/auth/password-reset', { token, newPassword: fresh.value });
          } catch (failure) {
            if (deadLinkTold(failure, status, byMail ? askAgain('Forgot your password?') : h('span', null, 'An administrator can make you a new one.'))) return;
            throw failure;
          }
          history.replaceState(null, '', '/reset-password');
          if (ctx.user) ctx.setUser(null);
          replace(
            main,
            h(
              'section',
              { className: 'card narrow' },
              h('h1', null, 'Password set'),
              h('p', { role: 'status' }, `The password of ${done.email} is set. Every session of the account was signed out.`),
              h('p', null, h('a', { className: 'button', href: `/login?email=${encodeURIComponent(done.email)}`, 'data-link': '' }, 'Sign in')),
            ),
          );
        }),
      },
    },
    h('h1', null, 'Set a new password'),
    field('New password', fresh, PASSWORD_HINT),
    status,
    submit,
  );
  main.append(form);
  fresh.focus();
}
