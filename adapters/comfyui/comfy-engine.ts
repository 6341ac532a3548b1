/**
 * WorkflowEngine over one or more real ComfyUI servers (ADR 018). Each attempt submits its prompt with
 * `prompt_id` = `client_id` = its run id, after uploading its inputs under run-scoped names. An attempt that
 * supersedes an earlier one first looks for the earlier prompt on every server and adopts it (follows it if
 * queued or running, reads its outputs if it succeeded), so a redelivered job never runs twice on the GPUs.
 * Files stay on the servers: ComfyUI's cache answers an identical re-run with the earlier files.
 */
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import type { DispatchPolicyName } from '../../core/domain/dispatch-policy.ts';
import type { EngineError, EngineHealth, EngineServerState, EngineRunRequest, EngineRunResult, EngineSlot, SlotRequest, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { ComfyClient, ComfyUnavailable, type ComfyHistoryEntry, type ComfyNodeError } from './comfy-client.ts';
import type { WebSocket } from 'ws';
import { ComfyOutputMissing } from './comfy-outputs.ts';
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
  /** Longest pause between probes of a failed server (COMFYUI_PROBE_MS): how soon jobs resume once it is back. */
  maxBackoffMs?: number;
  /** How long a running prompt's server may stay unreachable before the job is retried elsewhere (COMFYUI_FAILOVER_MS). */
  failoverMs?: number;
  /** How often every server's /object_info is read again (COMFYUI_CATALOG_REFRESH_MS); 0 turns the timer off. */
  catalogueRefreshMs?: number;
  /** Which waiting job a free slot goes to (COMFYUI_DISPATCH, ADR 044); default fair. */
  dispatch?: DispatchPolicyName;
  /** How long a job may be passed over for one whose models a server has loaded (COMFYUI_AFFINITY_WAIT_MS). */
  affinityWaitMs?: number;
  /** Passed to every server's client (ComfyClientOptions.fetch). */
  fetch?: typeof fetch;
}

/** Where a run's files live on a server (ADR 034): its inputs under input/mgs/<run id>/, its outputs under output/mgs/<run id>/. */
export const runFolder = (runId: string): string => `mgs/${runId.replace(/[^A-Za-z0-9._-]/g, '_')}`;

/** An input's file name inside its run's folder. */
export const uploadName = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, '_');

/**
 * Every node that saves under a `filename_prefix` saves into the prompt's own folder. The prefix is an input, so
 * the prompt differs from any earlier one at its save nodes: ComfyUI's cache may still answer the nodes upstream,
 * but the save nodes run and write new files, never listing an earlier run's (possibly deleted) files again.
 */
export const scopeOutputs = (workflow: WorkflowGraph, promptId: string): WorkflowGraph => {
  const scoped = structuredClone(workflow);
  for (const node of Object.values(scoped)) {
    const prefix = node.inputs?.['filename_prefix'];
    if (typeof prefix === 'string') node.inputs['filename_prefix'] = `${runFolder(promptId)}/${prefix.replace(/^\/+/, '')}`;
  }
  return scoped;
};

const firstNode = (nodeErrors: Record<string, ComfyNodeError>): { nodeId?: string } => {
  const [nodeId] = Object.keys(nodeErrors);
  return nodeId === undefined ? {} : { nodeId };
};

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

const validationFailure = (error: { message?: string; details?: string }, nodeErrors: Record<string, ComfyNodeError>): EngineRunResult => ({
  ok: false,
  error: { code: 'ENGINE.VALIDATION', message: validationMessage(error, nodeErrors), ...firstNode(nodeErrors), nodeErrors: portNodeErrors(nodeErrors) },
  transient: false,
});

const interruptedBeforeStart = (): EngineRunResult => ({ ok: false, error: { code: 'ENGINE.INTERRUPTED', message: 'Cancelled before it started' }, transient: false });

export class ComfyEngine implements WorkflowEngine, NodeCatalog {
  readonly pool: ComfyPool;
  /** The servers in COMFYUI_URLS order: a result names the one that ran it by its place here (1-based). */
  private readonly clients: ComfyClient[];
  private readonly watches = new Set<PromptWatch>();
  private readonly changeListeners = new Set<() => void>();
  private readonly refreshTimer: NodeJS.Timeout | null;
  /** Slots `reserve` gave out that no run has taken yet. */
  private readonly reserved = new WeakSet<EngineSlot>();

  constructor(private readonly options: ComfyEngineOptions) {
    // Servers are named by position in errors ("server 2"): an error text reaches users, an address must not.
    const clients = (this.clients = options.urls.map(
      (url, index) =>
        new ComfyClient(url, { timeoutMs: options.timeoutMs, label: `server ${index + 1}`, ...(options.token ? { token: options.token } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) }),
    ));
    this.pool = new ComfyPool(clients, {
      jobsPerServer: options.jobsPerServer,
      unavailableWaitMs: options.unavailableWaitMs,
      ...(options.baseBackoffMs === undefined ? {} : { baseBackoffMs: options.baseBackoffMs }),
      ...(options.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.maxBackoffMs }),
      ...(options.dispatch === undefined ? {} : { policy: options.dispatch }),
      ...(options.affinityWaitMs === undefined ? {} : { maxSkipMs: options.affinityWaitMs }),
      onCatalogueChange: () => {
        for (const listener of this.changeListeners) listener();
      },
    });
    const every = options.catalogueRefreshMs ?? 60_000;
    this.refreshTimer = every > 0 ? setInterval(() => void this.pool.refreshCatalogues(), every) : null;
    this.refreshTimer?.unref();
  }

  /** A slot for the job, taken by the pool's dispatch policy among the jobs waiting (ADR 044); its run uses it. */
  async reserve(request: SlotRequest): Promise<EngineSlot | null> {
    const lease = await this.pool.acquire(request.signal, request.workflow, request.userId);
    if (!lease || 'incapable' in lease) return null;
    this.reserved.add(lease);
    return lease;
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    const reserved = request.slot && this.reserved.has(request.slot) ? (request.slot as ComfyLease) : null;
    if (reserved) this.reserved.delete(reserved);
    try {
      if (request.supersedes) {
        const adopted = await this.adopt(request, request.supersedes);
        if (adopted) return adopted;
      }
      const lease = reserved ?? (await this.pool.acquire(request.signal, request.workflow, request.userId));
      if (!lease) return request.signal?.aborted ? interruptedBeforeStart() : unavailable('no ComfyUI server is healthy');
      if ('incapable' in lease) return { ok: false, error: { code: 'ENGINE.VALIDATION', message: lease.incapable }, transient: false };
      try {
        const result = await this.submit(lease, request);
        if (!result.ok && result.error.code === 'ENGINE.UNAVAILABLE') lease.fail(new Error(result.error.message));
        return result;
      } finally {
        lease.release();
      }
    } finally {
      reserved?.release();
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
          request.onEvent({ type: 'server', server: this.serverOf(client) });
          const watch = this.watch(client, foundId, request, await client.openSocket(foundId).catch(() => null));
          try {
            return await watch.run();
          } finally {
            this.unwatch(watch);
          }
        }
        const entry = await client.history(promptId);
        // A failed or interrupted earlier run is run again; only success is adopted.
        if (entry && entry.status?.status_str !== 'error') return await this.adopted(client, request, entry);
        // An earlier attempt of the same job that finished while the attempt it superseded only adopted it.
        if (request.jobId !== undefined) {
          const recent = Object.values(await client.recentHistory(RECENT_HISTORY));
          const done = recent.reverse().find((item) => jobOf(item.prompt ?? []) === request.jobId && item.status?.status_str !== 'error');
          if (done) return await this.adopted(client, request, done);
        }
      } catch (error) {
        // The earlier run's files are gone from the server: this attempt runs the job anew.
        if (error instanceof ComfyOutputMissing) return null;
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
      const workflow = scopeOutputs(await this.uploadInputs(client, request), promptId);
      if (request.signal?.aborted) return interruptedBeforeStart();
      request.onEvent({ type: 'server', server: this.serverOf(lease.client) });
      const outcome = await client.submit(workflow, promptId, promptId, { mgs_run: promptId, ...(request.jobId ? { mgs_job: request.jobId } : {}) });
      if (outcome.kind === 'rejected') return validationFailure(outcome.error, outcome.nodeErrors);
      if (Object.keys(outcome.nodeErrors).length > 0) {
        // ComfyUI accepted the prompt but dropped its invalid output branches: the job would succeed with fewer outputs,
        // charged in full. Take it back before it runs (removed if pending, interrupted if it started) and refuse it.
        await client.deletePending(promptId);
        await client.interrupt(promptId);
        return validationFailure({ message: 'Prompt outputs failed validation' }, outcome.nodeErrors);
      }
      return await watch.run();
    } catch (error) {
      if (error instanceof ComfyUnavailable || error instanceof ComfyOutputMissing) return unavailable(error.message);
      throw error;
    } finally {
      this.unwatch(watch);
    }
  }

  /** The outputs of an earlier attempt's finished prompt, read from the server that ran it (and named to the job). */
  private adopted(client: ComfyClient, request: EngineRunRequest, entry: ComfyHistoryEntry): Promise<EngineRunResult> {
    request.onEvent({ type: 'server', server: this.serverOf(client) });
    return resultOf(client, entry);
  }

  /** A server's place in COMFYUI_URLS (1-based): how events name it. */
  private serverOf(client: ComfyClient): number {
    return this.clients.indexOf(client) + 1;
  }

  /** A watch over one prompt, registered so that close() ends it. */
  private watch(client: ComfyClient, promptId: string, request: EngineRunRequest, socket: WebSocket | null): PromptWatch {
    const { workflow, onEvent, signal } = request;
    const watch = new PromptWatch(
      { client, promptId, clientId: promptId, workflow, socket, onEvent, ...(signal ? { signal } : {}) },
      { pollMs: this.options.pollMs ?? 500, timeoutMs: this.options.timeoutMs, failoverMs: this.options.failoverMs ?? 3_000 },
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
    for (const input of request.inputs) renamed.set(input.name, await client.upload(uploadName(input.name), input.data, input.mimeType, runFolder(request.runId)));
    const workflow = structuredClone(request.workflow);
    for (const node of Object.values(workflow)) {
      for (const [key, value] of Object.entries(node.inputs ?? {})) {
        if (typeof value === 'string' && renamed.has(value)) node.inputs[key] = renamed.get(value)!;
      }
    }
    return workflow;
  }

  /** Each server's /object_info as last read (servers never reached are asked now); null when none has answered. */
  async catalogues(): Promise<ServerCatalogue[] | null> {
    const fleet = await this.pool.catalogues();
    return fleet.some((s) => s.objectInfo !== null) ? fleet : null;
  }

  /** Calls `listener` whenever a server's catalogue changes (read on its return and on the refresh timer). */
  onCatalogueChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  async check(): Promise<EngineHealth> {
    return { servers: await this.pool.check() };
  }

  servers(): Promise<EngineServerState[]> {
    return this.pool.states();
  }

  async close(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
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
