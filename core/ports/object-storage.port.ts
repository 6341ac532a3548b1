import type { Readable } from 'node:stream';

export interface StoredObjectInfo {
  contentType: string;
  sizeBytes: number;
}

export interface SignedUrlOptions {
  expiresInSeconds: number;
  disposition: 'inline' | 'attachment';
  fileName: string;
  contentType?: string;
}

export interface ObjectStorage {
  /** Streams the body in; returns the stored size. Overwrites an object with the same key. */
  put(key: string, body: Readable | Buffer, info: { contentType: string; contentLength?: number }): Promise<{ sizeBytes: number }>;
  get(key: string): Promise<(StoredObjectInfo & { body: Readable }) | null>;
  head(key: string): Promise<StoredObjectInfo | null>;
  /** Idempotent: deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** A URL that works without our session for `expiresInSeconds`, then stops working. */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;
  check(): Promise<void>;
}
