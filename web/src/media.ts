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

/** An image, a playable video or a sound for an output, described for screen readers. */
export function mediaFor(item: HistoryItem, caption: string): HTMLElement {
  if (item.mimeType.startsWith('audio/')) return h('audio', { src: item.viewUrl, controls: true, preload: 'metadata', 'aria-label': caption });
  if (item.mimeType.startsWith('video/')) {
    return h('video', { src: item.viewUrl, controls: true, preload: 'metadata', muted: true, playsInline: true, 'aria-label': caption, width: item.width, height: item.height });
  }
  return h('img', { src: item.viewUrl, alt: caption, loading: 'lazy', width: item.width, height: item.height });
}
