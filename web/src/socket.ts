import { onSignedOut, refreshSession, request } from './api.ts';

export interface ServerEvent {
  type: string;
  jobId?: string;
  seq?: number;
  [key: string]: unknown;
}

type Listener = (event: ServerEvent) => void;

const TOKEN_EXPIRED = 4001;
const SESSION_REVOKED = 4003;

/**
 * The real-time channel (API.md §6). It remembers the last `seq` it saw; after a dropped connection it
 * reconnects with backoff and sends `{"type":"sync","since":seq}` so nothing is missed. A socket closed
 * because its access token expired (4001), or refused before it opened, renews the session first; a session that
 * cannot be renewed signs the page out.
 */
export class EventSocket {
  private ws: WebSocket | null = null;
  private lastSeq: number | null = null;
  private listeners = new Set<Listener>();
  private stopped = true;
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000, 'signed out');
    this.ws = null;
    this.lastSeq = null;
  }

  /** Drops the connection as a network failure would (the client reconnects and syncs). */
  drop(): void {
    this.ws?.close(4000, 'dropped by the client');
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  private connect(): void {
    const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/v1/ws`;
    const ws = new WebSocket(url);
    this.ws = ws;
    let opened = false;
    ws.addEventListener('open', () => {
      opened = true;
      this.retry = 0;
      ws.send(JSON.stringify(this.lastSeq === null ? { type: 'sync' } : { type: 'sync', since: this.lastSeq }));
    });
    ws.addEventListener('message', (message) => {
      let event: ServerEvent;
      try {
        event = JSON.parse(String(message.data)) as ServerEvent;
      } catch {
        return;
      }
      if (typeof event.seq === 'number') {
        if (this.lastSeq !== null && event.seq <= this.lastSeq) return;
        this.lastSeq = event.seq;
      }
      for (const listener of this.listeners) listener(event);
    });
    ws.addEventListener('close', (close) => {
      if (this.ws !== ws || this.stopped) return;
      this.ws = null;
      if (close.code === SESSION_REVOKED) return;
      const delay = Math.min(10_000, 250 * 2 ** this.retry++);
      this.timer = setTimeout(() => {
        if (this.stopped) return;
        // The token ran out: renew the session, and when it is gone for good (refresh refused) the page signs out
        // instead of reconnecting for ever.
        if (close.code === TOKEN_EXPIRED) void refreshSession().then((renewed) => !this.stopped && (renewed ? this.connect() : onSignedOut()));
        // Refused before it opened: the browser does not say why, and an access token that expired while the socket
        // was down (a laptop asleep) is refused at every try. One request tells: a 401 renews the session (or signs
        // out); a server that is down fails it, and the next try waits longer.
        else if (!opened) void request('GET', '/auth/profile').catch(() => undefined).then(() => !this.stopped && this.connect());
        else this.connect();
      }, close.code === TOKEN_EXPIRED ? 0 : delay);
    });
  }
}
