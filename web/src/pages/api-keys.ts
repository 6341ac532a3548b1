import { api, errorText } from '../api.ts';
import { copyBox, field, h, replace, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';

interface ApiKeyView {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

const when = (iso: string | null, none: string) => (iso ? h('time', { dateTime: iso }, new Date(iso).toLocaleString()) : none);

/** API keys for server-to-server callers (ADR 035): make one (shown once, with a copy button), list and revoke. */
export async function apiKeysPage(ctx: Ctx, main: HTMLElement): Promise<void> {
  const body = h('tbody');
  const status = statusLine();
  const created = h('div', { className: 'created-key' });
  const name = h('input', { type: 'text', required: true, maxLength: 64, autocomplete: 'off' });
  const scopes = ['generate', 'history', ...(ctx.user?.role === 'admin' ? ['admin'] : [])].map((scope) => ({ scope, box: h('input', { type: 'checkbox', defaultChecked: scope === 'generate', value: scope }) }));
  const expires = h('input', { type: 'date' });
  const create = h('button', { type: 'submit' }, 'Create key');

  async function load(): Promise<void> {
    const keys = await api.get<ApiKeyView[]>('/api-keys');
    replace(
      body,
      keys.length === 0
        ? h('tr', null, h('td', { colSpan: 7 }, 'No API keys yet.'))
        : keys.map((key) =>
            h(
              'tr',
              null,
              h('td', null, key.name),
              h('td', null, h('code', null, `${key.prefix}…`)),
              h('td', null, key.scopes.join(', ')),
              h('td', null, when(key.createdAt, '')),
              h('td', null, when(key.expiresAt, 'never')),
              h('td', null, when(key.lastUsedAt, 'not yet')),
              h('td', null, h('button', { type: 'button', className: 'secondary', on: { click: () => void revoke(key) } }, `Revoke ${key.name}`)),
            ),
          ),
    );
  }

  async function revoke(key: ApiKeyView): Promise<void> {
    if (!confirm(`Revoke the key "${key.name}"? Callers using it are refused from their next request.`)) return;
    status.textContent = '';
    try {
      await api.delete(`/api-keys/${key.id}`);
    } catch (failure) {
      status.textContent = errorText(failure);
      return;
    }
    status.textContent = `Key "${key.name}" revoked.`;
    await load();
  }

  function showOnce(key: string): void {
    replace(created, h('p', null, h('strong', null, 'Copy this key now: it is not shown again.')), copyBox(key, { label: 'New API key', noun: 'key', button: 'Copy key' }));
  }

  const form = h(
    'form',
    {
      className: 'card',
      on: {
        submit: async (event: SubmitEvent) => {
          event.preventDefault();
          // One key per press: the button stays disabled while the key is made.
          create.disabled = true;
          status.textContent = '';
          const chosen = scopes.filter(({ box }) => box.checked).map(({ scope }) => scope);
          const expiresAt = expires.value ? new Date(`${expires.value}T23:59:59Z`).toISOString() : undefined;
          let made: ApiKeyView & { key: string };
          try {
            made = await api.post<ApiKeyView & { key: string }>('/api-keys', { name: name.value, scopes: chosen, expiresAt });
          } catch (failure) {
            status.textContent = errorText(failure);
            return;
          } finally {
            create.disabled = false;
          }
          showOnce(made.key);
          form.reset();
          await load();
        },
      },
    },
    h('h2', null, 'New key'),
    field('Name', name),
    h('fieldset', null, h('legend', null, 'Scopes'), scopes.map(({ scope, box }) => field(scope, box))),
    field('Expires (optional)', expires, 'Leave empty for a key that does not expire.'),
    create,
  );

  replace(
    main,
    h('h1', null, 'API keys'),
    h('p', null, 'For scripts and servers: send a key as ', h('code', null, 'Authorization: Bearer mgs_…'), '. "generate" submits and reads jobs, uploads and the catalogue; "history" reads and deletes outputs.'),
    form,
    created,
    status,
    h('table', null, h('caption', null, 'Your keys'), h('thead', null, h('tr', null, ['Name', 'Key', 'Scopes', 'Created', 'Expires', 'Last used', ''].map((c) => h('th', { scope: 'col' }, c)))), body),
  );
  await load();
}
