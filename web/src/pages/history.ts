import { api, ApiError, errorText, query, type Page } from '../api.ts';
import { field, h, replace, statusLine, unseen } from '../dom.ts';
import type { Ctx } from '../main.ts';
import { mediaFor, renewViewUrl, type HistoryItem } from '../media.ts';
import { OutputViewer } from '../viewer.ts';
import { colourToHex, isColour, remixPath, type Parameter } from './generate.ts';
import { platformName } from './extras.ts';
import { summarisePrompt } from './jobs-panel.ts';

const PAGE_SIZE = 12;

/** A pager: previous/next buttons and "page n of m". */
export function pager(page: number, totalPages: number, go: (page: number) => void): HTMLElement {
  return h(
    'nav',
    { className: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', className: 'secondary', disabled: page <= 1, on: { click: () => go(page - 1) } }, 'Previous'),
    h('span', null, `Page ${page} of ${Math.max(1, totalPages)}`),
    h('button', { type: 'button', className: 'secondary', disabled: page >= totalPages, on: { click: () => go(page + 1) } }, 'Next'),
  );
}

interface Publication {
  platform: string;
  status: 'pending' | 'uploading' | 'published' | 'failed';
  url?: string;
  error?: string;
}

/** One line per platform: its status, the post's link once published, the reason when it failed. */
function publicationLines(list: Publication[]): HTMLElement[] {
  return list.map((publication) =>
    h(
      'span',
      { className: publication.status === 'failed' ? 'hint error' : 'hint' },
      `${platformName(publication.platform)}: ${publication.status}`,
      publication.url ? [' ', h('a', { href: publication.url, target: '_blank', rel: 'noopener noreferrer' }, 'view post')] : null,
      publication.error ? ` (${publication.error})` : null,
    ),
  );
}

interface CatalogueTemplate {
  id: string;
  parameters: Parameter[];
}

/** The parameters an output was made with, prompt aside (it has its own line): colours as swatches, inputs by name. */
function parameterList(item: HistoryItem, template: CatalogueTemplate | undefined): HTMLElement | null {
  const entries = Object.entries(item.usedParameters).filter(([key]) => key !== 'prompt');
  if (entries.length === 0) return null;
  const rows = entries.map(([key, value]) => {
    const parameter = template?.parameters.find((candidate) => candidate.key === key);
    const colour = parameter ? isColour(parameter) : /colou?r/i.test(key) && typeof value === 'number';
    let shown: HTMLElement | string = String(value);
    if (colour && typeof value === 'number') {
      const swatch = h('span', { className: 'swatch', 'aria-hidden': 'true' });
      // CSSOM, not a style attribute: the CSP allows no inline styles.
      swatch.style.backgroundColor = colourToHex(value);
      shown = h('span', null, swatch, colourToHex(value));
    } else if (parameter?.type === 'image') {
      shown = 'an input image';
    }
    return [h('dt', null, parameter?.label ?? key), h('dd', null, shown)];
  });
  return h('details', { className: 'params' }, h('summary', null, 'Parameters', unseen(` of ${item.fileName}`)), h('dl', null, rows));
}

export async function historyPage(ctx: Ctx, main: HTMLElement): Promise<() => void> {
  const grid = h('ul', { className: 'grid', 'aria-label': 'Outputs' });
  const catalogue = new Map((await api.get<CatalogueTemplate[]>('/templates')).map((template) => [template.id, template]));
  const describe = (item: HistoryItem): string =>
    `${item.templateName ?? 'Output'}: ${summarisePrompt(item.usedParameters)}, made ${new Date(item.createdAt).toLocaleString()}`;
  const viewer = new OutputViewer(describe, renewViewUrl);
  let shown: HistoryItem[] = [];
  const nav = h('div');
  const status = statusLine();
  replace(main, h('h1', null, 'History'), status, grid, nav);
  const params = new URLSearchParams(location.search);
  let page = Math.max(1, Number(params.get('page')) || 1);

  const publicationStates = new Map<string, HTMLElement>();
  const showPublications = async (outputId: string): Promise<void> => {
    const state = publicationStates.get(outputId);
    if (!state) return;
    replace(state, publicationLines(await api.get<Publication[]>(`/my-outputs/${outputId}/publications`)));
  };
  // publish.completed / publish.failed of an output on this page: show its new state.
  const off = ctx.socket.on((event) => {
    if (event.type.startsWith('publish.') && typeof event.outputId === 'string') void showPublications(event.outputId);
  });

  const publishControls = (item: HistoryItem): HTMLElement | null => {
    const platforms = ctx.features.socialPlatforms;
    if (platforms.length === 0 || !item.mimeType.startsWith('video/')) return null;
    const state = h('div', { className: 'publications', 'aria-live': 'polite' });
    publicationStates.set(item.id, state);
    void showPublications(item.id);
    const select = h('select', null, platforms.map((platform) => h('option', { value: platform }, platformName(platform))));
    const button = h('button', { type: 'button', className: 'secondary' }, 'Publish');
    button.addEventListener('click', async () => {
      // One upload per press: the button stays disabled while it is asked for.
      button.disabled = true;
      try {
        const answer = await api.post<{ message: string }>(`/my-outputs/${item.id}/publish`, { platforms: [select.value] });
        status.textContent = answer.message;
        await showPublications(item.id);
      } catch (failure) {
        status.textContent = failure instanceof ApiError ? failure.message : 'Publishing failed.';
      } finally {
        button.disabled = false;
      }
    });
    return h('div', null, h('div', { className: 'inline' }, field(`Publish ${item.fileName} to`, select), button), state);
  };

  const tile = (item: HistoryItem, index: number): HTMLElement => {
    const hiddenName = () => unseen(` ${item.fileName}`);
    const remove = h('button', { type: 'button', className: 'danger' }, 'Delete', hiddenName());
    let armed = false;
    remove.addEventListener('click', async () => {
      if (!armed) {
        armed = true;
        replace(remove, 'Confirm delete', hiddenName());
        return;
      }
      remove.disabled = true;
      try {
        await api.delete(`/my-outputs/${item.id}`);
      } catch (failure) {
        status.textContent = failure instanceof ApiError ? failure.message : 'Delete failed.';
        remove.disabled = false;
        return;
      }
      status.textContent = `${item.fileName} deleted.`;
      await load().catch((failure: unknown) => (status.textContent = `${item.fileName} deleted. The list could not be read again: ${errorText(failure)}`));
    });
    const download = h('button', { type: 'button', className: 'secondary' }, 'Download', hiddenName());
    download.addEventListener('click', async () => {
      let downloadUrl: string;
      try {
        ({ downloadUrl } = await api.get<{ downloadUrl: string }>(`/my-outputs/${item.id}/download-url`));
      } catch (failure) {
        // Deleted or expired meanwhile: say so rather than nothing.
        status.textContent = failure instanceof ApiError ? failure.message : 'Download failed.';
        return;
      }
      const link = h('a', { href: downloadUrl, download: item.fileName, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
    });
    const view = h('button', { type: 'button', className: 'secondary' }, 'View', hiddenName());
    view.addEventListener('click', () => viewer.open(shown, index, view));
    const template = item.templateId ? catalogue.get(item.templateId) : undefined;
    const remix = template
      ? h('a', { className: 'button secondary', href: remixPath(template.id, item.usedParameters), 'data-link': '' }, 'Remix', hiddenName())
      : null;
    const made = new Date(item.createdAt);
    return h(
      'li',
      { className: 'tile', 'data-output': item.id },
      mediaFor(item, describe(item), renewViewUrl),
      h('strong', { className: 'tile-title' }, item.templateName ?? (item.templateId ? 'Deleted template' : 'Raw workflow')),
      h('span', { className: 'tile-prompt' }, summarisePrompt(item.usedParameters)),
      h('time', { className: 'hint', dateTime: item.createdAt }, made.toLocaleString()),
      parameterList(item, template),
      h('span', { className: 'hint' }, `${item.fileName} · ${Math.ceil(item.sizeBytes / 1024)} KiB`),
      h('div', { className: 'inline' }, view, remix, download, remove),
      publishControls(item),
    );
  };

  // The page asked for last: an earlier request that answers after it is dropped (Next, then Previous).
  let loads = 0;
  async function load(): Promise<void> {
    const mine = ++loads;
    const result = await api.get<Page<HistoryItem>>(`/my-outputs${query({ page, limit: PAGE_SIZE })}`);
    if (mine !== loads) return;
    publicationStates.clear();
    if (result.items.length === 0 && page > 1 && result.totalPages > 0) {
      page = result.totalPages;
      history.replaceState(null, '', `/history?page=${page}`);
      return load();
    }
    shown = result.items;
    replace(grid, result.items.length === 0 ? h('li', null, 'Nothing yet: generate something first.') : result.items.map(tile));
    replace(
      nav,
      pager(page, result.totalPages, (next) => {
        page = next;
        history.replaceState(null, '', `/history?page=${page}`);
        void load();
      }),
    );
  }
  await load();
  return () => {
    off();
    viewer.dispose();
  };
}
