import { mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import express from 'express';
import { fileRoutes } from './file-routes.ts';
import { HistoryStore } from './history-store.ts';
import { errorHandler, notFound } from './http-support.ts';
import type { ServerLog } from './http-support.ts';
import { infoRoutes, serverFeatures } from './info-routes.ts';
import { isForeignOrigin, originCheck } from './origin-check.ts';
import { PromptExecutor } from './prompt-executor.ts';
import { PromptQueue } from './prompt-queue.ts';
import { promptRoutes } from './prompt-routes.ts';
import type { ProtocolRuntime } from './protocol-runtime.types.ts';
import { CostlyRuntime, type RunCosts } from './run-costs.ts';
import { WsHub } from './ws-hub.ts';

export interface ComfyProtocolServerOptions {
  runtime: ProtocolRuntime;
  inputDir: string;
  outputDir: string;
  tempDir: string;
  /** Default 127.0.0.1, like ComfyUI without --listen. */
  host?: string;
  /** Default 8188; 0 picks a free port. */
  port?: number;
  /** --max-upload-size, applied to every request body. Default 100 MB. */
  maxUploadBytes?: number;
  log?: ServerLog;
  /** Simulated GPU time: a model switch's load and each executed node's run (ADR 044); none by default. */
  costs?: RunCosts;
}

export interface ComfyProtocolServer {
  listen(): Promise<{ port: number }>;
  close(): Promise<void>;
}

const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const WS_PATHS = new Set(['/ws', '/api/ws']);

const stderrLog: ServerLog = (entry) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
};

/**
 * The builtin engine behind ComfyUI's own HTTP + WebSocket protocol (see comfyui-protocol.md):
 * a protocol peer for the comfyui engine adapter, and a standalone "ComfyUI" process.
 */
export const createComfyProtocolServer = (options: ComfyProtocolServerOptions): ComfyProtocolServer => {
  const dirs = { input: resolve(options.inputDir), output: resolve(options.outputDir), temp: resolve(options.tempDir) };
  const maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const log = options.log ?? stderrLog;
  const runtime = options.costs ? new CostlyRuntime(options.runtime, options.costs) : options.runtime;
  const history = new HistoryStore();
  let executor: PromptExecutor | null = null;
  const hub = new WsHub(() => {
    const running = executor?.runningClient() ?? { clientId: null, lastNodeId: null };
    return {
      queueRemaining: queue.remaining(),
      runningClientId: running.clientId,
      lastNodeId: running.lastNodeId,
      features: serverFeatures(maxUploadBytes),
    };
  });
  const queue: PromptQueue = new PromptQueue(() =>
    hub.broadcast('status', { status: { exec_info: { queue_remaining: queue.remaining() } } }),
  );
  executor = new PromptExecutor(runtime, queue, history, hub);
  const routes = express.Router();
  routes.use(promptRoutes({ runtime, queue, history, executor, counter: { number: 0 }, maxUploadBytes }));
  routes.use(fileRoutes(dirs, maxUploadBytes));
  routes.use(infoRoutes(runtime, maxUploadBytes));

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(originCheck);
  app.use('/api', routes);
  app.use(routes);
  app.use(notFound);
  app.use(errorHandler(maxUploadBytes, log));

  // aiohttp's keep-alive (ComfyUI's server) holds an idle connection 75 s; Node's default of 5 s closed it while a client
  // sent its next request on it, under load ("fetch failed": the client's reuse raced the close).
  const server = createServer({ keepAliveTimeout: 75_000 }, app);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(hub, req, socket, head).catch(() => socket.destroy());
  });

  return {
    async listen() {
      // ComfyUI wipes its temp folder (previews) at startup.
      await rm(dirs.temp, { recursive: true, force: true });
      await Promise.all(Object.values(dirs).map((dir) => mkdir(dir, { recursive: true })));
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(options.port ?? 8188, options.host ?? '127.0.0.1', () => {
          server.off('error', fail);
          done();
        });
      });
      executor?.start();
      return { port: (server.address() as AddressInfo).port };
    },
    async close() {
      await executor?.close();
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
};

const upgrade = async (hub: WsHub, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (!WS_PATHS.has(url.pathname)) {
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  if (await isForeignOrigin(req.headers.host, req.headers.origin)) {
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  hub.handleUpgrade(req, socket, head, url.searchParams.get('clientId'));
};
