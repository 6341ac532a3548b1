/**
 * One ComfyUI server over HTTP (see ../shared/comfyui-protocol.md). ComfyUI has no authentication of its
 * own; operators put it behind a proxy, so each server may carry basic auth (the URL's userinfo) or a
 * bearer token. Every call has a deadline; a network failure or a 5xx is `ComfyUnavailable`, which the
 * pool and the engine treat as "this server is not usable now".
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { WebSocket } from 'ws';

export class ComfyUnavailable extends Error {
  constructor(readonly server: string, message: string) {
    super(`ComfyUI ${server}: ${message}`);
  }
}

/** A file item of ComfyUI's ui dicts: `{filename, subfolder, type}`. */
export interface ComfyFileRef {
  filename: string;
  subfolder: string;
  type: string;
}

/** `GET /queue`'s items are `[number, prompt_id, prompt, extra_data, outputs_to_execute]`. */
export type ComfyQueueItem = [number, string, unknown, Record<string, unknown>, unknown];

export interface ComfyHistoryEntry {
  /** `[number, prompt_id, prompt, extra_data, outputs_to_execute]`. */
  prompt?: unknown[];
  outputs: Record<string, Record<string, unknown>>;
  status?: { status_str?: string; completed?: boolean; messages?: [string, Record<string, unknown>][] };
}

export interface ComfyNodeError {
  class_type?: string;
  errors?: { type?: string; message?: string; details?: string }[];
}

export type SubmitOutcome =
  | { kind: 'accepted'; promptId: string; nodeErrors: Record<string, ComfyNodeError> }
  | { kind: 'rejected'; error: { type?: string; message?: string; details?: string }; nodeErrors: Record<string, ComfyNodeError> };

export interface ComfyDevice {
  name: string;
  vram_total: number;
  vram_free: number;
}

export interface ComfySystemStats {
  system?: { comfyui_version?: string };
  devices?: ComfyDevice[];
}

export interface ComfyClientOptions {
  /** Deadline of each HTTP call (headers, for /view), in ms. */
  timeoutMs: number;
  /** Bearer token for servers whose URL carries no userinfo (COMFYUI_TOKEN). */
  token?: string;
  /** How errors name this server ("server 2"): error texts reach users, so they never carry the address. */
  label?: string;
  /** The fetch every HTTP call goes through (the global one by default; a tracing wrapper when traces are on). */
  fetch?: typeof fetch;
}

/** An IPv4 address (with its port), as network errors quote it ("connect ECONNREFUSED 10.0.0.5:8188"). */
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;

/** The path of a response's URL, never its host. */
const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
};

export class ComfyClient {
  /** The URL without credentials, for the operator's logs only. */
  readonly name: string;
  /** The server's name in error messages (its position in COMFYUI_URLS), never its address. */
  readonly label: string;
  private readonly base: string;
  private readonly authorization: string | undefined;

  constructor(url: string, private readonly options: ComfyClientOptions) {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      const user = decodeURIComponent(parsed.username);
      const pass = decodeURIComponent(parsed.password);
      this.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    } else if (options.token) {
      this.authorization = `Bearer ${options.token}`;
    }
    this.base = parsed.toString().replace(/\/+$/, '');
    this.name = this.base;
    this.label = options.label ?? 'server';
  }

  /** A failure naming this server by its label: its URL, host and any IP address are taken out of the text. */
  private unavailable(message: string): ComfyUnavailable {
    const url = new URL(this.base);
    const scrubbed = [this.base, url.host, url.hostname].reduce((text, part) => text.split(part).join(this.label), message);
    return new ComfyUnavailable(this.label, scrubbed.replace(IPV4, this.label));
  }

  async submit(prompt: unknown, clientId: string, promptId: string, extraData: Record<string, unknown>): Promise<SubmitOutcome> {
    const res = await this.request('POST', '/prompt', { prompt, client_id: clientId, prompt_id: promptId, extra_data: extraData });
    const body = (await this.json(res)) as Record<string, unknown>;
    if (res.status === 200) return { kind: 'accepted', promptId: String(body['prompt_id'] ?? promptId), nodeErrors: (body['node_errors'] ?? {}) as Record<string, ComfyNodeError> };
    if (res.status === 400) {
      return {
        kind: 'rejected',
        error: (body['error'] ?? {}) as { type?: string; message?: string; details?: string },
        nodeErrors: (body['node_errors'] ?? {}) as Record<string, ComfyNodeError>,
      };
    }
    throw this.unavailable(`POST /prompt answered ${res.status}`);
  }

  async queue(): Promise<{ running: ComfyQueueItem[]; pending: ComfyQueueItem[] }> {
    const body = (await this.getJson('/queue')) as { queue_running?: ComfyQueueItem[]; queue_pending?: ComfyQueueItem[] };
    return { running: body.queue_running ?? [], pending: body.queue_pending ?? [] };
  }

  /** The finished prompt's entry, or null while it is queued, running or unknown. */
  async history(promptId: string): Promise<ComfyHistoryEntry | null> {
    const body = (await this.getJson(`/history/${encodeURIComponent(promptId)}`)) as Record<string, ComfyHistoryEntry>;
    return body[promptId] ?? null;
  }

  /** The newest `maxItems` history entries, by prompt id (GET /history?max_items=N). */
  async recentHistory(maxItems: number): Promise<Record<string, ComfyHistoryEntry>> {
    return (await this.getJson(`/history?max_items=${maxItems}`)) as Record<string, ComfyHistoryEntry>;
  }

  /** Streams a file from /view: the deadline covers the response headers, never the body. */
  async view(file: ComfyFileRef): Promise<Readable> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    const res = await this.request('GET', `/view?${query}`);
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      throw this.unavailable(`GET /view of ${file.subfolder ? `${file.subfolder}/` : ''}${file.filename} answered ${res.status}`);
    }
    return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  }

  /** Whether /view still serves the file (GET, body not read): false on 404. */
  async hasFile(file: ComfyFileRef): Promise<boolean> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    const res = await this.request('GET', `/view?${query}`);
    await res.body?.cancel();
    if (res.status === 404) return false;
    if (res.status !== 200) throw this.unavailable(`GET /view of ${file.subfolder ? `${file.subfolder}/` : ''}${file.filename} answered ${res.status}`);
    return true;
  }

  /** POST /upload/image with overwrite into `subfolder` of the input folder: returns the name LoadImage must use. */
  async upload(name: string, data: Buffer, mimeType: string, subfolder = ''): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(data)], { type: mimeType }), name);
    form.append('type', 'input');
    form.append('subfolder', subfolder);
    form.append('overwrite', 'true');
    const res = await this.request('POST', '/upload/image', form);
    if (res.status !== 200) {
      await res.body?.cancel();
      throw this.unavailable(`POST /upload/image answered ${res.status}`);
    }
    const body = (await res.json()) as { name: string; subfolder?: string };
    return body.subfolder ? `${body.subfolder}/${body.name}` : body.name;
  }

  /** Removes a pending prompt (a no-op when it is not pending). */
  async deletePending(promptId: string): Promise<void> {
    await this.drain(await this.request('POST', '/queue', { delete: [promptId] }));
  }

  /** Interrupts this prompt only if it is the one running (never a bare interrupt). */
  async interrupt(promptId: string): Promise<void> {
    await this.drain(await this.request('POST', '/interrupt', { prompt_id: promptId }));
  }

  async systemStats(): Promise<ComfySystemStats> {
    return (await this.getJson('/system_stats')) as ComfySystemStats;
  }

  async objectInfo(): Promise<Record<string, unknown>> {
    return (await this.getJson('/object_info')) as Record<string, unknown>;
  }

  /** Opens `/ws?clientId=`; resolves once open. */
  openSocket(clientId: string): Promise<WebSocket> {
    const url = new URL(`${this.base}/ws`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('clientId', clientId);
    const ws = new WebSocket(url, {
      handshakeTimeout: this.options.timeoutMs,
      ...(this.authorization ? { headers: { authorization: this.authorization } } : {}),
    });
    return new Promise((resolve, reject) => {
      const failed = (error: Error): void => {
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(this.unavailable(`socket: ${error.message}`));
      };
      ws.once('error', failed);
      ws.once('unexpected-response', (_req, res) => failed(new Error(`upgrade answered ${res.statusCode}`)));
      ws.once('open', () => {
        ws.off('error', failed);
        ws.on('error', () => undefined);
        resolve(ws);
      });
    });
  }

  private async getJson(path: string): Promise<unknown> {
    const res = await this.request('GET', path);
    if (res.status !== 200) {
      await res.body?.cancel();
      throw this.unavailable(`GET ${path} answered ${res.status}`);
    }
    return this.json(res);
  }

  private async json(res: Response): Promise<unknown> {
    try {
      return await res.json();
    } catch {
      throw this.unavailable(`${pathOf(res.url)} answered ${res.status} without JSON`);
    }
  }

  private async drain(res: Response): Promise<void> {
    await res.body?.cancel();
    if (res.status !== 200) throw this.unavailable(`${pathOf(res.url)} answered ${res.status}`);
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer in ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    const headers: Record<string, string> = {};
    if (this.authorization) headers['authorization'] = this.authorization;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    try {
      const res = await (this.options.fetch ?? fetch)(`${this.base}${path}`, { method, headers, body: payload, signal: controller.signal });
      if (res.status >= 500 || res.status === 401 || res.status === 403) {
        await res.body?.cancel();
        throw this.unavailable(`${method} ${path.split('?')[0]} answered ${res.status}`);
      }
      return res;
    } catch (error) {
      if (error instanceof ComfyUnavailable) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw this.unavailable(`${method} ${path.split('?')[0]}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
