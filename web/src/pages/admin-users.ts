import { api, ApiError, query, type Page, type User } from '../api.ts';
import { field, h, replace, statusLine, uuid } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { pager } from './history.ts';

/** Users, searchable, with coin adjustments (each sent with its own Idempotency-Key). */
export async function adminUsersPage(ctx: Ctx, main: HTMLElement): Promise<void> {
  const search = h('input', { type: 'search', name: 'q' });
  const body = h('tbody');
  const nav = h('div');
  const status = statusLine();
  let page = 1;

  const adjust = (user: User): HTMLElement => {
    const amount = h('input', { type: 'number', min: 1, max: 1_000_000, step: 1, required: true, className: 'short' });
    const direction = h('select', null, h('option', { value: 'add' }, 'Add'), h('option', { value: 'deduct' }, 'Deduct'));
    const form = h(
      'form',
      {
        className: 'inline',
        on: {
          submit: async (event: SubmitEvent) => {
            event.preventDefault();
            try {
              const updated = await api.post<User>(
                `/admin/coin/${direction.value}/${user.id}`,
                { amount: Number(amount.value), reason: 'admin_adjustment' },
                uuid(),
              );
              status.textContent = `${updated.email} now has ${updated.coinBalance} coins.`;
              if (updated.id === ctx.user?.id) await ctx.refreshUser();
              await load();
            } catch (failure) {
              status.textContent = failure instanceof ApiError ? failure.message : 'The change failed.';
            }
          },
        },
      },
      field(`Direction for ${user.email}`, direction),
      field(`Coins for ${user.email}`, amount),
      h('button', { type: 'submit', className: 'secondary' }, 'Apply'),
    );
    return form;
  };

  async function load(): Promise<void> {
    const result = await api.get<Page<User>>(`/admin/users${query({ page, limit: 20, q: search.value.trim() })}`);
    replace(
      body,
      result.items.map((user) =>
        h('tr', null, h('td', null, user.email), h('td', null, user.displayName), h('td', null, user.role), h('td', { className: 'num' }, String(user.coinBalance)), h('td', null, adjust(user))),
      ),
    );
    replace(nav, pager(page, result.totalPages, (next) => ((page = next), void load())));
  }

  replace(
    main,
    h('h1', null, 'Users'),
    h(
      'form',
      { className: 'inline', role: 'search', on: { submit: (event: SubmitEvent) => (event.preventDefault(), (page = 1), void load()) } },
      field('Search by email or name', search),
      h('button', { type: 'submit', className: 'secondary' }, 'Search'),
    ),
    status,
    h(
      'table',
      null,
      h('thead', null, h('tr', null, ['Email', 'Name', 'Role', 'Coins', 'Adjust'].map((c) => h('th', { scope: 'col' }, c)))),
      body,
    ),
    nav,
  );
  await load();
}
