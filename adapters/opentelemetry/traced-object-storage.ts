import type { Readable } from 'node:stream';
import { context, SpanKind } from '@opentelemetry/api';
import type { ObjectStorage, SignedUrlOptions, StoredObjectInfo } from '../../core/ports/object-storage.port.ts';
import { inSpan, tracer } from './trace-context.ts';

/** An ObjectStorage whose writes are spans: one per object stored, with its key and size (ADR 031). */
export class TracedObjectStorage implements ObjectStorage {
  constructor(
    private readonly inner: ObjectStorage,
    /** local or s3. */
    private readonly driver: string,
  ) {}

  put(key: string, body: Readable | Buffer, info: { contentType: string; contentLength?: number }): Promise<{ sizeBytes: number }> {
    const parent = context.active();
    const span = tracer().startSpan(
      'storage put',
      { kind: SpanKind.CLIENT, attributes: { 'storage.driver': this.driver, 'storage.key': key, 'storage.content_type': info.contentType } },
      parent,
    );
    return inSpan(span, parent, async () => {
      const stored = await this.inner.put(key, body, info);
      span.setAttribute('storage.size_bytes', stored.sizeBytes);
      return stored;
    });
  }

  get(key: string): Promise<(StoredObjectInfo & { body: Readable }) | null> {
    return this.inner.get(key);
  }

  head(key: string): Promise<StoredObjectInfo | null> {
    return this.inner.head(key);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    return this.inner.signedUrl(key, options);
  }

  check(): Promise<void> {
    return this.inner.check();
  }
}
