import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { checkpointLoaderNode } from '../../adapters/builtin-engine/nodes/model-nodes.ts';
import type { NodeDef } from '../../adapters/builtin-engine/types.ts';
import { createComfyProtocolServer } from '../../adapters/comfyui-protocol-server/comfy-protocol-server.ts';
import type { RunCosts } from '../../adapters/comfyui-protocol-server/run-costs.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export interface StartedComfyServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port>/ws (append `?clientId=...`) */
  wsUrl: string;
  inputDir: string;
  outputDir: string;
  tempDir: string;
  port: number;
  /** Stops serving and removes the folders. */
  close(): Promise<void>;
  /** Stops serving but keeps the folders (a restart on the same port and root keeps the files, like ComfyUI's output folder). */
  stop(): Promise<void>;
}

/**
 * The builtin engine served over ComfyUI's protocol on a free port, with its folders in a fresh
 * temp dir that `close()` removes. A protocol peer for suites that test ComfyUI clients.
 */
export interface ComfyStandInOptions {
  maxUploadBytes?: number;
  port?: number;
  root?: string;
  /** Model files by ComfyUI folder; `checkpoints` adds a CheckpointLoaderSimple whose ckpt_name lists them. */
  models?: { checkpoints?: string[] };
  /** Nodes this server has beyond the builtin ones. */
  extraNodes?: NodeDef[];
  /** Builtin node classes this server lacks (its /object_info omits them and it refuses prompts using them). */
  hideNodes?: string[];
  /** Simulated GPU time: a model switch's load and each executed node's run (ms). */
  costs?: RunCosts;
}

export const startComfyProtocolServer = async (options: ComfyStandInOptions = {}): Promise<StartedComfyServer> => {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'comfy-protocol-')));
  const dirs = { inputDir: join(root, 'input'), outputDir: join(root, 'output'), tempDir: join(root, 'temp') };
  const extraNodes = [...(options.models?.checkpoints ? [checkpointLoaderNode(options.models.checkpoints)] : []), ...(options.extraNodes ?? [])];
  const server = createComfyProtocolServer({
    runtime: new BuiltinRuntime({ ...dirs, extraNodes, ...(options.hideNodes ? { hideNodes: options.hideNodes } : {}) }),
    ...dirs,
    host: '127.0.0.1',
    port: options.port ?? 0,
    ...(options.maxUploadBytes === undefined ? {} : { maxUploadBytes: options.maxUploadBytes }),
    ...(options.costs ? { costs: options.costs } : {}),
    log: () => undefined,
  });
  const { port } = await server.listen();
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    ...dirs,
    port,
    async close() {
      await server.close();
      await rm(root, { recursive: true, force: true });
    },
    async stop() {
      await server.close();
    },
  };
};

type Teardown = { teardown(fn: () => Promise<void>): void };

/** A stand-in closed when the test ends. */
export const standInFor = async (t: Teardown): Promise<StartedComfyServer> => {
  const started = await startComfyProtocolServer();
  t.teardown(() => started.close());
  return started;
};

/** A TCP proxy in front of `target` (to cut or refuse its connections), closed when the test ends. */
export const proxyFor = async (t: Teardown, target: { port: number }): Promise<TcpProxy> => {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: target.port });
  t.teardown(() => proxy.close());
  return proxy;
};

export interface ComfyWsMessage {
  type: string;
  data: Record<string, unknown>;
}

export interface ComfyWsClient {
  /** Every JSON frame received so far, in order. */
  messages: ComfyWsMessage[];
  /** Resolves with the first message (already received or still to come) that matches. */
  waitFor(match: (m: ComfyWsMessage) => boolean, timeoutMs?: number): Promise<ComfyWsMessage>;
  close(): Promise<void>;
}

/** Opens `/ws?clientId=` and records the JSON frames; resolves once the socket is open. */
export const connectComfyWs = async (wsUrl: string, clientId?: string): Promise<ComfyWsClient> => {
  const ws = new WebSocket(clientId === undefined ? wsUrl : `${wsUrl}?clientId=${encodeURIComponent(clientId)}`);
  const messages: ComfyWsMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (raw, isBinary) => {
    if (isBinary) return;
    messages.push(JSON.parse(raw.toString()) as ComfyWsMessage);
    for (const wake of waiters) wake();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    messages,
    waitFor(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = messages.find(match);
          if (!found) return false;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no matching message in ${timeoutMs} ms; got ${messages.map((m) => m.type).join(', ')}`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
};
