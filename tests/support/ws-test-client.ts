import { WebSocket, type ClientOptions } from 'ws';

export type WsMessage = { type: string; seq?: number; [field: string]: unknown };

export interface WsTestClient {
  ws: WebSocket;
  /** Every JSON text frame received so far, in order. */
  messages: WsMessage[];
  send(message: unknown): void;
  /** Resolves with the first message (received or still to come) that matches. */
  waitFor(match: (m: WsMessage) => boolean, timeoutMs?: number): Promise<WsMessage>;
  /** Resolves once `count` messages matching `match` have arrived; returns them. */
  waitForCount(match: (m: WsMessage) => boolean, count: number, timeoutMs?: number): Promise<WsMessage[]>;
  /** Resolves with the close code when the server closes or drops the socket. */
  closed: Promise<number>;
  close(): Promise<void>;
}

export interface WsAuth {
  cookie?: string;
  bearer?: string;
  origin?: string;
  /** `false` makes the client ignore pings, like a frozen browser tab. */
  autoPong?: boolean;
}

const headersOf = (auth: WsAuth): Record<string, string> => ({
  ...(auth.cookie ? { cookie: `access_token=${auth.cookie}` } : {}),
  ...(auth.bearer ? { authorization: `Bearer ${auth.bearer}` } : {}),
});

/** Opens a socket and records its JSON frames; rejects with the HTTP status when the upgrade is refused. */
export async function connectWs(url: string, auth: WsAuth = {}): Promise<WsTestClient> {
  const options: ClientOptions = { headers: headersOf(auth), autoPong: auth.autoPong ?? true, ...(auth.origin ? { origin: auth.origin } : {}) };
  const ws = new WebSocket(url, options);
  const messages: WsMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (raw, isBinary) => {
    if (isBinary) return;
    messages.push(JSON.parse(raw.toString()) as WsMessage);
    for (const wake of [...waiters]) wake();
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);

  const waitForCount = (match: (m: WsMessage) => boolean, count: number, timeoutMs = 10_000): Promise<WsMessage[]> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = messages.filter(match);
        if (found.length < count) return false;
        waiters.delete(wake);
        clearTimeout(timer);
        resolve(found.slice(0, count));
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`got ${messages.filter(match).length} of ${count} matching messages in ${timeoutMs} ms; all: ${JSON.stringify(messages).slice(0, 500)}`));
      }, timeoutMs);
      waiters.add(wake);
      check();
    });

  return {
    ws,
    messages,
    closed,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    waitForCount,
    waitFor: async (match, timeoutMs) => (await waitForCount(match, 1, timeoutMs))[0]!,
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      await closed;
    },
  };
}

/** The HTTP status of a refused upgrade (fails the test when the socket opens instead). */
export async function refusedStatus(url: string, auth: WsAuth = {}): Promise<{ status: number; body: string }> {
  try {
    const client = await connectWs(url, auth);
    await client.close();
  } catch (error) {
    const { status, body } = error as { status?: number; body?: string };
    if (status !== undefined) return { status, body: body ?? '' };
    throw error;
  }
  throw new Error('the upgrade was accepted');
}
