import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Logger } from '../../core/ports/logger.port.ts';
import { SESSION_CHANNEL, USER_EVENTS_CHANNEL, type EventBus, type SessionRevoked, type StoredUserEvent, type UserEventEnvelope } from '../../core/ports/user-events.port.ts';
import { normalizeOrigin, pathOf, rejectUpgrade, tokenOf } from './upgrade-request.ts';

/** The canonical path and the legacy one (API.md §0). Upgrades to any other path are left alone. */
export const WS_PATHS: readonly string[] = ['/api/v1/ws', '/api/ws'];

/** Close codes of the real-time endpoint (documented in API docs and ADR 015). */
export const WS_CLOSE = {
  /** The access token the socket runs on expired: refresh, reconnect and `sync` (or re-authenticate in band first). */
  TOKEN_EXPIRED: 4001,
  /** The login the socket was opened with was logged out or revoked. */
  SESSION_REVOKED: 4003,
} as const;

export interface SocketClaims {
  userId: string;
  sessionId: string;
  expiresAt: Date;
}

export interface WsGatewayDeps {
  /** An access token to its claims, or null when invalid, expired or logged out. */
  authenticate(token: string): Promise<SocketClaims | null>;
  /** The user's stored events with seq > since, in seq order, at most `max` (UserEventStore.listSince). */
  replay(userId: string, since: number, max: number): Promise<StoredUserEvent[]>;
  /** The user's queued and running jobs, already in their API shape (GenerationJob). */
  snapshot(userId: string): Promise<unknown[]>;
  bus: EventBus;
  /** Browser origins allowed to open a socket (CORS_ORIGINS). A request without Origin is not a browser's and passes. */
  allowedOrigins: readonly string[];
  pingIntervalMs: number;
  logger: Logger;
}

interface HeldEvent {
  seq: number;
  text: string;
}

/** Per-socket state, kept small: the serialized text of a live event is shared by all of a user's sockets. */
interface Client {
  readonly ws: WebSocket;
  readonly userId: string;
  /** The login the socket's access token belongs to (an in-band `auth` may only renew it with a token of the same user). */
  sessionId: string;
  expiry: NodeJS.Timeout | null;
  /** Answered the last ping. */
  alive: boolean;
  /** Non-null while a sync replays: live events wait here so they are neither lost nor sent out of order. */
  held: HeldEvent[] | null;
  /** The held buffer hit its cap and was dropped; the replay reads on from the store, which has every published event. */
  overflowed: boolean;
  /** The seq of the last event sent on this socket (null before the first): a later one that skips ahead makes the
   * gateway fill the gap from the store, and an older or repeated one is not sent twice. */
  lastSeq: number | null;
  /** A catch-up from the store the gateway started on its own (not the client's sync), while it runs. */
  catchingUp: Promise<void> | null;
}

const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;
const REPLAY_PAGE = 500;
const HOLD_LIMIT = 1000;
/** A client this far behind is not reading; dropping it bounds our memory, and it can reconnect and sync. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const CLOSE_GRACE_MS = 1000;
/** The longest delay setTimeout takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const GOING_AWAY = 1001;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Browsers send `Origin`; a page served by this service itself (its own host) may always connect. */
const sameOrigin = (origin: string, host: string | undefined): boolean => {
  if (!host) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
};

const asRevocation = (payload: unknown): SessionRevoked | null => {
  if (!isRecord(payload) || payload.type !== 'session.revoked' || typeof payload.userId !== 'string') return null;
  if (typeof payload.sessionId !== 'string') return null;
  return payload as unknown as SessionRevoked;
};

const asEnvelope = (payload: unknown): UserEventEnvelope | null => {
  if (!isRecord(payload) || typeof payload.userId !== 'string' || !Number.isSafeInteger(payload.seq)) return null;
  if (!isRecord(payload.event) || typeof payload.event.type !== 'string') return null;
  return payload as unknown as UserEventEnvelope;
};

/** The wire form of an event: its own fields plus the user's seq. */
const eventText = (event: Record<string, unknown>, seq: number): string => JSON.stringify({ ...event, seq });

const destroyOnError = function (this: Duplex): void {
  this.destroy();
};

/**
 * The real-time endpoint (API.md §6). It authenticates each upgrade (cookie or Bearer, Origin
 * allow-list), keeps a registry of sockets per user, forwards every USER_EVENTS_CHANNEL event to the
 * sockets of its user only, answers `sync`, and pings.
 *
 * `{"type":"sync","since":n}` replays the caller's stored events with seq > n in order, then sends one
 * `{"type":"job.snapshot","jobs":[...]}`. Without `since` (absent or null) nothing is replayed: the client gets the
 * snapshot only (a fresh page has no seq to resume from and wants current state, not 24 h of history).
 *
 * A socket follows its session: it closes with 4001 when the access token it runs on expires (unless the
 * client sent `{"type":"auth","token":"<fresh access token>"}` first, answered `{"type":"auth.ok","expiresAt"}`),
 * and with 4003 as soon as its login is logged out or revoked, on whichever instance that happened.
 */
export class WsGateway {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES, clientTracking: false });
  private readonly byUser = new Map<string, Set<Client>>();
  private readonly origins: Set<string>;
  private server: Server | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private unsubscribeSessions: (() => Promise<void>) | null = null;
  private forgetReconnects: (() => void) | null = null;
  private pinger: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly deps: WsGatewayDeps) {
    this.origins = new Set(deps.allowedOrigins.map(normalizeOrigin).filter((origin): origin is string => origin !== null));
  }

  /** Open sockets, all users. */
  get size(): number {
    let count = 0;
    for (const clients of this.byUser.values()) count += clients.size;
    return count;
  }

  async start(server: Server): Promise<void> {
    if (this.server) throw new Error('the WebSocket gateway is already started');
    this.stopping = false;
    this.unsubscribe = await this.deps.bus.subscribe(USER_EVENTS_CHANNEL, this.deliver);
    this.unsubscribeSessions = await this.deps.bus.subscribe(SESSION_CHANNEL, this.revoke);
    this.forgetReconnects = this.deps.bus.onReconnect?.(this.busReconnected) ?? null;
    this.server = server;
    server.on('upgrade', this.onUpgrade);
    this.pinger = setInterval(this.heartbeat, this.deps.pingIntervalMs);
    this.pinger.unref();
  }

  /** Detaches from the server and the bus, and closes every socket (1001), terminating those that do not close in time. */
  async stop(): Promise<void> {
    if (!this.server) return;
    this.stopping = true;
    this.server.off('upgrade', this.onUpgrade);
    this.server = null;
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
    this.forgetReconnects?.();
    this.forgetReconnects = null;
    const unsubscribes = [this.unsubscribe, this.unsubscribeSessions];
    this.unsubscribe = null;
    this.unsubscribeSessions = null;
    for (const unsubscribe of unsubscribes) {
      await unsubscribe?.().catch((error: unknown) => this.deps.logger.warn('ws: bus unsubscribe failed', { error: String(error) }));
    }

    const sockets = [...this.byUser.values()].flatMap((clients) => [...clients].map((client) => client.ws));
    const closed = sockets.map((ws) => (ws.readyState === WebSocket.CLOSED ? Promise.resolve() : new Promise<void>((resolve) => ws.once('close', () => resolve()))));
    for (const ws of sockets) ws.close(GOING_AWAY, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    for (const ws of sockets) if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
    this.byUser.clear();
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (!WS_PATHS.includes(pathOf(req.url))) return;
    // Node removes its own error listener from an upgraded socket; a reset during the async checks must not crash us.
    socket.on('error', destroyOnError);
    this.admit(req, socket, head).catch((error: unknown) => {
      this.deps.logger.error('ws: upgrade failed', { error: String(error) });
      rejectUpgrade(socket, 500, 'Internal Server Error');
    });
  };

  private async admit(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host)) {
      const normalized = normalizeOrigin(origin);
      if (normalized === null || !this.origins.has(normalized)) return rejectUpgrade(socket, 403, 'Origin not allowed');
    }
    const token = tokenOf(req);
    if (!token) return rejectUpgrade(socket, 401, 'Authentication required');
    const claims = await this.deps.authenticate(token);
    if (!claims) return rejectUpgrade(socket, 401, 'Access token is invalid or expired');
    if (this.stopping) return rejectUpgrade(socket, 503, 'Server shutting down');
    if (socket.destroyed) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('error', destroyOnError);
      this.register(ws, claims);
    });
  }

  private register(ws: WebSocket, claims: SocketClaims): void {
    if (this.stopping) {
      ws.close(GOING_AWAY, 'server shutting down');
      return;
    }
    const { userId } = claims;
    const client: Client = { ws, userId, sessionId: claims.sessionId, expiry: null, alive: true, held: null, overflowed: false, lastSeq: null, catchingUp: null };
    this.expireAt(client, claims.expiresAt);
    let clients = this.byUser.get(userId);
    if (!clients) {
      clients = new Set();
      this.byUser.set(userId, clients);
    }
    clients.add(client);
    ws.on('pong', () => {
      client.alive = true;
    });
    ws.on('message', (data, isBinary) => this.onMessage(client, data, isBinary));
    ws.on('error', (error) => this.deps.logger.debug('ws: socket error', { userId, error: error.message }));
    ws.on('close', () => {
      if (client.expiry) clearTimeout(client.expiry);
      const set = this.byUser.get(userId);
      if (!set) return;
      set.delete(client);
      if (set.size === 0) this.byUser.delete(userId);
    });
  }

  private onMessage(client: Client, data: RawData, isBinary: boolean): void {
    if (isBinary) return this.sendError(client, 'Binary messages are not supported; send JSON text');
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return this.sendError(client, 'Message is not valid JSON');
    }
    if (!isRecord(message) || typeof message.type !== 'string') return this.sendError(client, 'Message must be a JSON object with a string "type"');
    if (message.type === 'auth') return void this.reauthenticate(client, message.token);
    if (message.type !== 'sync') return this.sendError(client, `Unknown message type "${message.type.slice(0, 64)}"; expected "sync" or "auth"`);
    const since = message.since ?? undefined;
    if (since !== undefined && (!Number.isSafeInteger(since) || (since as number) < 0)) {
      return this.sendError(client, '"since" must be a non-negative integer (a seq) or absent');
    }
    // The client's own sync waits for a catch-up the gateway started; only a second client sync is refused.
    if (client.held !== null && client.catchingUp === null) return this.sendError(client, 'A sync is already in progress');
    const after = client.catchingUp ?? Promise.resolve();
    after.then(() => (client.held !== null ? this.sendError(client, 'A sync is already in progress') : this.sync(client, since as number | undefined))).catch((error: unknown) => {
      this.deps.logger.error('ws: sync failed', { userId: client.userId, error: String(error) });
      this.sendError(client, 'Sync failed; try again');
    });
  }

  /** Closes the socket with 4001 when its access token (or API key) expires. */
  private expireAt(client: Client, expiresAt: Date): void {
    if (client.expiry) clearTimeout(client.expiry);
    const delay = Math.max(0, expiresAt.getTime() - Date.now());
    // setTimeout's limit is about 24.8 days: an API key may live longer (or forever), so a longer wait is re-armed.
    client.expiry = setTimeout(() => {
      if (delay > MAX_TIMER_MS) this.expireAt(client, expiresAt);
      else client.ws.close(WS_CLOSE.TOKEN_EXPIRED, 'access token expired');
    }, Math.min(delay, MAX_TIMER_MS));
    client.expiry.unref();
  }

  /** `{"type":"auth","token"}`: a fresh access token of the same user keeps the socket open past the old one's expiry. */
  private async reauthenticate(client: Client, token: unknown): Promise<void> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 8192) return this.sendError(client, '"token" must be an access token or an API key');
    const claims = await this.deps.authenticate(token).catch(() => null);
    if (!claims || claims.userId !== client.userId) return this.sendError(client, 'The token is invalid, expired, logged out or of another user; the socket keeps its current session');
    client.sessionId = claims.sessionId;
    this.expireAt(client, claims.expiresAt);
    this.send(client, JSON.stringify({ type: 'auth.ok', expiresAt: claims.expiresAt.toISOString() }));
  }

  /** A login ended (logout, refresh-token reuse): its sockets close with 4003, on every instance. */
  private readonly revoke = (payload: unknown): void => {
    const notice = asRevocation(payload);
    if (!notice) return;
    for (const client of this.byUser.get(notice.userId) ?? []) {
      if (client.sessionId === notice.sessionId) {
        client.ws.close(WS_CLOSE.SESSION_REVOKED, 'session revoked');
      }
    }
  };

  private async sync(client: Client, since: number | undefined): Promise<void> {
    if (since !== undefined) {
      client.lastSeq = since; // the client asks for everything after `since`, again if need be
      await this.replay(client, since);
    }
    const jobs = await this.deps.snapshot(client.userId);
    this.send(client, JSON.stringify({ type: 'job.snapshot', jobs }));
  }

  /** Sends stored events after `since`, then the live events that arrived meanwhile, skipping those already sent. */
  private async replay(client: Client, since: number, pending: HeldEvent[] = []): Promise<void> {
    client.held = [...pending];
    client.overflowed = false;
    let last = since;
    try {
      for (;;) {
        const page = await this.deps.replay(client.userId, last, REPLAY_PAGE);
        for (const stored of page) {
          this.sendEvent(client, stored.seq, eventText(stored.event, stored.seq));
          last = stored.seq;
        }
        if (client.ws.readyState !== WebSocket.OPEN) return;
        if (page.length === REPLAY_PAGE) continue;
        if (!client.overflowed) break;
        client.overflowed = false;
      }
    } finally {
      const held = client.held;
      client.held = null;
      // Stable sort: publishes of one user can overtake each other across processes.
      for (const event of held.sort((a, b) => a.seq - b.seq)) if (event.seq > last) this.sendEvent(client, event.seq, event.text);
    }
  }

  private readonly deliver = (payload: unknown): void => {
    const envelope = asEnvelope(payload);
    if (!envelope) {
      this.deps.logger.warn('ws: ignored a malformed user event from the bus');
      return;
    }
    const clients = this.byUser.get(envelope.userId);
    if (!clients) return;
    const text = eventText(envelope.event, envelope.seq);
    for (const client of clients) {
      if (client.held === null && client.lastSeq !== null && envelope.seq > client.lastSeq + 1) {
        // Events went missing on the bus (at most once: a dropped connection) or were overtaken by this one: the
        // store has them all, so send them first, in order, this one included.
        this.catchUp(client, [{ seq: envelope.seq, text }]);
      } else if (client.held === null) {
        this.sendEvent(client, envelope.seq, text);
      } else {
        if (client.held.length >= HOLD_LIMIT) {
          client.held.length = 0;
          client.overflowed = true;
        }
        client.held.push({ seq: envelope.seq, text });
      }
    }
  };

  /**
   * The bus lost its connection and has it back: whatever was published meanwhile never reached this process.
   * Every socket that has seen events reads on from the store where it stopped (events at the end of a user's
   * stream are not followed by a later one that would reveal the gap).
   */
  private readonly busReconnected = (): void => {
    for (const clients of this.byUser.values()) {
      for (const client of clients) if (client.held === null && client.lastSeq !== null) this.catchUp(client, []);
    }
  };

  private catchUp(client: Client, pending: HeldEvent[]): void {
    const since = client.lastSeq ?? 0;
    const replaying = this.replay(client, since, pending)
      .catch((error: unknown) => this.deps.logger.warn('ws: catching up from the event store failed', { userId: client.userId, error: String(error) }))
      .finally(() => {
        if (client.catchingUp === replaying) client.catchingUp = null;
      });
    client.catchingUp = replaying;
  }

  private readonly heartbeat = (): void => {
    for (const clients of this.byUser.values()) {
      for (const client of clients) {
        if (!client.alive) {
          client.ws.terminate();
          continue;
        }
        client.alive = false;
        try {
          client.ws.ping();
        } catch {
          client.ws.terminate();
        }
      }
    }
  };

  private send(client: Client, text: string): void {
    const { ws } = client;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.deps.logger.warn('ws: dropped a client that does not read', { userId: client.userId, bufferedBytes: ws.bufferedAmount });
      ws.terminate();
      return;
    }
    ws.send(text);
  }

  /** An event goes out once per socket, in seq order: one already sent (a replay overlapping live delivery) is skipped. */
  private sendEvent(client: Client, seq: number, text: string): void {
    if (client.lastSeq !== null && seq <= client.lastSeq) return;
    client.lastSeq = seq;
    this.send(client, text);
  }

  private sendError(client: Client, message: string): void {
    this.send(client, JSON.stringify({ type: 'error', message }));
  }
}
