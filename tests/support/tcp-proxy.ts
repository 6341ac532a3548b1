import { createServer, connect, type Socket } from 'node:net';

export interface TcpProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Requests seen whose request line starts with this (e.g. "POST /prompt "). */
  count(requestLinePrefix: string): number;
  /** Destroys every open WebSocket connection (an upgrade request went through it); plain HTTP goes on. */
  cutWebSockets(): number;
  /** From now on, every WebSocket upgrade through the proxy is cut as soon as it is seen (HTTP still flows). */
  refuseWebSockets(): void;
  /** Down: every open connection is cut and new ones are closed at once (the target seems gone); up again: it forwards. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  websocket: boolean;
}

/** A TCP forwarder in front of a server, to count requests and to cut sockets mid-job (fault tests). */
export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  const pairs = new Set<Pair>();
  const requestLines: string[] = [];
  let refuse = false;
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream, websocket: false };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      for (const match of text.matchAll(/(?:^|\r\n)((?:GET|POST|PUT|DELETE|HEAD) \S+ HTTP\/1\.1)\r\n/g)) requestLines.push(match[1]!);
      if (/\r\nupgrade: websocket\r\n/i.test(text)) {
        pair.websocket = true;
        if (refuse) drop();
      }
    });
    client.pipe(upstream).pipe(client);
    function drop(): void {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    }
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cutWebSockets = (): number => {
      let cut = 0;
      for (const pair of [...pairs]) {
        if (!pair.websocket) continue;
        pair.client.destroy();
        pair.upstream.destroy();
        pairs.delete(pair);
        cut += 1;
      }
      return cut;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    count: (prefix) => requestLines.filter((line) => line.startsWith(prefix)).length,
    cutWebSockets,
    refuseWebSockets() {
      refuse = true;
      cutWebSockets();
    },
    setDown(value) {
      down = value;
      if (!value) return;
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.upstream.destroy();
        pairs.delete(pair);
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
