/**
 * WorkflowEngine over one or more real ComfyUI servers (ADR 018). Each attempt submits its prompt with
 * `prompt_id` = `client_id` = its run id, after uploading its inputs under run-scoped names. An attempt that
 * supersedes an earlier one first looks for the earlier prompt on every server and adopts it (follows it if
 * queued or running, reads its outputs if it succeeded), so a redelivered job never runs twice on the GPUs.
 * Files stay on the servers: ComfyUI's cache answers an identical re-run with the earlier files.
 */
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { NodeCatalog } from '../../core/ports/node-catalog.port.ts';
import type { EngineError, EngineHealth, EngineRunRequest, EngineRunResult, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { ComfyClient, ComfyUnavailable, type ComfyNodeError } from './comfy-client.ts';
import type { WebSocket } from 'ws';
import { ComfyPool, type ComfyLease } from './comfy-pool.ts';
import { PromptWatch, resultOf, unavailable } from './prompt-watch.ts';

export interface ComfyEngineOptions {
  urls: string[];
  token?: string;
  timeoutMs: number;
  jobsPerServer: number;
  /** How long a job waits while no server is healthy before failing as transient (ms). */
  unavailableWaitMs: number;
  /** Poll cadence of `/history` while a socket is down (ms). */
  pollMs?: number;
  /** First re-probe pause of a failed server (ms); doubles per failure. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Passed to every server's client (ComfyClientOptions.fetch). */
  fetch?: typeof fetch;
}

const CATALOG_TTL_MS = 60_000;

/** Names uploaded for one run cannot collide with another run's, whoever's they are. */
export const uploadName = (runId: string, name: string): string => `mgs-${runId}-${name}`.replace(/[^A-Za-z0-9._-]/g, '_');

const validationMessage = (error: { message?: string; details?: string }, nodeErrors: Record<string, ComfyNodeError>): string => {
  const parts = Object.entries(nodeErrors).map(
    ([id, e]) => `${e.class_type ?? 'node'} #${id}: ${(e.errors ?? []).map((x) => (x.details ? `${x.message}: ${x.details}` : x.message)).join('; ')}`,
  );
  const head = error.message ?? 'Prompt rejected';
  if (parts.length > 0) return `${head}. ${parts.join(' | ')}`;
  return error.details ? `${head}: ${error.details}` : head;
};

const portNodeErrors = (nodeErrors: Record<string, ComfyNodeError>): EngineError['nodeErrors'] =>
  Object.fromEntries(
    Object.entries(nodeErrors).map(([id, e]) => [
      id,
      { classType: e.class_type ?? '', errors: (e.errors ?? []).map((x) => ({ type: x.type ?? '', message: x.message ?? '', details: x.details ?? '' })) },
    ]),
  );

const interruptedBeforeStart = (): EngineRunResult => ({ ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'Cancelled before it started' }, transient: false });

export class ComfyEngine implements WorkflowEngine, NodeCatalog {
  readonly pool: ComfyPool;
  private catalog: { at: number; types: ReadonlySet<string> } | null = null;
  private readonly watches = new Set<PromptWatch>();

  constructor(private readonly options: ComfyEngineOptions) {
    const clients = options.urls.map((url) => new ComfyClient(url, { timeoutMs: options.timeoutMs, ...(options.token ? { token: options.token } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) }));
    this.pool = new ComfyPool(clients, {
      jobsPerServer: options.jobsPerServer,
      unavailableWaitMs: options.unavailableWaitMs,
      ...(options.baseBackoffMs === undefined ? {} : { baseBackoffMs: options.baseBackoffMs }),
      ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
    });
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    if (request.supersedes) {
      const adopted = await this.adopt(request, request.supersedes);
      if (adopted) return adopted;
    }
    const lease = await this.pool.acquire(request.signal);
    if (!lease) return request.signal?.aborted ? interruptedBeforeStart() : unavailable('no ComfyUI server is healthy');
    try {
      const result = await this.submit(lease, request);
      if (!result.ok && result.error.code === 'ENGINE.UNAVAILABLE') lease.fail(new Error(result.error.message));
      return result;
    } finally {
      lease.release();
    }
  }

  /** The earlier attempt's prompt, wherever it is: followed if still queued or running, read if it succeeded; else null. */
  private async adopt(request: EngineRunRequest, promptId: string): Promise<EngineRunResult | null> {
    for (const client of this.pool.reachableClients()) {
      try {
        const { running, pending } = await client.queue();
        // The superseded attempt's prompt, or any earlier attempt's prompt of the same job still queued or running
        // (the superseded attempt may only have adopted one itself).
        const found = [...running, ...pending].find((item) => item[1] === promptId || (request.jobId !== undefined && jobOf(item) === request.jobId));
        if (found) {
          const foundId = String(found[1]);
          request.onEvent({ type: 'status', text: 'Resuming the earlier attempt' });
          const watch = this.watch(client, foundId, request, await client.openSocket(foundId).catch(() => null));
          try {
            return await watch.run();
          } finally {
            this.unwatch(watch);
          }
        }
        const entry = await client.history(promptId);
        // A failed or interrupted earlier run is run again; only success is adopted.
        if (entry && entry.status?.status_str !== 'error') return resultOf(client, entry);
        // An earlier attempt of the same job that finished while the attempt it superseded only adopted it.
        if (request.jobId !== undefined) {
          const recent = Object.values(await client.recentHistory(RECENT_HISTORY));
          const done = recent.reverse().find((item) => jobOf(item.prompt ?? []) === request.jobId && item.status?.status_str !== 'error');
          if (done) return resultOf(client, done);
        }
      } catch (error) {
        if (!(error instanceof ComfyUnavailable)) throw error;
        this.pool.markFailed(client, error);
      }
    }
    return null;
  }

  private async submit(lease: ComfyLease, request: EngineRunRequest): Promise<EngineRunResult> {
    const { client } = lease;
    const promptId = request.runId;
    let watch: PromptWatch;
    try {
      // The socket listens before the prompt exists: ComfyUI never replays an event.
      watch = this.watch(client, promptId, request, await client.openSocket(promptId));
    } catch (error) {
      if (error instanceof ComfyUnavailable) return unavailable(error.message);
      throw error;
    }
    try {
      const workflow = await this.uploadInputs(client, request);
      if (request.signal?.aborted) return interruptedBeforeStart();
      const outcome = await client.submit(workflow, promptId, promptId, { mgs_run: promptId, ...(request.jobId ? { mgs_job: request.jobId } : {}) });
      if (outcome.kind === 'rejected') {
        return {
          ok: false,
          error: { code: 'ENGINE.VALIDATION', message: validationMessage(outcome.error, outcome.nodeErrors), nodeErrors: portNodeErrors(outcome.nodeErrors) },
          transient: false,
        };
      }
      const dropped = Object.keys(outcome.nodeErrors);
      if (dropped.length > 0) request.onEvent({ type: 'status', text: `Skipping invalid nodes ${dropped.join(', ')}: their outputs are not produced` });
      return await watch.run();
    } catch (error) {
      if (error instanceof ComfyUnavailable) return unavailable(error.message);
      throw error;
    } finally {
      this.unwatch(watch);
    }
  }

  /** A watch over one prompt, registered so that close() ends it. */
  private watch(client: ComfyClient, promptId: string, request: EngineRunRequest, socket: WebSocket | null): PromptWatch {
    const { workflow, onEvent, signal } = request;
    const watch = new PromptWatch(
      { client, promptId, clientId: promptId, workflow, socket, onEvent, ...(signal ? { signal } : {}) },
      { pollMs: this.options.pollMs ?? 500, timeoutMs: this.options.timeoutMs },
    );
    this.watches.add(watch);
    return watch;
  }

  private unwatch(watch: PromptWatch): void {
    watch.close();
    this.watches.delete(watch);
  }

  /** Uploads the run's input images under run-scoped names and rewrites the inputs that named them. */
  private async uploadInputs(client: ComfyClient, request: EngineRunRequest): Promise<WorkflowGraph> {
    if (request.inputs.length === 0) return request.workflow;
    const renamed = new Map<string, string>();
    for (const input of request.inputs) renamed.set(input.name, await client.upload(uploadName(request.runId, input.name), input.data, input.mimeType));
    const workflow = structuredClone(request.workflow);
    for (const node of Object.values(workflow)) {
      for (const [key, value] of Object.entries(node.inputs ?? {})) {
        if (typeof value === 'string' && renamed.has(value)) node.inputs[key] = renamed.get(value)!;
      }
    }
    return workflow;
  }

  /** The union of `/object_info` over the servers that answer (cached for a minute); null when none does. */
  async knownNodeTypes(): Promise<ReadonlySet<string> | null> {
    if (this.catalog && Date.now() - this.catalog.at < CATALOG_TTL_MS) return this.catalog.types;
    const types = new Set<string>();
    let answered = false;
    await Promise.all(
      this.pool.clients.map(async (client) => {
        try {
          for (const name of Object.keys(await client.objectInfo())) types.add(name);
          answered = true;
        } catch (error) {
          if (!(error instanceof ComfyUnavailable)) throw error;
        }
      }),
    );
    if (!answered) return null;
    this.catalog = { at: Date.now(), types };
    return types;
  }

  async check(): Promise<EngineHealth> {
    return { servers: await this.pool.check() };
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.close();
    this.pool.close();
  }
}

/** How far back a redelivered attempt looks in a server's history for its job's finished prompt. */
const RECENT_HISTORY = 200;

/** The job a queued prompt belongs to, from the `extra_data` this adapter submitted it with. */
function jobOf(item: readonly unknown[]): string | undefined {
  const extra = item[3];
  return typeof extra === 'object' && extra !== null && typeof (extra as { mgs_job?: unknown }).mgs_job === 'string' ? (extra as { mgs_job: string }).mgs_job : undefined;
}
