/**
 * WorkflowEngine: the builtin runtime in worker threads, so that a heavy run (a blur over 8192² pixels is
 * seconds of synchronous JavaScript) never holds up the API's event loop. One thread runs one workflow at a
 * time; idle threads are kept for the next run. A run that passes its time budget, or whose thread runs out
 * of its memory budget, is stopped (the thread is terminated) and fails as a non-transient engine error, which
 * the job lifecycle fails and refunds like any other.
 */
import { Worker } from 'node:worker_threads';
import { mkdir } from 'node:fs/promises';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import type { EngineRunRequest, EngineServerState, EngineRunResult, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';
import { BuiltinEngine, openable, type BuiltinEngineOptions } from './builtin-engine.ts';
import type { EngineThreadData, FromThread, ToThread } from './engine-thread.ts';

export interface ThreadedBuiltinEngineOptions extends Omit<BuiltinEngineOptions, 'overBudget'> {
  /** A run is stopped and failed after this long. */
  timeBudgetMs: number;
  /** Heap plus pixel buffers one run's thread may use. */
  memoryMb: number;
  /** Idle threads kept for later runs (default 2). */
  keepIdle?: number;
  /** How long an interrupted run may take to notice before its thread is terminated (default 5 s). */
  interruptGraceMs?: number;
  /** Start one thread at once, so the first run does not wait for it to load. */
  prewarm?: boolean;
  /** The threads' module (engine-thread.ts); tests give one that fails to load or never notices an interrupt. */
  threadModule?: URL;
}

const THREAD_URL = new URL('./engine-thread.ts', import.meta.url);

const failure = (code: 'ENGINE.EXECUTION' | 'ENGINE.INTERRUPTED', message: string): EngineRunResult => ({ ok: false, error: { code, message }, transient: false });
/** Retried by the job lifecycle (on this worker once it is back, or on another), never failed and refunded. */
const shuttingDown: EngineRunResult = { ok: false, error: { code: 'ENGINE.UNAVAILABLE', message: 'The engine is shutting down' }, transient: true };

export class ThreadedBuiltinEngine implements WorkflowEngine, NodeCatalog {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private readonly files: BuiltinEngine;
  private closed = false;

  constructor(private readonly options: ThreadedBuiltinEngineOptions) {
    // This process's side of the work folders (release, check) needs no thread.
    this.files = new BuiltinEngine({ workDir: options.workDir });
    // A thread takes a moment to load the runtime: the first job should not wait for it.
    if (options.prewarm) {
      const worker = this.spawn();
      worker.unref();
      this.idle.push(worker);
    }
  }

  private spawn(): Worker {
    const { timeBudgetMs: _t, memoryMb, keepIdle: _k, interruptGraceMs: _g, prewarm: _p, threadModule, ...engine } = this.options;
    const data: EngineThreadData = { options: engine, memoryBytes: memoryMb * 1048576 };
    const worker = new Worker(threadModule ?? THREAD_URL, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
    // A thread can also die while idle (it failed to load, say): its error must not become this process's
    // uncaught exception (a run's own listeners report it), and a dead thread must never be handed a run,
    // which would then wait forever for an answer.
    worker.on('error', () => undefined).once('exit', () => this.forget(worker));
    return worker;
  }

  private forget(worker: Worker): void {
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
  }

  /** The runtime's /object_info (read in this process: the registry needs no thread). */
  catalogues(): Promise<ServerCatalogue[]> {
    return this.files.catalogues();
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    if (this.closed) return shuttingDown;
    // The thread only hears of an abort while it runs something: one that came before the run would be missed.
    if (request.signal?.aborted) return failure('ENGINE.INTERRUPTED', 'Interrupted before it started');
    const worker = this.idle.pop() ?? this.spawn();
    worker.ref();
    this.busy.add(worker);
    let reusable = false;
    try {
      const outcome = await this.runOn(worker, request);
      reusable = outcome.reusable;
      return outcome.result;
    } finally {
      this.busy.delete(worker);
      if (reusable && !this.closed && this.idle.length < (this.options.keepIdle ?? 2)) {
        worker.unref();
        this.idle.push(worker);
      } else {
        void worker.terminate();
      }
    }
  }

  private runOn(worker: Worker, request: EngineRunRequest): Promise<{ result: EngineRunResult; reusable: boolean }> {
    return new Promise((resolve) => {
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (result: EngineRunResult, reusable: boolean) => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        request.signal?.removeEventListener('abort', onAbort);
        resolve({ result, reusable });
      };
      const onMessage = (message: FromThread) => {
        if (message.type === 'started') timers.push(setTimeout(overTime, this.options.timeBudgetMs));
        else if (message.type === 'event') request.onEvent(message.event);
        else if (message.type === 'crashed') finish(failure('ENGINE.EXECUTION', `The engine failed: ${message.message}`), false);
        else finish(message.result.ok ? { ...message.result, files: message.result.files.map(openable) } : message.result, !message.retire);
      };
      // Counted from the thread's start of the run: a new thread's start-up is not the run's time.
      const overTime = () =>
        finish(failure('ENGINE.EXECUTION', `The run took longer than the engine's time budget (${Math.round(this.options.timeBudgetMs / 1000)} s) and was stopped`), false);
      const onError = (error: Error & { code?: string }) => {
        const budget = `${this.options.memoryMb} MB`;
        finish(failure('ENGINE.EXECUTION', error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `The run ran out of the engine's memory budget (${budget})` : `The engine failed: ${error.message}`), false);
      };
      // close() stops busy threads too: their jobs are retried, not failed, by a shutdown.
      const onExit = (code: number) => finish(this.closed ? shuttingDown : failure('ENGINE.EXECUTION', `The engine thread stopped (exit code ${code})`), false);
      const onAbort = () => {
        worker.postMessage({ type: 'interrupt' } satisfies ToThread);
        // A node deep in a synchronous loop cannot notice: its thread is stopped instead.
        timers.push(setTimeout(() => finish(failure('ENGINE.INTERRUPTED', 'Interrupted'), false), this.options.interruptGraceMs ?? 5000));
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const { runId, workflow, inputs } = request;
      worker.postMessage({ type: 'run', request: { runId, workflow, inputs } } satisfies ToThread);
    });
  }

  release(runId: string): Promise<void> {
    return this.files.release(runId);
  }

  async check(): Promise<void> {
    await mkdir(this.options.workDir, { recursive: true });
  }

  /** One server, this process: healthy until closed, running as many jobs as it has busy threads. */
  async servers(): Promise<EngineServerState[]> {
    return [{ server: 'builtin', healthy: !this.closed, runningJobs: this.busy.size }];
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.idle.splice(0), ...this.busy].map((worker) => worker.terminate()));
  }
}
