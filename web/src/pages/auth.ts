import { api, errorText, type User } from '../api.ts';
import { field, h, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';

const PROVIDER_ERRORS: Record<string, string> = {
  access_denied: 'The sign-in was cancelled.',
  sign_in_to_link: 'An account with this email already exists and has a password. Sign in with your password; the provider can then be linked to it.',
};

/** A provider as the pages name it: its key, capitalised ("google" is "Google"). */
export const providerName = (key: string): string => key.charAt(0).toUpperCase() + key.slice(1);

/** Sign in and sign up share one form; the provider buttons appear when the server has providers. */
export const authPage =
  (mode: 'login' | 'signup') =>
  (ctx: Ctx, main: HTMLElement): void => {
    const params = new URLSearchParams(location.search);
    const next = params.get('next') ?? '/';
    // A link may name the account (after a password reset): the email is filled in, and the password asked for.
    const givenEmail = params.get('email') ?? '';
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true, value: givenEmail });
    const password = h('input', {
      type: 'password',
      name: 'password',
      autocomplete: mode === 'login' ? 'current-password' : 'new-password',
      required: true,
      minLength: mode === 'signup' ? 8 : undefined,
      maxLength: 128,
    });
    const displayName = h('input', { type: 'text', name: 'displayName', autocomplete: 'nickname', required: true, maxLength: 64 });
    const status = statusLine('status error');
    const error = params.get('error');
    if (error) status.textContent = PROVIDER_ERRORS[error] ?? `Sign-in with the provider failed (${error}).`;
    // The Account page lands here, signed out, once the account is deleted (ADR 063).
    const deleted = mode === 'login' && params.has('deleted') ? h('p', { className: 'notice info', role: 'status' }, 'Your account was deleted. Its outputs and uploads are being removed.') : null;
    const submit = h('button', { type: 'submit' }, mode === 'login' ? 'Sign in' : 'Create account');

    const form = h(
      'form',
      {
        className: 'card narrow',
        on: {
          submit: async (event: SubmitEvent) => {
            event.preventDefault();
            submit.disabled = true;
            status.textContent = '';
            try {
              if (mode === 'signup') await api.post('/auth/register', { email: email.value, password: password.value, displayName: displayName.value });
              const login = await api.post<{ user: User }>('/auth/login', { email: email.value, password: password.value });
              ctx.setUser(login.user);
              // A path on this site only: `//host` and `/\host` (a browser reads a backslash as `/`) name another one.
              ctx.navigate(/^\/(?![/\\])/.test(next) ? next : '/');
            } catch (failure) {
              status.textContent = errorText(failure);
              submit.disabled = false;
            }
          },
        },
      },
      h('h1', null, mode === 'login' ? 'Sign in' : 'Create an account'),
      deleted,
      mode === 'signup' ? field('Display name', displayName) : null,
      field('Email', email),
      field('Password', password, mode === 'signup' ? '8 to 128 characters.' : undefined),
      mode === 'login' && ctx.features.passwordResetByMail ? h('p', { className: 'forgot' }, h('a', { href: '/forgot-password', 'data-link': '' }, 'Forgot your password?')) : null,
      status,
      submit,
      ctx.features.oidcProviders.length > 0
        ? h(
            'div',
            { className: 'providers' },
            h('p', null, 'Or continue with'),
            ctx.features.oidcProviders.map((provider) =>
              h(
                'a',
                { className: 'button secondary', href: `/api/v1/auth/${encodeURIComponent(provider)}`, on: { click: () => localStorage.setItem('signed-in', '1') } },
                providerName(provider),
              ),
            ),
          )
        : null,
      h(
        'p',
        null,
        mode === 'login'
          ? ['No account yet? ', h('a', { href: '/signup', 'data-link': '' }, 'Sign up')]
          : ['Already registered? ', h('a', { href: '/login', 'data-link': '' }, 'Sign in')],
      ),
    );
    main.append(form);
    (mode === 'signup' ? displayName : givenEmail ? password : email).focus();
  };
