import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readFile, rename, rmdir, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey } from '../../core/domain/storage-key.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { ObjectStorage, SignedUrlOptions, StoredObjectInfo } from '../../core/ports/object-storage.port.ts';
import { LocalUrlSigner } from './local-url-signer.ts';

export interface LocalObjectStorageOptions {
  /** STORAGE_DIR: the key `outputs/u/j/a.png` is the file `<dir>/outputs/u/j/a.png`. */
  dir: string;
  /** Where the files route is served, e.g. `https://media.example.com/api/v1/files`. */
  filesUrl: string;
  signingKey: string;
  clock: Clock;
}

/** A stored file opened for serving: size and type are those of the bytes the streams read. */
export interface OpenedLocalObject {
  contentType: string;
  sizeBytes: number;
  modifiedAt: Date;
  /** Reads `start..end` (inclusive), or everything; call once. Closes the file when the stream ends. */
  stream(range?: { start: number; end: number }): Readable;
  /** Closes the file when no stream is taken. */
  close(): Promise<void>;
}

interface Meta {
  contentType: string;
}

const FALLBACK_TYPE = 'application/octet-stream';
const isMissing = (error: unknown): boolean => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * Object storage on the local file system. Keys map to paths under `dir`. Bookkeeping files are
 * dot-files beside the object (keys cannot name them): the content type in `.<name>.meta.json`, bodies
 * in flight in `.<name>.<random>.tmp`. A body is written and fsynced to its temp file, then renamed
 * over the object, so a reader sees the old object or the new one, never a partial one. The sidecar
 * is renamed just before the body (an object exists exactly when its body file does); an overwrite
 * with a different content type can show the new type with the old bytes for that instant.
 * Limits of a file system: a key cannot be both an object and a folder (`a/b` and `a/b/c`).
 */
export class LocalObjectStorage implements ObjectStorage {
  readonly signer: LocalUrlSigner;
  private readonly root: string;

  constructor(private readonly options: LocalObjectStorageOptions) {
    this.root = path.resolve(options.dir);
    this.signer = new LocalUrlSigner(options.signingKey, options.filesUrl);
  }

  /** The file that holds a key's body. */
  pathOf(key: string): string {
    assertStorageKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Readable | Buffer, info: { contentType: string; contentLength?: number }): Promise<{ sizeBytes: number }> {
    const target = this.pathOf(key);
    if (!info.contentType) throw new Error('put needs a content type');
    const { dir, name } = { dir: path.dirname(target), name: path.basename(target) };
    const suffix = randomBytes(8).toString('hex');
    const bodyTemp = path.join(dir, `.${name}.${suffix}.tmp`);
    const metaTemp = path.join(dir, `.${name}.${suffix}.meta.tmp`);
    const handle = await this.createExclusive(bodyTemp);
    let size = 0;
    let sidecarPlaced = false;
    try {
      const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
      const expected = info.contentLength;
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer | Uint8Array | string>) {
          for await (const chunk of chunks) {
            const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
            size += bytes.length;
            // Stops at the first byte past the announced length (the pipeline destroys the source).
            if (expected !== undefined && size > expected) throw new Error(`body is longer than the ${expected} bytes announced`);
            yield bytes;
          }
        },
        handle.createWriteStream({ flush: true }),
      );
      if (info.contentLength !== undefined && size !== info.contentLength) {
        throw new Error(`body has ${size} bytes but ${info.contentLength} were announced`);
      }
      await writeFile(metaTemp, JSON.stringify({ contentType: info.contentType } satisfies Meta));
      await rename(metaTemp, this.metaPath(target));
      sidecarPlaced = true;
      await rename(bodyTemp, target);
      return { sizeBytes: size };
    } catch (error) {
      await handle.close().catch(() => undefined);
      await Promise.all([unlink(bodyTemp).catch(() => undefined), unlink(metaTemp).catch(() => undefined)]);
      if (sidecarPlaced) await this.dropOrphanSidecar(target);
      throw error;
    }
  }

  async get(key: string): Promise<(StoredObjectInfo & { body: Readable }) | null> {
    const opened = await this.open(key);
    return opened ? { contentType: opened.contentType, sizeBytes: opened.sizeBytes, body: opened.stream() } : null;
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const target = this.pathOf(key);
    try {
      const stats = await stat(target);
      if (!stats.isFile()) return null;
      return { contentType: await this.contentTypeOf(target), sizeBytes: stats.size };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const target = this.pathOf(key);
    // The body first: once it is gone the object is gone, whatever happens to the sidecar.
    for (const file of [target, this.metaPath(target)]) {
      await unlink(file).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
    }
    await this.pruneEmptyFolders(path.dirname(target));
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    assertStorageKey(key);
    return this.signer.sign(key, options, this.options.clock.now());
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await access(this.root, constants.R_OK | constants.W_OK);
  }

  /** Opens a key's body for serving (the files route); null when there is no such object. */
  async open(key: string): Promise<OpenedLocalObject | null> {
    const target = this.pathOf(key);
    let handle: FileHandle;
    try {
      handle = await open(target, 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      const contentType = await this.contentTypeOf(target);
      return {
        contentType,
        sizeBytes: stats.size,
        modifiedAt: stats.mtime,
        // The open handle keeps reading the bytes it opened even if the key is overwritten meanwhile.
        stream: (range) => handle.createReadStream(range ? { start: range.start, end: range.end } : {}),
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  private metaPath(target: string): string {
    return path.join(path.dirname(target), `.${path.basename(target)}.meta.json`);
  }

  /**
   * Removes the sidecar a failed put placed for a key that holds no object (its body could not take its place:
   * the key is a folder). Where an older object stays, its sidecar stays too, with the failed put's type.
   */
  private async dropOrphanSidecar(target: string): Promise<void> {
    const isObject = await stat(target).then((stats) => stats.isFile(), () => false);
    if (!isObject) await unlink(this.metaPath(target)).catch(() => undefined);
  }

  private async contentTypeOf(target: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(this.metaPath(target), 'utf8')) as Partial<Meta>;
      return typeof meta.contentType === 'string' && meta.contentType ? meta.contentType : FALLBACK_TYPE;
    } catch {
      return FALLBACK_TYPE;
    }
  }

  /** Creates the temp file, re-creating its folder if a concurrent delete pruned it in between. */
  private async createExclusive(file: string): Promise<FileHandle> {
    for (let attempt = 0; ; attempt += 1) {
      await mkdir(path.dirname(file), { recursive: true });
      try {
        return await open(file, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
      }
    }
  }

  /** Removes folders left empty by a delete, up to (not including) the root. */
  private async pruneEmptyFolders(folder: string): Promise<void> {
    let current = folder;
    while (current !== this.root && current.startsWith(this.root + path.sep)) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or already gone): stop there
      }
      current = path.dirname(current);
    }
  }
}
