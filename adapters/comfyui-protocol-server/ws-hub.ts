import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

export interface ConnectState {
  queueRemaining: number;
  /** The client id of the prompt being executed and the node it is on, if any. */
  runningClientId: unknown;
  lastNodeId: string | null;
  features: Record<string, unknown>;
}

/** aiohttp's default max_msg_size. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * ComfyUI's socket registry: one socket per client id, JSON text frames `{type, data}`,
 * `send(.., sid)` with a null sid broadcasting, like PromptServer.send_sync.
 */
export class WsHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly sockets = new Map<string, WebSocket>();

  constructor(private readonly connectState: () => ConnectState) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, clientId: string | null): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, clientId));
  }

  /** `sid` null or undefined broadcasts; a string targets that socket; anything else matches none. */
  send(type: string, data: unknown, sid: unknown): void {
    const text = JSON.stringify({ type, data });
    if (sid === null || sid === undefined) {
      for (const ws of this.sockets.values()) sendQuietly(ws, text);
    } else if (typeof sid === 'string') {
      const ws = this.sockets.get(sid);
      if (ws) sendQuietly(ws, text);
    }
  }

  broadcast(type: string, data: unknown): void {
    this.send(type, data, null);
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private attach(ws: WebSocket, clientId: string | null): void {
    // A reconnect takes the id over; ComfyUI leaves the old socket open but deaf, and so do we.
    const sid = clientId || randomUUID().replaceAll('-', '');
    this.sockets.set(sid, ws);
    const state = this.connectState();
    sendQuietly(ws, JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: state.queueRemaining } }, sid } }));
    if (state.runningClientId === sid && state.lastNodeId !== null) {
      sendQuietly(ws, JSON.stringify({ type: 'executing', data: { node: state.lastNodeId } }));
    }
    let firstMessage = true;
    ws.on('message', (raw, isBinary) => {
      if (isBinary) return;
      let message: unknown;
      try {
        message = JSON.parse(raw.toString());
      } catch {
        return;
      }
      const wasFirst = firstMessage;
      firstMessage = false;
      if (wasFirst && typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'feature_flags') {
        sendQuietly(ws, JSON.stringify({ type: 'feature_flags', data: this.connectState().features }));
      }
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      // Unlike ComfyUI, an old socket closing after a reconnect does not unregister the new one.
      if (this.sockets.get(sid) === ws) this.sockets.delete(sid);
    });
  }
}

/** A socket that is closing takes the frame as a no-op: ws hands the error to the callback, which drops it. */
const sendQuietly = (ws: WebSocket, text: string): void => {
  ws.send(text, () => undefined);
};
