import type { Readable } from 'node:stream';
import type { WorkflowGraph } from '../domain/workflow-graph.types.ts';

/** A file the workflow reads (an uploaded input image). `name` is what LoadImage's `image` input names. */
export interface EngineInputFile {
  name: string;
  mimeType: string;
  data: Buffer;
}

export type EngineEvent =
  | { type: 'executing'; nodeId: string; classType: string }
  | { type: 'progress'; value: number; max: number; nodeId?: string }
  | { type: 'status'; text: string }
  /**
   * The run was handed to this one of the engine's servers (1-based, as in COMFYUI_URLS), or its result is read from
   * it (an earlier attempt's prompt, adopted): the job records it (`engineServer`). Engines without servers send none.
   */
  | { type: 'server'; server: number };

export interface EngineOutputFile {
  nodeId: string;
  fileName: string;
  mimeType: string;
  /** 'output' files are saved results (SaveImage...), 'temp' are previews (PreviewImage). */
  kind: 'output' | 'temp';
  sizeBytes?: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
  open(): Promise<Readable>;
}

export interface EngineTextOutput {
  nodeId: string;
  text: string;
}

export interface EngineError {
  /** Stable code: ENGINE.VALIDATION (graph rejected before running), ENGINE.EXECUTION (a node failed),
   * ENGINE.INTERRUPTED (the caller's abort, or the engine stopping), ENGINE.CANCELLED (someone cancelled the run on the
   * engine itself, e.g. Interrupt pressed in a ComfyUI server's own page: the job ends cancelled, not retried),
   * ENGINE.UNAVAILABLE (engine unreachable: transient). */
  code: 'ENGINE.VALIDATION' | 'ENGINE.EXECUTION' | 'ENGINE.INTERRUPTED' | 'ENGINE.CANCELLED' | 'ENGINE.UNAVAILABLE';
  message: string;
  nodeId?: string;
  /** Per-node validation problems, when the engine reports them. */
  nodeErrors?: Record<string, { classType: string; errors: { type: string; message: string; details: string }[] }>;
}

export type EngineRunResult =
  | { ok: true; files: EngineOutputFile[]; texts: EngineTextOutput[] }
  | { ok: false; error: EngineError; transient: boolean };

export interface EngineRunRequest {
  /** The attempt's run id; engines that accept a client-chosen prompt id use it. */
  runId: string;
  /**
   * The run id of the job's previous attempt, if any. An engine that keeps prompts (ComfyUI) first looks
   * for that prompt and adopts it (waits for it, or reads its outputs) rather than running the job twice.
   */
  supersedes?: string;
  /** The job this run is an attempt of: an engine that can find any earlier attempt's prompt still running by it
   * (a chain of redeliveries, where `supersedes` names an attempt that only adopted a prompt) uses it. */
  jobId?: string;
  /** The job's owner: an engine that shares its servers among users serves them in turn (ADR 044). */
  userId?: string;
  /** A slot `reserve` gave this job: the run uses it (and gives it back) instead of waiting for one. */
  slot?: EngineSlot;
  workflow: WorkflowGraph;
  inputs: EngineInputFile[];
  onEvent(event: EngineEvent): void;
  /** Aborting interrupts the run; the result is then ENGINE.INTERRUPTED. */
  signal?: AbortSignal;
}

/** A slot an engine holds for one job until the job runs on it or `release` gives it back (idempotent). */
export interface EngineSlot {
  release(): void;
}

/** A job that waits for a slot before it starts (ADR 044). */
export interface SlotRequest {
  jobId: string;
  userId: string;
  workflow: WorkflowGraph;
  /** Aborting gives up the wait: the answer is then null. */
  signal: AbortSignal;
}

/** What a health check may report of the engine, e.g. each GPU server's state and VRAM. */
export type EngineHealth = Record<string, unknown>;

/** One server of the engine as metrics show it. */
export interface EngineServerState {
  /** `builtin`, or a ComfyUI server's position in COMFYUI_URLS (`1`, `2`...): its address stays out of metrics. */
  server: string;
  healthy: boolean;
  /** This process's jobs running on it. */
  runningJobs: number;
  /** Its devices' VRAM added up, when it reports any. */
  vram?: { totalBytes: number; freeBytes: number };
}

export interface WorkflowEngine {
  run(request: EngineRunRequest): Promise<EngineRunResult>;
  /**
   * Waits until the engine has a slot this job can run on and holds it for the job (optional: an engine without
   * it takes its slot inside `run`). Null when aborted, or when no slot can be given (no server can run the job, or
   * none is healthy): `run` then finds out why.
   */
  reserve?(request: SlotRequest): Promise<EngineSlot | null>;
  /** Frees the engine-side files of a run once the caller has stored them (optional: not every engine keeps any). */
  release?(runId: string): Promise<void>;
  /** Throws when the engine cannot be reached (used by health checks); may describe what it found (servers, VRAM). */
  check(): Promise<EngineHealth | void>;
  /** Each server's health, running jobs and VRAM, freshly probed (optional: metrics leave out an engine without it). */
  servers?(): Promise<EngineServerState[]>;
  close(): Promise<void>;
}
