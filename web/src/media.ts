import { h } from './dom.ts';

export interface HistoryItem {
  id: string;
  jobId: string;
  templateId: string | null;
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

/** An image or a playable video for an output, described for screen readers. */
export function mediaFor(item: HistoryItem, caption: string): HTMLElement {
  if (item.mimeType.startsWith('video/')) {
    return h('video', { src: item.viewUrl, controls: true, preload: 'metadata', muted: true, playsInline: true, 'aria-label': caption, width: item.width, height: item.height });
  }
  return h('img', { src: item.viewUrl, alt: caption, loading: 'lazy', width: item.width, height: item.height });
}
