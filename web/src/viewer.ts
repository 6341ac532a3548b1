import { h, replace } from './dom.ts';
import { renewOnError, type HistoryItem, type RenewUrl } from './media.ts';

const FOCUSABLE = 'button:not([disabled]), [href], video[controls], audio[controls], [tabindex]:not([tabindex="-1"])';

/** The full-size output: an image at its own size (scaled down to the screen), or a playable video or sound. */
function fullMedia(item: HistoryItem, caption: string): HTMLImageElement | HTMLMediaElement {
  if (item.mimeType.startsWith('video/')) return h('video', { src: item.viewUrl, controls: true, preload: 'metadata', playsInline: true, 'aria-label': caption });
  if (item.mimeType.startsWith('audio/')) return h('audio', { src: item.viewUrl, controls: true, preload: 'metadata', 'aria-label': caption });
  return h('img', { src: item.viewUrl, alt: caption, width: item.width, height: item.height });
}

/**
 * A modal dialog showing one output of a list at full size. Left/Right move between the outputs, Escape
 * closes it, Tab stays inside it, and focus goes back to what opened it.
 */
export class OutputViewer {
  private readonly dialog: HTMLDialogElement;
  private readonly title: HTMLElement;
  private readonly counter: HTMLElement;
  private readonly stage: HTMLElement;
  private readonly previous: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private items: HistoryItem[] = [];
  private index = 0;
  private opener: HTMLElement | null = null;

  /** `renew`: where an output's URL that stopped working (VIEW_URL_TTL) is asked for again. */
  constructor(
    private readonly describe: (item: HistoryItem) => string,
    private readonly renew: RenewUrl,
  ) {
    this.title = h('h2', { id: 'viewer-title' });
    this.counter = h('p', { className: 'hint', 'aria-live': 'polite' });
    this.stage = h('div', { className: 'viewer-stage' });
    this.previous = h('button', { type: 'button', className: 'secondary', on: { click: () => this.move(-1) } }, 'Previous output');
    this.next = h('button', { type: 'button', className: 'secondary', on: { click: () => this.move(1) } }, 'Next output');
    const close = h('button', { type: 'button', on: { click: () => this.close() } }, 'Close');
    this.dialog = h(
      'dialog',
      { className: 'viewer', 'aria-labelledby': 'viewer-title', 'aria-describedby': 'viewer-help', on: { keydown: (event: KeyboardEvent) => this.key(event), close: () => this.restore() } },
      h('div', { className: 'viewer-head' }, this.title, close),
      this.stage,
      h('div', { className: 'inline viewer-nav' }, this.previous, this.counter, this.next),
      h('p', { id: 'viewer-help', className: 'hint' }, 'Left and Right arrow keys show the previous and next output; Escape closes.'),
    );
    document.body.append(this.dialog);
  }

  open(items: HistoryItem[], index: number, opener: HTMLElement): void {
    this.items = items;
    this.opener = opener;
    this.show(index);
    if (!this.dialog.open) this.dialog.showModal();
    (this.dialog.querySelector('.viewer-head button') as HTMLButtonElement).focus();
  }

  close(): void {
    if (this.dialog.open) this.dialog.close();
  }

  /** Removes the dialog (when the page goes away). */
  dispose(): void {
    this.close();
    this.dialog.remove();
  }

  private show(index: number): void {
    this.index = (index + this.items.length) % this.items.length;
    const item = this.items[this.index]!;
    const caption = this.describe(item);
    this.title.textContent = caption;
    this.counter.textContent = `Output ${this.index + 1} of ${this.items.length}`;
    this.previous.disabled = this.next.disabled = this.items.length < 2;
    replace(this.stage, renewOnError(fullMedia(item, caption), item, this.renew));
  }

  private move(step: number): void {
    if (this.items.length > 1) this.show(this.index + step);
  }

  private key(event: KeyboardEvent): void {
    // Arrow keys belong to a focused video or audio (seeking) only while it plays its own controls.
    const inMedia = (event.target as Element).matches?.('video, audio');
    if (event.key === 'ArrowLeft' && !inMedia) {
      event.preventDefault();
      this.move(-1);
    } else if (event.key === 'ArrowRight' && !inMedia) {
      event.preventDefault();
      this.move(1);
    } else if (event.key === 'Tab') {
      this.trap(event);
    }
  }

  /** Keeps Tab and Shift+Tab cycling through the dialog's own controls. */
  private trap(event: KeyboardEvent): void {
    const focusable = [...this.dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => !element.hidden);
    if (focusable.length === 0) return;
    const first = focusable[0]!;
    const last = focusable.at(-1)!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  private restore(): void {
    replace(this.stage);
    if (this.opener?.isConnected) this.opener.focus();
    this.opener = null;
  }
}
