import { Readable } from 'node:stream';
import { assertStorageKey } from '../../core/domain/storage-key.ts';
import type { ObjectStorage, SignedUrlOptions, StoredObjectInfo } from '../../core/ports/object-storage.port.ts';

interface StoredObject {
  body: Buffer;
  contentType: string;
}

/**
 * Object storage in a Map, for unit tests. It keeps the contract of the real adapters (key rules,
 * an object appears only once its whole body arrived, idempotent delete). Its signed URLs are not
 * fetchable: `memory://<key>?exp=<unix s>&disp=<inline|attachment>&name=<file name>[&type=<type>]`,
 * unsigned, so a test can read back what it asked for.
 */
export class MemoryObjectStorage implements ObjectStorage {
  private readonly objects = new Map<string, StoredObject>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async put(key: string, body: Readable | Buffer, info: { contentType: string; contentLength?: number }): Promise<{ sizeBytes: number }> {
    assertStorageKey(key);
    if (!info.contentType) throw new Error('put needs a content type');
    let bytes: Buffer;
    if (Buffer.isBuffer(body)) {
      bytes = Buffer.from(body);
    } else {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of body) {
        const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        size += piece.length;
        // Stops at the first byte past the announced length (leaving the loop destroys the stream).
        if (info.contentLength !== undefined && size > info.contentLength) throw new Error(`body is longer than the ${info.contentLength} bytes announced`);
        chunks.push(piece);
      }
      bytes = Buffer.concat(chunks);
    }
    if (info.contentLength !== undefined && bytes.length !== info.contentLength) {
      throw new Error(`body has ${bytes.length} bytes but ${info.contentLength} were announced`);
    }
    this.objects.set(key, { body: bytes, contentType: info.contentType });
    return { sizeBytes: bytes.length };
  }

  async get(key: string): Promise<(StoredObjectInfo & { body: Readable }) | null> {
    assertStorageKey(key);
    const object = this.objects.get(key);
    if (!object) return null;
    return { contentType: object.contentType, sizeBytes: object.body.length, body: Readable.from([object.body]) };
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    assertStorageKey(key);
    const object = this.objects.get(key);
    return object ? { contentType: object.contentType, sizeBytes: object.body.length } : null;
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    this.objects.delete(key);
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    assertStorageKey(key);
    const query = new URLSearchParams({
      exp: String(Math.floor(this.now().getTime() / 1000) + options.expiresInSeconds),
      disp: options.disposition,
      name: options.fileName,
      ...(options.contentType ? { type: options.contentType } : {}),
    });
    return `memory://${key.split('/').map(encodeURIComponent).join('/')}?${query}`;
  }

  async check(): Promise<void> {}

  /** Test helper: every stored key, sorted. */
  keys(): string[] {
    return [...this.objects.keys()].sort();
  }
}
