import WebSocket from 'ws';
import type { TestClient } from './test-client.ts';

export interface SocketMessage {
  type: string;
  jobId?: string;
  seq?: number;
  [field: string]: unknown;
}

/** A WebSocket to the service authenticated like the browser: with the client's cookies. */
export async function openSocket(client: TestClient, options: { origin?: string; path?: string } = {}) {
  const url = client.baseUrl.replace(/^http/, 'ws') + (options.path ?? '/api/v1/ws');
  const headers: Record<string, string> = { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  if (options.origin) headers.origin = options.origin;
  const socket = new WebSocket(url, { headers });
  const messages: SocketMessage[] = [];
  const waiters: { predicate: (m: SocketMessage) => boolean; resolve: (m: SocketMessage) => void }[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as SocketMessage;
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  return {
    socket,
    messages,
    send(message: unknown) {
      socket.send(JSON.stringify(message));
    },
    waitFor(predicate: (m: SocketMessage) => boolean, timeoutMs = 30_000): Promise<SocketMessage> {
      const seen = messages.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching socket message in ${timeoutMs} ms; got ${messages.map((m) => m.type).join(', ')}`)), timeoutMs);
        waiters.push({ predicate, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
    close() {
      socket.terminate();
    },
  };
}
