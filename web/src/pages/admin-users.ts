import { api, ApiError, errorText, query, request, type Page, type User } from '../api.ts';
import { coins, copyBox, field, h, replace, statusLine, unseen, uuid } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { pager } from './history.ts';

/**
 * Users, searchable, with coin adjustments. Each adjustment has its own Idempotency-Key, kept until it is answered: a
 * press while one is sent does nothing (Apply is disabled), and trying again after a send that got no answer is the same
 * adjustment (the server answers it once).
 */
export async function adminUsersPage(ctx: Ctx, main: HTMLElement): Promise<void> {
  const search = h('input', { type: 'search', name: 'q' });
  const body = h('tbody');
  const nav = h('div');
  const status = statusLine();
  const link = h('div');
  let page = 1;

  /** A password reset link (ADR 062): the service sends no mail, so it is shown here to hand over. */
  const resetLink = (user: User): HTMLElement => {
    const make = h('button', { type: 'button', className: 'secondary', 'aria-label': `Reset link for ${user.email}` }, 'Reset link');
    make.addEventListener('click', async () => {
      make.disabled = true;
      status.textContent = '';
      try {
        const made = await api.post<{ resetUrl: string; expiresAt: string }>(`/admin/users/${user.id}/password-reset`);
        const until = new Date(made.expiresAt).toLocaleString();
        replace(
          link,
          h('section', { className: 'card', 'aria-label': 'Password reset link' }, [
            h('p', null, h('strong', null, `A link that sets the password of ${user.email}`), `: it works once, until ${until}, and replaces any earlier link. Hand it over yourself; it is not shown again.`),
            copyBox(made.resetUrl, { label: 'Reset link', noun: 'link', button: 'Copy link' }),
          ]),
        );
      } catch (failure) {
        status.textContent = errorText(failure);
      } finally {
        make.disabled = false;
      }
    });
    return make;
  };

  /**
   * Deletes an account (ADR 063) once the administrator confirms it, naming it. Not offered on the administrator's own
   * row: they delete their own account from the Account page, which asks for their password (the server refuses it here).
   */
  const deleteButton = (user: User): HTMLElement => {
    const remove = h('button', { type: 'button', className: 'danger', 'aria-label': `Delete ${user.email}` }, 'Delete');
    remove.addEventListener('click', async () => {
      const sure = window.confirm(
        `Delete the account of ${user.email}? Their queued and running jobs are cancelled and refunded, their sessions and API keys end, their outputs and uploads are deleted and the coins left are lost. This cannot be undone.`,
      );
      if (!sure) return;
      remove.disabled = true;
      status.textContent = '';
      let removed: { jobsCancelled: number; coinsForfeited: number };
      try {
        removed = await request<{ jobsCancelled: number; coinsForfeited: number }>('DELETE', `/admin/users/${user.id}`);
      } catch (failure) {
        status.textContent = errorText(failure);
        return;
      } finally {
        remove.disabled = false;
      }
      const jobs = removed.jobsCancelled === 1 ? '1 job' : `${removed.jobsCancelled} jobs`;
      const done = `Deleted ${user.email}: ${jobs} cancelled, ${coins(removed.coinsForfeited)} forfeited.`;
      status.textContent = done;
      // The row goes with the list read again; a list that cannot be read does not hide that the account was deleted.
      try {
        await load();
      } catch (failure) {
        status.textContent = `${done} The list could not be read again: ${errorText(failure)}`;
      }
    });
    return remove;
  };

  const adjust = (user: User): HTMLElement => {
    const amount = h('input', { type: 'number', min: 1, max: 1_000_000, step: 1, required: true, className: 'short' });
    const direction = h('select', null, h('option', { value: 'add' }, 'Add'), h('option', { value: 'deduct' }, 'Deduct'));
    const apply = h('button', { type: 'submit', className: 'secondary' }, 'Apply');
    // A new adjustment once the amount or direction changes; the same one when Apply is pressed again after a failure.
    let key = uuid();
    const another = () => (key = uuid());
    amount.addEventListener('input', another);
    direction.addEventListener('change', another);
    const form = h(
      'form',
      {
        className: 'inline',
        on: {
          submit: async (event: SubmitEvent) => {
            event.preventDefault();
            apply.disabled = true;
            let updated: User;
            try {
              updated = await api.post<User>(`/admin/coin/${direction.value}/${user.id}`, { amount: Number(amount.value), reason: 'admin_adjustment' }, key);
            } catch (failure) {
              // A refusal is an answer: the next press is a new adjustment. A send that got none is tried again as the same one.
              if (failure instanceof ApiError) another();
              status.textContent = failure instanceof ApiError ? failure.message : 'The change failed.';
              return;
            } finally {
              apply.disabled = false;
            }
            another();
            const done = `${updated.email} now has ${coins(updated.coinBalance)}.`;
            status.textContent = done;
            if (updated.id === ctx.user?.id) await ctx.refreshUser().catch(() => undefined);
            await load().catch((failure: unknown) => (status.textContent = `${done} The list could not be read again: ${errorText(failure)}`));
          },
        },
      },
      field(['Direction', unseen(` for ${user.email}`)], direction),
      field(['Coins', unseen(` for ${user.email}`)], amount),
      apply,
    );
    return form;
  };

  /** A search or another page: a refusal is said (the list stays as it was). */
  const show = () => load().catch((failure: unknown) => (status.textContent = errorText(failure)));

  async function load(): Promise<void> {
    const result = await api.get<Page<User>>(`/admin/users${query({ page, limit: 20, q: search.value.trim() })}`);
    replace(
      body,
      result.items.map((user) =>
        h(
          'tr',
          null,
          h('td', null, user.email),
          h('td', null, user.displayName),
          h('td', null, user.role),
          h('td', { className: 'num' }, String(user.coinBalance)),
          h('td', null, adjust(user)),
          h('td', null, resetLink(user)),
          h('td', null, user.id === ctx.user?.id ? null : deleteButton(user)),
        ),
      ),
    );
    replace(nav, pager(page, result.totalPages, (next) => ((page = next), void show())));
  }

  replace(
    main,
    h('h1', null, 'Users'),
    h(
      'form',
      { className: 'inline', role: 'search', on: { submit: (event: SubmitEvent) => (event.preventDefault(), (page = 1), void show()) } },
      field('Search by email or name', search),
      h('button', { type: 'submit', className: 'secondary' }, 'Search'),
    ),
    status,
    link,
    h(
      'table',
      null,
      h('thead', null, h('tr', null, ['Email', 'Name', 'Role', 'Coins', 'Adjust', 'Password', 'Account'].map((c) => h('th', { scope: 'col' }, c)))),
      body,
    ),
    nav,
  );
  await load();
}
