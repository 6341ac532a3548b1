/**
 * WorkflowEngine on the in-process builtin runtime: ComfyUI's model-free nodes without a ComfyUI
 * server. Each run gets its own input/output/temp folders (<workDir>/<kind>/<run>): concurrent
 * runs never race on SaveImage's file counter or on input names, the user's filename_prefix stays
 * as given, and release(runId) removes exactly one run's files once the caller has stored them.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import type {
  EngineError,
  EngineOutputFile,
  EngineRunRequest,
  EngineRunResult,
  EngineTextOutput,
  WorkflowEngine,
} from '../../core/ports/workflow-engine.port.ts';
import { LIMIT_NAMES, type ResourceLimits } from '../../core/domain/resource-limits.ts';
import type { NodeCatalog, ServerCatalogue } from '../../core/ports/node-catalog.port.ts';
import type { ObjectInfo } from '../../core/domain/object-info.ts';
import { BuiltinRuntime } from './builtin-runtime.ts';
import { createRegistry, nodeInfo } from './node-registry.ts';
import type { NodeErrorEntry, PromptGraph, ValidateResult } from './builtin-runtime.ts';
import { apngDurationSeconds } from './apng.ts';
import { probeMedia } from './ffmpeg.ts';

export interface BuiltinEngineOptions {
  workDir: string;
  ffmpegPath?: string;
  /** Caps the nodes check before allocating, and the total size of a run's output files. */
  limits?: ResourceLimits;
  /** Called between nodes and in long loops; a message fails the run (the worker thread's memory budget). */
  overBudget?: () => string | null;
}

/** An output file as a path: what a worker thread hands back (a stream cannot cross threads). */
export type OutputFileAt = Omit<EngineOutputFile, 'open'> & { path: string };

export type PathRunResult =
  | { ok: true; files: OutputFileAt[]; texts: EngineTextOutput[] }
  | { ok: false; error: EngineError; transient: boolean };

/** The port's file: opened from its path. */
export const openable = ({ path: file, ...rest }: OutputFileAt): EngineOutputFile => ({ ...rest, open: async (): Promise<Readable> => createReadStream(file) });

const MIME: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime',
  flac: 'audio/flac', mp3: 'audio/mpeg', opus: 'audio/opus', ogg: 'audio/ogg', wav: 'audio/wav',
};

/** A file of a node's ui, as every builtin node writes it (into the output folder or, for previews, temp). */
interface FileItem {
  filename: string;
  subfolder: string;
  type: 'output' | 'temp';
}

const runFolder = (runId: string): string => {
  const safe = runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  if (safe === runId && safe !== '.' && safe !== '..') return safe;
  return `${safe}-${createHash('sha256').update(runId).digest('hex').slice(0, 12)}`;
};

/** Links may carry numeric node ids (our domain allows them); ComfyUI only matches string keys. */
const normalize = (workflow: PromptGraph): PromptGraph => {
  const copy = structuredClone(workflow);
  for (const node of Object.values(copy)) {
    for (const [k, v] of Object.entries(node.inputs ?? {})) {
      if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number') node.inputs[k] = [String(v[0]), v[1]];
    }
  }
  return copy;
};

const portNodeErrors = (errors: Record<string, NodeErrorEntry>): EngineError['nodeErrors'] =>
  Object.fromEntries(
    Object.entries(errors).map(([id, e]) => [
      id,
      { classType: e.class_type, errors: e.errors.map(({ type, message, details }) => ({ type, message, details })) },
    ]),
  );

const summary = (v: Extract<ValidateResult, { ok: false }>): string => {
  const parts = Object.entries(v.node_errors).map(
    ([id, e]) => `${e.class_type} #${id}: ${e.errors.map((x) => (x.details ? `${x.message}: ${x.details}` : x.message)).join('; ')}`,
  );
  if (parts.length > 0) return `${v.error.message}. ${parts.join(' | ')}`;
  return v.error.details ? `${v.error.message}: ${v.error.details}` : v.error.message;
};

export class BuiltinEngine implements WorkflowEngine, NodeCatalog {
  private readonly workDir: string;
  private objectInfo: ObjectInfo | null = null;

  constructor(private readonly options: BuiltinEngineOptions) {
    this.workDir = path.resolve(options.workDir);
  }

  private dirs(runId: string): { inputDir: string; outputDir: string; tempDir: string } {
    const run = runFolder(runId);
    return {
      inputDir: path.join(this.workDir, 'input', run),
      outputDir: path.join(this.workDir, 'output', run),
      tempDir: path.join(this.workDir, 'temp', run),
    };
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    const result = await this.runToPaths(request);
    return result.ok ? { ...result, files: result.files.map(openable) } : result;
  }

  /** run(), with output files as paths. */
  async runToPaths(request: EngineRunRequest): Promise<PathRunResult> {
    const dirs = this.dirs(request.runId);
    const runtime = new BuiltinRuntime({ ...dirs, ffmpegPath: this.options.ffmpegPath, ...(this.options.limits ? { limits: this.options.limits } : {}) });
    for (const input of request.inputs) {
      const target = path.resolve(dirs.inputDir, input.name);
      if (!target.startsWith(dirs.inputDir + path.sep)) {
        return { ok: false, error: { code: 'ENGINE.VALIDATION', message: `Input file name not allowed: ${input.name}` }, transient: false };
      }
      try {
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, input.data);
      } catch (error) {
        // Two inputs whose names need one path as both a file and a folder (`a` and `a/b`): the caller's mistake.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EISDIR') throw error;
        return { ok: false, error: { code: 'ENGINE.VALIDATION', message: `Input file name clashes with another input: ${input.name}` }, transient: false };
      }
    }
    const prompt = normalize(request.workflow as PromptGraph);
    const validation = runtime.validate(prompt);
    if (!validation.ok) {
      return {
        ok: false,
        error: { code: 'ENGINE.VALIDATION', message: summary(validation), nodeErrors: portNodeErrors(validation.node_errors) },
        transient: false,
      };
    }
    const dropped = Object.keys(validation.nodeErrors);
    if (dropped.length > 0) {
      request.onEvent({ type: 'status', text: `Skipping invalid nodes ${dropped.join(', ')}: their outputs are not produced` });
    }
    const result = await runtime.execute(
      request.runId,
      prompt,
      {
        onExecuting: (nodeId) => request.onEvent({ type: 'executing', nodeId, classType: prompt[nodeId]?.class_type ?? '' }),
        onProgress: (value, max, nodeId) => request.onEvent({ type: 'progress', value, max, nodeId }),
        isInterrupted: () => request.signal?.aborted === true,
        ...(this.options.overBudget ? { overBudget: this.options.overBudget } : {}),
      },
      validation.outputs,
    );
    if (result.status === 'interrupted') {
      return {
        ok: false,
        error: { code: 'ENGINE.INTERRUPTED', message: `Interrupted before ${result.nodeType} #${result.nodeId} finished`, nodeId: result.nodeId },
        transient: false,
      };
    }
    if (result.status === 'error') {
      return {
        ok: false,
        error: {
          code: 'ENGINE.EXECUTION',
          message: `${result.nodeType} #${result.nodeId} failed: ${result.exceptionType}: ${result.exceptionMessage}`,
          nodeId: result.nodeId,
        },
        transient: false,
      };
    }
    const files: OutputFileAt[] = [];
    const texts: EngineTextOutput[] = [];
    for (const nodeId of result.executed) {
      const ui = result.outputs[nodeId];
      if (!ui) continue;
      for (const key of ['images', 'audio']) {
        for (const item of (ui[key] as FileItem[] | undefined) ?? []) files.push(await this.describe(nodeId, item, dirs));
      }
      for (const text of (ui['text'] as unknown[] | undefined) ?? []) texts.push({ nodeId, text: String(text) });
    }
    const total = files.reduce((sum, file) => sum + (file.sizeBytes ?? 0), 0);
    const max = this.options.limits?.maxOutputBytes;
    if (max !== undefined && total > max) {
      const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
      return { ok: false, error: { code: 'ENGINE.EXECUTION', message: `The outputs are ${mb(total)} MB, above the ${LIMIT_NAMES.maxOutputBytes} (${mb(max)} MB)` }, transient: false };
    }
    return { ok: true, files, texts };
  }

  private async describe(
    nodeId: string,
    item: FileItem,
    dirs: { inputDir: string; outputDir: string; tempDir: string },
  ): Promise<OutputFileAt> {
    const full = path.join(item.type === 'temp' ? dirs.tempDir : dirs.outputDir, item.subfolder, item.filename);
    const ext = path.extname(item.filename).slice(1).toLowerCase();
    const mimeType = MIME[ext] ?? 'application/octet-stream';
    const file: OutputFileAt = {
      nodeId,
      fileName: item.filename,
      mimeType,
      kind: item.type === 'temp' ? 'temp' : 'output',
      sizeBytes: (await stat(full)).size,
      path: full,
    };
    if (mimeType.startsWith('image/')) {
      const meta = await sharp(full).metadata();
      file.width = meta.width;
      file.height = meta.height; // one frame's height: sharp reads the first frame unless asked for all
      if (meta.pages && meta.pages > 1 && meta.delay) file.durationSeconds = meta.delay.reduce((a, b) => a + b, 0) / 1000;
      // libvips reads only an APNG's default image: its frames and delays are in its acTL and fcTL chunks.
      if (mimeType === 'image/png') {
        const seconds = await apngDurationSeconds(full);
        if (seconds !== undefined) file.durationSeconds = seconds;
      }
    } else if (mimeType.startsWith('video/') || mimeType.startsWith('audio/')) {
      const probe = await probeMedia(this.options.ffmpegPath, full);
      if (probe.width !== undefined) file.width = probe.width;
      if (probe.height !== undefined) file.height = probe.height;
      if (probe.durationSeconds !== undefined) file.durationSeconds = probe.durationSeconds;
    }
    return file;
  }

  /** Deletes a run's input, output and temp folders (call after the outputs were stored). */
  async release(runId: string): Promise<void> {
    const dirs = this.dirs(runId);
    await Promise.all(Object.values(dirs).map((d) => rm(d, { recursive: true, force: true })));
  }

  async check(): Promise<void> {
    await mkdir(this.workDir, { recursive: true });
  }

  /** The builtin runtime's /object_info, as its one server (the same registry the protocol stand-in serves). */
  async catalogues(): Promise<ServerCatalogue[]> {
    this.objectInfo ??= Object.fromEntries(
      [...createRegistry().values()].map((d) => [d.name, nodeInfo(d, { inputDir: path.join(this.workDir, 'input'), outputDir: path.join(this.workDir, 'output'), tempDir: path.join(this.workDir, 'temp') })]),
    ) as unknown as ObjectInfo;
    return [{ server: 1, objectInfo: this.objectInfo }];
  }

  async close(): Promise<void> {}
}
