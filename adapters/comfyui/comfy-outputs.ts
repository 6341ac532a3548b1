/**
 * A finished prompt's history entry read as the engine port's results: every file item under any output
 * key (`images` — also animated images and videos with `animated: [true]` — `audio`, VideoHelperSuite's
 * `gifs`, ...) and the `text` items. Files stream from `/view` when the caller opens them; an image's size
 * is read from its first bytes as they pass (the caller reads `width`/`height` after storing the stream).
 */
import { extname } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import sharp from 'sharp';
import type { EngineError, EngineOutputFile, EngineTextOutput } from '../../core/ports/workflow-engine.port.ts';
import type { ComfyClient, ComfyFileRef, ComfyHistoryEntry } from './comfy-client.ts';

const MIME: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', mkv: 'video/x-matroska',
  flac: 'audio/flac', mp3: 'audio/mpeg', opus: 'audio/opus', ogg: 'audio/ogg', wav: 'audio/wav',
};

const HEAD_BYTES = 64 * 1024;

const isFileRef = (value: unknown): value is ComfyFileRef =>
  typeof value === 'object' && value !== null && typeof (value as ComfyFileRef).filename === 'string' && (value as ComfyFileRef).filename !== '';

export const mimeOf = (fileName: string, format?: unknown): string => {
  const ext = extname(fileName).slice(1).toLowerCase();
  // Own keys only: a file named `x.constructor` or `x.__proto__` must not take a member of Object.prototype as its type.
  if (Object.hasOwn(MIME, ext)) return MIME[ext]!;
  return typeof format === 'string' && format.includes('/') ? format.split(';')[0]! : 'application/octet-stream';
};

/** Reads an image's size from its first bytes as they flow through (never more than HEAD_BYTES held); the stream ends once known. */
const sniffImageSize = (file: EngineOutputFile, source: Readable): Readable => {
  const head: Buffer[] = [];
  let seen = 0;
  let sniffed: Promise<void> | null = null;
  const sniff = (): Promise<void> => {
    sniffed ??= head.length === 0
      ? Promise.resolve()
      : sharp(Buffer.concat(head))
          .metadata()
          .then((meta) => {
            if (meta.width) file.width = meta.width;
            const height = meta.pageHeight ?? meta.height;
            if (height) file.height = height;
          })
          .catch(() => undefined)
          .finally(() => (head.length = 0));
    return sniffed;
  };
  const through = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (sniffed === null) {
        head.push(chunk);
        seen += chunk.length;
        if (seen >= HEAD_BYTES) void sniff();
      }
      callback(null, chunk);
    },
    flush(callback) {
      void sniff().then(() => callback());
    },
  });
  source.on('error', (error) => through.destroy(error));
  return source.pipe(through);
};

/** The file items of a history entry's outputs (output and temp files), with the node that listed each. */
const fileItems = (entry: ComfyHistoryEntry): { nodeId: string; ref: ComfyFileRef; format?: unknown }[] => {
  const found: { nodeId: string; ref: ComfyFileRef; format?: unknown }[] = [];
  for (const [nodeId, ui] of Object.entries(entry.outputs ?? {})) {
    for (const [key, items] of Object.entries(ui ?? {})) {
      if (!Array.isArray(items) || key === 'text') continue;
      for (const item of items) {
        if (!isFileRef(item) || (item.type !== 'output' && item.type !== 'temp')) continue;
        found.push({ nodeId, ref: { filename: item.filename, subfolder: item.subfolder ?? '', type: item.type }, format: (item as { format?: unknown }).format });
      }
    }
  }
  return found;
};

export const readOutputs = (client: ComfyClient, entry: ComfyHistoryEntry): { files: EngineOutputFile[]; texts: EngineTextOutput[] } => {
  const texts: EngineTextOutput[] = [];
  for (const [nodeId, ui] of Object.entries(entry.outputs ?? {})) {
    const items = ui?.['text'];
    if (Array.isArray(items)) for (const text of items) texts.push({ nodeId, text: String(text) });
  }
  const files = fileItems(entry).map(({ nodeId, ref, format }) => {
    const mimeType = mimeOf(ref.filename, format);
    const file: EngineOutputFile = {
      nodeId,
      fileName: ref.filename,
      mimeType,
      kind: ref.type === 'temp' ? 'temp' : 'output',
      open: async () => {
        const body = await client.view(ref);
        return mimeType.startsWith('image/') ? sniffImageSize(file, body) : body;
      },
    };
    return file;
  });
  return { files, texts };
};

/** A finished prompt lists a file the server no longer has (removed from its output folder, or pruned). */
export class ComfyOutputMissing extends Error {}

/** Throws ComfyOutputMissing when /view answers 404 for a file the entry lists. */
export const checkOutputsExist = async (client: ComfyClient, entry: ComfyHistoryEntry): Promise<void> => {
  for (const { ref } of fileItems(entry)) {
    if (!(await client.hasFile(ref))) {
      throw new ComfyOutputMissing(`ComfyUI ${client.label} lists ${ref.filename} among the outputs but no longer has the file`);
    }
  }
};

type Message = [string, Record<string, unknown>];

/** How a finished prompt ended, from its history status: null for success. */
export const failureOf = (entry: ComfyHistoryEntry): EngineError | null => {
  const listed: unknown = entry.status?.messages;
  // JSON from the server: only [type, data] lists are messages (a null item, or messages that are no list, are none).
  const messages = (Array.isArray(listed) ? listed.filter(Array.isArray) : []) as Message[];
  const error = messages.find(([type]) => type === 'execution_error')?.[1];
  if (error) return executionError(error);
  const interrupted = messages.find(([type]) => type === 'execution_interrupted')?.[1];
  if (interrupted) return interruptedError(interrupted);
  if (entry.status && entry.status.status_str === 'error') return { code: 'ENGINE.EXECUTION', message: 'ComfyUI reported the prompt as failed' };
  return null;
};

export const executionError = (data: Record<string, unknown>): EngineError => {
  const nodeId = String(data['node_id'] ?? '');
  return {
    code: 'ENGINE.EXECUTION',
    message: `${String(data['node_type'] ?? 'node')} #${nodeId} failed: ${String(data['exception_type'] ?? 'Error')}: ${String(data['exception_message'] ?? '').trim()}`,
    ...(nodeId ? { nodeId } : {}),
  };
};

export const interruptedError = (data: Record<string, unknown>): EngineError => {
  const nodeId = data['node_id'] === undefined || data['node_id'] === null ? '' : String(data['node_id']);
  return {
    code: 'ENGINE.INTERRUPTED',
    message: nodeId ? `Interrupted before ${String(data['node_type'] ?? 'node')} #${nodeId} finished` : 'Interrupted',
    ...(nodeId ? { nodeId } : {}),
  };
};
