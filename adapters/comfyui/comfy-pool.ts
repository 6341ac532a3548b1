/**
 * The ComfyUI servers one worker process uses (ADR 018). A job takes a slot on a healthy server with a free
 * slot (COMFYUI_JOBS_PER_SERVER per server from this process); among those, the one whose own queue
 * (`/queue`: running + pending, which counts every worker's prompts) is shortest, so several worker processes
 * spread over the servers without a shared lease. A server that fails is taken out and probed again
 * (`/system_stats`) after an exponentially growing pause. When no server is healthy a job waits up to a bound,
 * then gets null: the caller fails the attempt as transient and the queue retries it later.
 *
 * Each server's catalogue (its /object_info: node classes, and the model files and other choices of its combo
 * lists) is read when it first answers, again whenever it comes back after failing, and on `refreshCatalogues`
 * (the engine's timer). A job is only sent to a server whose catalogue has every node class and combo value the
 * job uses (ADR 033); when no server has them, it is refused at once, naming what is missing.
 *
 * Jobs waiting for a slot wait here, and a slot that frees goes to the job the dispatch policy picks among those
 * the server can run (ADR 044): `fair` serves users in turn and prefers a job whose model files the server ran
 * last, within a bound on how long a job may be passed over; `shortest-queue` serves them in arrival order.
 */
import { createHash } from 'node:crypto';
import { chooseJob, type DispatchPolicyName, type WaitingJob } from '../../core/domain/dispatch-policy.ts';
import { jobModelFiles, jobRequirements, unmetRequirements, type JobRequirements, type ObjectInfo } from '../../core/domain/object-info.ts';
import type { ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import type { ComfyClient, ComfyDevice } from './comfy-client.ts';
import type { EngineServerState } from '../../core/ports/workflow-engine.port.ts';

export interface ComfyPoolOptions {
  jobsPerServer: number;
  /** How long a job waits while no server is healthy before it gives up (ms). */
  unavailableWaitMs: number;
  /** First pause before re-probing a failed server; doubles per failure up to maxBackoffMs (COMFYUI_PROBE_MS). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told when a server's catalogue differs from the one read before (a restart with other models or nodes). */
  onCatalogueChange?: (server: number) => void;
  /** How often a waiting job looks again (ms). */
  pollMs?: number;
  /** Which waiting job a free slot goes to (COMFYUI_DISPATCH); default fair. */
  policy?: DispatchPolicyName;
  /** How long a job may be passed over for one whose models a server has loaded (COMFYUI_AFFINITY_WAIT_MS); default 15 s. */
  maxSkipMs?: number;
  now?: () => number;
}

interface ServerState {
  client: ComfyClient;
  healthy: boolean | null;
  inFlight: number;
  failures: number;
  nextProbeAt: number;
  lastError: string | null;
  devices: ComfyDevice[];
  version: string | null;
  catalogue: ObjectInfo | null;
  catalogueKey: string | null;
  /** The model files of the last job it was given that loads any: what it likely holds in memory. */
  loaded: string[];
}

/** A job waiting in `acquire` for a slot; `lease` is set when the dispatch gives it one. */
interface Waiter extends WaitingJob {
  needs: JobRequirements | null;
  lease: ComfyLease | null;
}

/** What a job cannot get from any server: it would fail on every one, so it is failed rather than retried. */
export interface Incapable {
  incapable: string;
}

/** One server as the health check shows it: by its position in COMFYUI_URLS (its address stays out of public output). */
export interface ServerHealth {
  server: number;
  healthy: boolean;
  inFlight: number;
  version?: string;
  error?: string;
  devices?: { name: string; vramTotalMiB: number; vramFreeMiB: number }[];
}

/** A slot on one server; `release` gives it back (idempotent). */
export interface ComfyLease {
  client: ComfyClient;
  release(): void;
  /** The server failed while this lease used it: take it out of rotation. */
  fail(error: unknown): void;
}

const MiB = 1024 * 1024;
const MAX_REMEMBERED_USERS = 10_000;
const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

export class ComfyPool {
  private readonly servers: ServerState[];
  private readonly waiters = new Set<() => void>();
  private readonly waiting = new Set<Waiter>();
  /** Users by when they were last given a slot (insertion order = least recently served first), for the round robin. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private arrivals = 0;
  private dispatching: Promise<void> | null = null;
  private dispatchAgain = false;
  private readonly now: () => number;
  private closed = false;

  constructor(clients: ComfyClient[], private readonly options: ComfyPoolOptions) {
    if (clients.length === 0) throw new Error('a ComfyUI pool needs at least one server');
    this.servers = clients.map((client) => ({ client, healthy: null, inFlight: 0, failures: 0, nextProbeAt: 0, lastError: null, devices: [], version: null, catalogue: null, catalogueKey: null, loaded: [] }));
    this.now = options.now ?? Date.now;
  }

  get clients(): ComfyClient[] {
    return this.servers.map((s) => s.client);
  }

  /** Clients believed healthy (or not yet probed), for look-ups that must ask every usable server. */
  reachableClients(): ComfyClient[] {
    return this.servers.filter((s) => s.healthy !== false).map((s) => s.client);
  }

  /**
   * A slot on a free healthy server that can run `workflow` (has its node classes and combo values), for a job of
   * `userId`. Waits while every such server is busy; a slot that frees goes to the waiting job the policy picks.
   * While no such server is healthy, waits at most `unavailableWaitMs`, then null. Null too when aborted.
   * `Incapable` when every server's catalogue is known and none has what the job needs.
   */
  async acquire(signal?: AbortSignal, workflow?: unknown, userId = ''): Promise<ComfyLease | Incapable | null> {
    const needs = workflow === undefined ? null : jobRequirements(workflow);
    const order = this.arrivals++;
    const waiter: Waiter = { id: String(order), userId, models: needs ? jobModelFiles(needs) : [], order, skippedSince: null, needs, lease: null };
    this.waiting.add(waiter);
    let handed = false;
    try {
      let unhealthySince: number | null = null;
      for (;;) {
        if (signal?.aborted || this.closed) return null;
        if (waiter.lease) {
          handed = true;
          return waiter.lease;
        }
        await this.probeDue();
        const able = this.servers.filter((s) => this.canRun(s, needs));
        if (needs && able.length === 0 && this.servers.every((s) => s.catalogue !== null)) return { incapable: this.describeUnmet(needs) };
        if (able.some((s) => s.healthy === true)) {
          unhealthySince = null;
          await this.dispatch();
          if (waiter.lease) continue;
        } else {
          unhealthySince ??= this.now();
          if (this.now() - unhealthySince >= this.options.unavailableWaitMs) return null;
        }
        await this.sleep(signal);
      }
    } finally {
      this.waiting.delete(waiter);
      // Given a slot just as it gave up (aborted, closed): the slot goes back, to the next waiting job.
      if (!handed) waiter.lease?.release();
    }
  }

  private canRun(state: ServerState, needs: JobRequirements | null): boolean {
    return needs === null || (state.catalogue !== null && unmetRequirements(state.catalogue, needs).length === 0);
  }

  /** Hands free slots to waiting jobs; one pass at a time (a call during a pass makes it run once more). */
  private dispatch(): Promise<void> {
    if (this.dispatching) {
      this.dispatchAgain = true;
      return this.dispatching;
    }
    this.dispatching = (async () => {
      do {
        this.dispatchAgain = false;
        await this.assign();
      } while (this.dispatchAgain);
    })().finally(() => {
      this.dispatching = null;
    });
    return this.dispatching;
  }

  /** Free servers, shortest queue first, each given the waiting job the policy picks among those it can run. */
  private async assign(): Promise<void> {
    const free = this.servers.filter((s) => s.healthy === true && s.inFlight < this.options.jobsPerServer);
    const open = [...this.waiting].filter((w) => w.lease === null);
    // Only servers that some waiting job can use are asked for their queue.
    const wanted = free.filter((s) => open.some((w) => this.canRun(s, w.needs)));
    if (wanted.length === 0) return;
    for (const server of await this.byQueueLength(wanted)) {
      while (server.healthy === true && server.inFlight < this.options.jobsPerServer) {
        const candidates = [...this.waiting].filter((w) => w.lease === null && this.canRun(server, w.needs));
        const now = this.now();
        const choice = chooseJob(this.options.policy ?? 'fair', { waiting: candidates, loaded: server.loaded, lastServed: this.lastServed, now, maxSkipMs: this.options.maxSkipMs ?? 15_000 });
        if (!choice) break;
        for (const skipped of candidates.filter((w) => choice.skipped.includes(w.id))) skipped.skippedSince ??= now;
        const chosen = candidates.find((w) => w.id === choice.id)!;
        this.grant(chosen, server);
      }
    }
  }

  private grant(waiter: Waiter, server: ServerState): void {
    waiter.lease = this.lease(server);
    if (waiter.models.length > 0) server.loaded = [...waiter.models];
    this.lastServed.delete(waiter.userId);
    this.lastServed.set(waiter.userId, this.served++);
    // Only the users of recent turns matter to the round robin: the least recently served are forgotten first.
    if (this.lastServed.size > MAX_REMEMBERED_USERS) this.lastServed.delete(this.lastServed.keys().next().value!);
    this.wake();
  }

  /** Each server's catalogue as last read; servers never reached are probed first. */
  async catalogues(): Promise<ServerCatalogue[]> {
    await Promise.all(this.servers.filter((s) => s.catalogue === null && s.healthy !== false).map((s) => this.probe(s)));
    return this.servers.map((s, index) => ({ server: index + 1, objectInfo: s.catalogue }));
  }

  /** Reads every server's catalogue again (a server restarted with other models keeps answering /system_stats). */
  async refreshCatalogues(): Promise<void> {
    await Promise.all(this.servers.map((s) => this.probe(s, true)));
  }

  /** What the job lacks, per server by position (never by address). */
  private describeUnmet(needs: JobRequirements): string {
    const parts = this.servers.map((s, index) => `server ${index + 1} lacks ${unmetRequirements(s.catalogue!, needs).join(', ')}`);
    return `No ComfyUI server can run this workflow: ${parts.join('; ')}`;
  }

  /** Probes every server now; throws unless at least one is healthy. The report carries VRAM figures. */
  async check(): Promise<ServerHealth[]> {
    await Promise.all(this.servers.map((s) => this.probe(s)));
    const report = this.report();
    if (!report.some((s) => s.healthy)) throw new Error(`no ComfyUI server is reachable (${report.length} configured)`);
    return report;
  }

  /** Probes every server now (never throws) and gives each one's state with its VRAM in bytes, for metrics. */
  async states(): Promise<EngineServerState[]> {
    await Promise.all(this.servers.map((s) => this.probe(s)));
    return this.servers.map((s, index) => ({
      server: String(index + 1),
      healthy: s.healthy === true,
      runningJobs: s.inFlight,
      ...(s.devices.length > 0
        ? { vram: { totalBytes: sum(s.devices.map((d) => d.vram_total)), freeBytes: sum(s.devices.map((d) => d.vram_free)) } }
        : {}),
    }));
  }

  report(): ServerHealth[] {
    return this.servers.map((s, index) => ({
      server: index + 1,
      healthy: s.healthy === true,
      inFlight: s.inFlight,
      ...(s.version ? { version: s.version } : {}),
      ...(s.lastError ? { error: s.lastError.replace(s.client.name, `server ${index + 1}`) } : {}),
      ...(s.devices.length > 0
        ? { devices: s.devices.map((d) => ({ name: d.name, vramTotalMiB: Math.round(d.vram_total / MiB), vramFreeMiB: Math.round(d.vram_free / MiB) })) }
        : {}),
    }));
  }

  /** Takes a server out of rotation until its next probe succeeds. */
  markFailed(client: ComfyClient, error: unknown): void {
    const state = this.servers.find((s) => s.client === client);
    if (state) this.down(state, error);
  }

  /** Jobs still waiting for a server give up (the engine is shutting down). */
  close(): void {
    this.closed = true;
    for (const wake of [...this.waiters]) wake();
  }

  private lease(state: ServerState): ComfyLease {
    state.inFlight += 1;
    let released = false;
    return {
      client: state.client,
      release: () => {
        if (released) return;
        released = true;
        state.inFlight -= 1;
        this.wake();
      },
      fail: (error) => this.down(state, error),
    };
  }

  /** Free servers, the fewest prompts in its queue first; a server that cannot answer is taken out. */
  private async byQueueLength(free: ServerState[]): Promise<ServerState[]> {
    if (free.length === 1) return free;
    const lengths = await Promise.all(
      free.map(async (s) => {
        try {
          const { running, pending } = await s.client.queue();
          return running.length + pending.length;
        } catch (error) {
          this.down(s, error);
          return Number.POSITIVE_INFINITY;
        }
      }),
    );
    // Our own running jobs are in its queue already; ties go to the server this process uses least.
    const scored = free.map((s, i) => ({ s, score: lengths[i]! * 1000 + s.inFlight }));
    // A server whose queue could not be read was taken out above (down): the dispatch loop skips it.
    return scored.sort((a, b) => a.score - b.score).map(({ s }) => s);
  }

  private async probeDue(): Promise<void> {
    const due = this.servers.filter((s) => s.healthy === null || (s.healthy === false && s.nextProbeAt <= this.now()));
    await Promise.all(due.map((s) => this.probe(s)));
  }

  private async probe(state: ServerState, rereadCatalogue = false): Promise<void> {
    try {
      const stats = await state.client.systemStats();
      // First contact, a return after failing, or the timer: the server may have restarted with other models or nodes.
      if (rereadCatalogue || state.healthy !== true || state.catalogue === null) await this.readCatalogue(state);
      state.healthy = true;
      state.failures = 0;
      state.lastError = null;
      state.devices = stats.devices ?? [];
      state.version = stats.system?.comfyui_version ?? null;
      this.wake();
    } catch (error) {
      this.down(state, error);
    }
  }

  private async readCatalogue(state: ServerState): Promise<void> {
    const info = (await state.client.objectInfo()) as ObjectInfo;
    const key = createHash('sha256').update(JSON.stringify(info)).digest('hex');
    const changed = state.catalogueKey !== null && state.catalogueKey !== key;
    state.catalogue = info;
    state.catalogueKey = key;
    if (changed) this.options.onCatalogueChange?.(this.servers.indexOf(state) + 1);
  }

  private down(state: ServerState, error: unknown): void {
    const base = this.options.baseBackoffMs ?? 500;
    const max = this.options.maxBackoffMs ?? 2_000;
    state.healthy = false;
    state.failures += 1;
    // It may come back restarted, with nothing loaded.
    state.loaded = [];
    state.lastError = (error as Error)?.message ?? String(error);
    state.nextProbeAt = this.now() + Math.min(max, base * 2 ** (state.failures - 1));
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private sleep(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.options.pollMs ?? 200);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
