/**
 * The ComfyUI servers one worker process uses (ADR 018). A job takes a slot on a healthy server with a free
 * slot (COMFYUI_JOBS_PER_SERVER per server from this process); among those, the one whose own queue
 * (`/queue`: running + pending, which counts every worker's prompts) is shortest, so several worker processes
 * spread over the servers without a shared lease. A server that fails is taken out and probed again
 * (`/system_stats`) after an exponentially growing pause. When no server is healthy a job waits up to a bound,
 * then gets null: the caller fails the attempt as transient and the queue retries it later.
 */
import type { ComfyClient, ComfyDevice } from './comfy-client.ts';
import type { EngineServerState } from '../../core/ports/workflow-engine.port.ts';

export interface ComfyPoolOptions {
  jobsPerServer: number;
  /** How long a job waits while no server is healthy before it gives up (ms). */
  unavailableWaitMs: number;
  /** First pause before re-probing a failed server; doubles per failure up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often a waiting job looks again (ms). */
  pollMs?: number;
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
const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

export class ComfyPool {
  private readonly servers: ServerState[];
  private readonly waiters = new Set<() => void>();
  private readonly now: () => number;
  private closed = false;

  constructor(clients: ComfyClient[], private readonly options: ComfyPoolOptions) {
    if (clients.length === 0) throw new Error('a ComfyUI pool needs at least one server');
    this.servers = clients.map((client) => ({ client, healthy: null, inFlight: 0, failures: 0, nextProbeAt: 0, lastError: null, devices: [], version: null }));
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
   * A slot on the best free healthy server. Waits while every healthy server is busy (slots free up as jobs
   * end); while no server is healthy, waits at most `unavailableWaitMs`, then null. Null too when aborted.
   */
  async acquire(signal?: AbortSignal): Promise<ComfyLease | null> {
    let unhealthySince: number | null = null;
    for (;;) {
      if (signal?.aborted || this.closed) return null;
      await this.probeDue();
      const free = this.servers.filter((s) => s.healthy === true && s.inFlight < this.options.jobsPerServer);
      if (free.length > 0) {
        const chosen = await this.shortestQueue(free);
        if (chosen && chosen.healthy && chosen.inFlight < this.options.jobsPerServer) return this.lease(chosen);
        continue;
      }
      if (this.servers.some((s) => s.healthy === true)) {
        unhealthySince = null;
      } else {
        unhealthySince ??= this.now();
        if (this.now() - unhealthySince >= this.options.unavailableWaitMs) return null;
      }
      await this.sleep(signal);
    }
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

  /** Among free servers, the one with the fewest prompts in its queue; a server that cannot answer is taken out. */
  private async shortestQueue(free: ServerState[]): Promise<ServerState | null> {
    if (free.length === 1) return free[0]!;
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
    let best: ServerState | null = null;
    let bestScore = Number.POSITIVE_INFINITY;
    free.forEach((s, i) => {
      // Our own running jobs are in its queue already; ties go to the server this process uses least.
      const score = lengths[i]! * 1000 + s.inFlight;
      if (score < bestScore) {
        best = s;
        bestScore = score;
      }
    });
    return best;
  }

  private async probeDue(): Promise<void> {
    const due = this.servers.filter((s) => s.healthy === null || (s.healthy === false && s.nextProbeAt <= this.now()));
    await Promise.all(due.map((s) => this.probe(s)));
  }

  private async probe(state: ServerState): Promise<void> {
    try {
      const stats = await state.client.systemStats();
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

  private down(state: ServerState, error: unknown): void {
    const base = this.options.baseBackoffMs ?? 500;
    const max = this.options.maxBackoffMs ?? 30_000;
    state.healthy = false;
    state.failures += 1;
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
