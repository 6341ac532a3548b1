import { api, errorText } from '../api.ts';
import { field, h, replace, statusLine } from '../dom.ts';
import type { Ctx } from '../main.ts';

/** How people write a platform's name (the server lists identifiers: YOUTUBE); one the page does not know shows as listed. */
const PLATFORM_NAMES: Record<string, string> = { YOUTUBE: 'YouTube', TIKTOK: 'TikTok' };
export const platformName = (platform: string): string => PLATFORM_NAMES[platform] ?? platform;

/** Social connections (API.md §8); the page exists only when the server lists platforms. */
export async function connectionsPage(ctx: Ctx, main: HTMLElement): Promise<void> {
  const list = h('ul', { className: 'plain' });
  const status = statusLine();
  async function load(): Promise<void> {
    const connected = new Set(await api.get<string[]>('/connections'));
    replace(
      list,
      ctx.features.socialPlatforms.map((platform) =>
        h(
          'li',
          null,
          h('strong', null, platformName(platform)),
          connected.has(platform)
            ? [
                ' connected ',
                h(
                  'button',
                  {
                    type: 'button',
                    className: 'secondary',
                    on: { click: async () => {
                      status.textContent = '';
                      try {
                        await api.post(`/disconnect/${platform.toLowerCase()}`);
                      } catch (failure) {
                        status.textContent = errorText(failure);
                        return;
                      }
                      status.textContent = `${platformName(platform)} disconnected.`;
                      await load();
                    } },
                  },
                  `Disconnect ${platformName(platform)}`,
                ),
              ]
            : [' not connected ', h('a', { className: 'button secondary', href: `/api/v1/connect/${platform.toLowerCase()}` }, `Connect ${platformName(platform)}`)],
        ),
      ),
    );
  }
  replace(main, h('h1', null, 'Connections'), status, list);
  await load();
}

/** Chat with the configured language model (API.md §9); shown only when the server has one. */
export function chatPage(_ctx: Ctx, main: HTMLElement): void {
  const prompt = h('textarea', { rows: 4, required: true, maxLength: 8000 });
  const log = h('ol', { className: 'chat', 'aria-live': 'polite' });
  const status = statusLine('status error');
  const send = h('button', { type: 'submit' }, 'Send');
  const form = h(
    'form',
    {
      className: 'card',
      on: {
        submit: async (event: SubmitEvent) => {
          event.preventDefault();
          const text = prompt.value;
          send.disabled = true;
          status.textContent = '';
          try {
            const { response } = await api.post<{ response: string }>('/llm/chat', { prompt: text });
            log.append(h('li', { className: 'me' }, text), h('li', null, response));
            prompt.value = '';
          } catch (failure) {
            status.textContent = errorText(failure);
          } finally {
            send.disabled = false;
          }
        },
      },
    },
    field('Message', prompt),
    status,
    send,
  );
  replace(main, h('h1', null, 'Chat'), log, form);
}
