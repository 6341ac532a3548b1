/**
 * Follows one submitted prompt on one server until it ends: events from the socket (routed to our clientId),
 * the end confirmed by `/history` (the one source of truth: it names the outputs and how the run ended).
 * When the socket drops it reconnects and meanwhile polls; with a healthy socket it still polls now and then,
 * since ComfyUI does not replay events sent while a socket was away. A prompt found neither in `/queue` nor
 * in `/history` is gone (the server restarted): a transient failure. A cancel removes a pending prompt or
 * interrupts this prompt by id.
 */
import type { RawData, WebSocket } from 'ws';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineEvent, EngineRunResult } from '../../core/ports/workflow-engine.port.ts';
import { ComfyUnavailable, type ComfyClient, type ComfyHistoryEntry } from './comfy-client.ts';
import { checkOutputsExist, failureOf, readOutputs } from './comfy-outputs.ts';

export interface WatchOptions {
  /** Poll cadence while the socket is down (ms); with a live socket, every 10 of these. */
  pollMs: number;
  /** How long a cancel may take before the attempt gives up (ms). */
  timeoutMs: number;
  /** How long the server may stay unreachable before the attempt gives up and the job goes elsewhere (COMFYUI_FAILOVER_MS; default timeoutMs). */
  failoverMs?: number;
}

export interface WatchRequest {
  client: ComfyClient;
  promptId: string;
  clientId: string;
  workflow: WorkflowGraph;
  socket: WebSocket | null;
  onEvent(event: EngineEvent): void;
  signal?: AbortSignal;
}

export const unavailable = (message: string): EngineRunResult => ({ ok: false, error: { code: 'ENGINE.UNAVAILABLE', message }, transient: true });
const interrupted = (message: string): EngineRunResult => ({ ok: false, error: { code: 'ENGINE.INTERRUPTED', message }, transient: false });

/**
 * The result of a finished prompt from its history entry. Its files are checked on the server first: one that
 * is gone throws ComfyOutputMissing (an output served from ComfyUI's cache after its file was removed, say).
 */
export const resultOf = async (client: ComfyClient, entry: ComfyHistoryEntry): Promise<EngineRunResult> => {
  const failure = failureOf(entry);
  if (failure) return { ok: false, error: failure, transient: false };
  await checkOutputsExist(client, entry);
  return { ok: true, ...readOutputs(client, entry) };
};

/** An interrupt nobody on our side asked for (Interrupt pressed in the server's own page): the run was cancelled there. */
const cancelledOnServer = (result: EngineRunResult, label: string): EngineRunResult =>
  !result.ok && result.error.code === 'ENGINE.INTERRUPTED'
    ? { ok: false, error: { ...result.error, code: 'ENGINE.CANCELLED', message: `Cancelled on ComfyUI ${label} (interrupted there)` }, transient: false }
    : result;

export class PromptWatch {
  private socket: WebSocket | null;
  private wake: (() => void) | null = null;
  /** A poke that came while nobody was pausing: the next pause returns at once. */
  private poked = false;
  private ended = false;
  private socketDown = false;
  /** Nodes answered from ComfyUI's cache (execution_cached): done from the start. */
  private readonly cached = new Set<string>();
  /** Once the server sends progress_state (ComfyUI 2025+), the bar is the whole prompt's, in percent. */
  private snapshots = false;
  private lastPercent = -1;

  constructor(private readonly request: WatchRequest, private readonly options: WatchOptions) {
    this.socket = request.socket;
    if (this.socket) this.attach(this.socket);
    else this.socketDown = true;
  }

  async run(): Promise<EngineRunResult> {
    const { client, promptId, signal } = this.request;
    let unreachableSince: number | null = null;
    let cancelledAt: number | null = null;
    let first = true;
    const onAbort = (): void => this.poke();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (this.ended) return unavailable('the engine is closing');
        try {
          if (signal?.aborted && cancelledAt === null) {
            cancelledAt = Date.now();
            if (await this.cancel()) return interrupted('Cancelled before it started');
          }
          if (this.socketDown) await this.reconnect().catch(() => undefined);
          // With a live socket the first look waits for the end event (or the slow poll): the prompt was just queued.
          const outcome = first && !this.socketDown && cancelledAt === null ? null : await this.look();
          first = false;
          if (outcome) return cancelledAt === null ? cancelledOnServer(outcome, client.label) : outcome;
          unreachableSince = null;
        } catch (error) {
          if (!(error instanceof ComfyUnavailable)) throw error;
          unreachableSince ??= Date.now();
          if (Date.now() - unreachableSince >= (this.options.failoverMs ?? this.options.timeoutMs)) return unavailable(`${error.message} (prompt ${promptId})`);
        }
        if (cancelledAt !== null && Date.now() - cancelledAt >= this.options.timeoutMs) return interrupted('Cancelled; the server did not confirm the interrupt in time');
        await this.pause(this.socketDown || unreachableSince !== null ? this.options.pollMs : this.options.pollMs * 10);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.close();
    }
  }

  close(): void {
    this.ended = true;
    this.poke();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.removeAllListeners('message');
      socket.removeAllListeners('close');
      socket.close();
    }
  }

  /** Queue first, then history: ComfyUI moves a prompt from one to the other under one lock, so "in neither" means gone. */
  private async look(): Promise<EngineRunResult | null> {
    const { client, promptId } = this.request;
    const { running, pending } = await client.queue();
    const queued = running.some((item) => item[1] === promptId) || pending.some((item) => item[1] === promptId);
    const entry = await client.history(promptId);
    if (entry) return resultOf(client, entry);
    if (queued) return null;
    return unavailable(`ComfyUI ${client.label} no longer knows prompt ${promptId} (restarted?)`);
  }

  /** True when the prompt was still pending and is now removed (it will never run). */
  private async cancel(): Promise<boolean> {
    const { client, promptId } = this.request;
    const { pending } = await client.queue();
    if (pending.some((item) => item[1] === promptId)) {
      await client.deletePending(promptId);
      const after = await client.queue();
      if (![...after.running, ...after.pending].some((item) => item[1] === promptId) && !(await client.history(promptId))) return true;
    }
    await client.interrupt(promptId);
    return false;
  }

  private async reconnect(): Promise<void> {
    const socket = await this.request.client.openSocket(this.request.clientId);
    if (this.ended) {
      socket.close();
      return;
    }
    this.socket = socket;
    this.socketDown = false;
    this.attach(socket);
  }

  private attach(socket: WebSocket): void {
    socket.on('message', (raw: RawData, isBinary: boolean) => {
      if (!isBinary) this.onMessage(raw);
    });
    // A socket is let go only after this listener ran, or by close(), which takes it off first: a close is always the current socket's.
    socket.once('close', () => {
      this.socket = null;
      this.socketDown = true;
      this.poke();
    });
  }

  private onMessage(raw: RawData): void {
    let message: { type?: string; data?: Record<string, unknown> };
    try {
      message = JSON.parse(raw.toString()) as typeof message;
    } catch {
      return;
    }
    // Valid JSON that is no object (`null`, a number) is no frame of ComfyUI's: reading it would throw in the socket's handler.
    if (message === null || typeof message !== 'object') return;
    const data = message.data ?? {};
    const promptId = data['prompt_id'];
    // `executing` sent on reconnect carries no prompt_id; everything else names its prompt.
    if (promptId !== undefined && promptId !== this.request.promptId) return;
    const { onEvent, workflow } = this.request;
    switch (message.type) {
      case 'execution_start':
        onEvent({ type: 'status', text: 'Running' });
        break;
      case 'execution_cached': {
        for (const node of Array.isArray(data['nodes']) ? data['nodes'] : []) this.cached.add(String(node));
        if (this.cached.size > 0) onEvent({ type: 'status', text: `Running (${this.cached.size} cached node${this.cached.size === 1 ? '' : 's'})` });
        break;
      }
      case 'executing':
        if (data['node'] === null || data['node'] === undefined) {
          this.poke();
        } else {
          const nodeId = String(data['node']);
          onEvent({ type: 'executing', nodeId, classType: workflow[nodeId]?.class_type ?? '' });
        }
        break;
      case 'progress':
        // Older servers (no progress_state) report only the current node's steps.
        if (!this.snapshots && typeof data['value'] === 'number' && typeof data['max'] === 'number') {
          onEvent({ type: 'progress', value: data['value'], max: data['max'], ...(data['node'] ? { nodeId: String(data['node']) } : {}) });
        }
        break;
      case 'progress_state':
        this.snapshots = true;
        this.overallProgress((data['nodes'] ?? {}) as Record<string, { state?: string; value?: number; max?: number }>);
        break;
      // execution_success/error/interrupted come before the history entry is written; `executing` with
      // node null comes after it, and is what wakes the watch.
      default:
        break;
    }
  }

  /**
   * The prompt's progress in percent from a progress_state snapshot: cached and finished nodes count whole,
   * a running node by its value/max. Real ComfyUI's model-free nodes send no `progress`; this still moves.
   */
  private overallProgress(nodes: Record<string, { state?: string; value?: number; max?: number }>): void {
    const total = Object.keys(this.request.workflow).length;
    let done = this.cached.size;
    let running: string | undefined;
    for (const [id, node] of Object.entries(nodes)) {
      if (this.cached.has(id)) continue;
      if (node.state === 'finished') done += 1;
      else if (node.state === 'running' && typeof node.value === 'number' && typeof node.max === 'number' && node.max > 0) {
        done += Math.min(1, node.value / node.max);
        running = id;
      }
    }
    const percent = Math.min(100, Math.floor((done / total) * 100));
    if (percent <= this.lastPercent) return;
    this.lastPercent = percent;
    this.request.onEvent({ type: 'progress', value: percent, max: 100, ...(running ? { nodeId: running } : {}) });
  }

  private poke(): void {
    if (this.wake) this.wake();
    else this.poked = true;
  }

  private pause(ms: number): Promise<void> {
    if (this.poked) {
      this.poked = false;
      return Promise.resolve();
    }
    if (this.request.signal?.aborted) ms = Math.min(ms, this.options.pollMs);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
