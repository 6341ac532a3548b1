import { api, query, type Page } from '../api.ts';
import { h, replace } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { pager } from './history.ts';

interface AuditEntry {
  id: string;
  actorId: string;
  action: string;
  targetUserId: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

export async function auditPage(_ctx: Ctx, main: HTMLElement): Promise<void> {
  const body = h('tbody');
  const nav = h('div');
  let page = 1;
  async function load(): Promise<void> {
    const result = await api.get<Page<AuditEntry>>(`/admin/audit${query({ page, limit: 25 })}`);
    replace(
      body,
      result.items.length === 0
        ? h('tr', null, h('td', { colSpan: 5 }, 'No entries yet.'))
        : result.items.map((entry) =>
            h(
              'tr',
              null,
              h('td', null, h('time', { dateTime: entry.createdAt }, new Date(entry.createdAt).toLocaleString())),
              h('td', null, entry.action),
              h('td', null, entry.actorId),
              h('td', null, entry.targetUserId ?? ''),
              h('td', null, h('code', null, JSON.stringify(entry.details))),
            ),
          ),
    );
    replace(nav, pager(page, result.totalPages, (next) => ((page = next), void load())));
  }
  replace(
    main,
    h('h1', null, 'Audit log'),
    // Focusable, so that keyboard users can scroll a table wider than a phone.
    h('table', { tabIndex: 0, 'aria-label': 'Audit log entries' }, h('thead', null, h('tr', null, ['When', 'Action', 'Administrator', 'User', 'Details'].map((c) => h('th', { scope: 'col' }, c)))), body),
    nav,
  );
  await load();
}
