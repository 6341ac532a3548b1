import { api } from './api.ts';
import { h } from './dom.ts';

export interface HistoryItem {
  id: string;
  jobId: string;
  templateId: string | null;
  /** Listed outputs only (GET /my-outputs): the template's current name, null once it was deleted. */
  templateName?: string | null;
  usedParameters: Record<string, unknown>;
  mimeType: string;
  createdAt: string;
  expiresAt: string;
  viewUrl: string;
  fileName: string;
  sizeBytes: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** A fresh view URL for an output (GET /my-outputs/{id}/view-url): a listed one stops working after VIEW_URL_TTL. */
export type RenewUrl = (item: HistoryItem) => Promise<string>;
export const renewViewUrl: RenewUrl = async (item) => (await api.get<{ viewUrl: string }>(`/my-outputs/${item.id}/view-url`)).viewUrl;

/**
 * When `element` cannot load its URL (it expired while the page stayed open: a lazy image scrolled to later, the
 * viewer opened later), asks once for a fresh one and loads that; the item keeps it for the next element made of it.
 */
export function renewOnError(element: HTMLImageElement | HTMLMediaElement, item: HistoryItem, renew: RenewUrl | undefined): HTMLElement {
  if (!renew) return element;
  let renewed = false;
  element.addEventListener('error', () => {
    if (renewed) return;
    renewed = true;
    void renew(item)
      .then((url) => {
        item.viewUrl = url;
        element.src = url;
      })
      .catch(() => undefined);
  });
  return element;
}

/** An image, a playable video or a sound for an output, described for screen readers. */
export function mediaFor(item: HistoryItem, caption: string, renew?: RenewUrl): HTMLElement {
  if (item.mimeType.startsWith('audio/')) return renewOnError(h('audio', { src: item.viewUrl, controls: true, preload: 'metadata', 'aria-label': caption }), item, renew);
  if (item.mimeType.startsWith('video/')) {
    return renewOnError(
      h('video', { src: item.viewUrl, controls: true, preload: 'metadata', muted: true, playsInline: true, 'aria-label': caption, width: item.width, height: item.height }),
      item,
      renew,
    );
  }
  return renewOnError(h('img', { src: item.viewUrl, alt: caption, loading: 'lazy', width: item.width, height: item.height }), item, renew);
}
