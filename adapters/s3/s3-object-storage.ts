import { Readable, Transform, type TransformCallback } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type PutObjectCommandInput,
  type S3ClientConfig,
  type ServerSideEncryption,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { contentDisposition } from '../../core/domain/content-disposition.ts';
import { assertStorageKey } from '../../core/domain/storage-key.ts';
import type { ObjectStorage, SignedUrlOptions, StoredObjectInfo } from '../../core/ports/object-storage.port.ts';

export interface S3ObjectStorageOptions {
  bucket: string;
  region: string;
  /** S3-compatible stores (MinIO, R2, s3rver): their URL; path-style addressing is then the default. */
  endpoint?: string;
  /** Where browsers reach the store, when not at `endpoint` (MinIO inside a compose network): presigned URLs use it. */
  publicEndpoint?: string;
  forcePathStyle?: boolean;
  /** Static credentials; without them the SDK's default chain (environment, profile, instance role) is used. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Server-side encryption of every object written: `AES256` (S3-managed keys) or `aws:kms` (with `kmsKeyId`). */
  serverSideEncryption?: 'AES256' | 'aws:kms';
  kmsKeyId?: string;
  /** Multipart part size for streamed bodies (min 5 MiB). Memory held per upload is about partSize × queueSize. */
  partSizeBytes?: number;
  queueSize?: number;
  /** Presigned URLs are capped at 7 days by S3. */
  maxPresignSeconds?: number;
}

const MiB = 1024 * 1024;

/**
 * STORAGE_DRIVER=s3: objects in one bucket, streamed in with a multipart upload (lib-storage) so a large output
 * never sits in memory whole; an object becomes visible only when its upload completes (a failed body aborts the
 * upload and leaves any previous object in place). Signed URLs are presigned GETs that make the store answer with
 * the file's content type and a Content-Disposition (inline or attachment with its name).
 */
export class S3ObjectStorage implements ObjectStorage {
  readonly client: S3Client;
  private readonly presigner: S3Client;
  private readonly bucket: string;

  constructor(private readonly options: S3ObjectStorageOptions) {
    this.bucket = options.bucket;
    const config: S3ClientConfig = {
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
      // A copy: the SDK annotates the object it is given, and configuration is frozen.
      ...(options.credentials ? { credentials: { ...options.credentials } } : {}),
      // Checksums only where S3 requires them: S3-compatible stores that do not know the newer trailing checksums
      // would otherwise store a streamed body with its chunk framing.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    this.client = new S3Client(config);
    // A presigned URL's signature covers its host: sign with the address the browser will use.
    this.presigner = options.publicEndpoint ? new S3Client({ ...config, endpoint: options.publicEndpoint }) : this.client;
  }

  async put(key: string, body: Readable | Buffer, info: { contentType: string; contentLength?: number }): Promise<{ sizeBytes: number }> {
    assertStorageKey(key);
    if (!info.contentType) throw new Error('put needs a content type');
    const base: PutObjectCommandInput = { Bucket: this.bucket, Key: key, ContentType: info.contentType, ...this.encryption() };
    if (Buffer.isBuffer(body)) {
      if (info.contentLength !== undefined && body.length !== info.contentLength) {
        throw new Error(`body has ${body.length} bytes but ${info.contentLength} were announced`);
      }
      await this.client.send(new PutObjectCommand({ ...base, Body: body, ContentLength: body.length }));
      return { sizeBytes: body.length };
    }
    const counter = new CountingStream(info.contentLength);
    body.on('error', (error) => counter.destroy(error));
    const upload = new Upload({
      client: this.client,
      params: { ...base, Body: body.pipe(counter) },
      partSize: Math.max(5 * MiB, this.options.partSizeBytes ?? 8 * MiB),
      queueSize: this.options.queueSize ?? 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // The body's own error says more than the SDK's "request aborted".
      throw counter.failure ?? error;
    }
    if (counter.failure) throw counter.failure;
    return { sizeBytes: counter.bytes };
  }

  async get(key: string): Promise<(StoredObjectInfo & { body: Readable }) | null> {
    assertStorageKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = object.Body as Readable | undefined;
      return { contentType: object.ContentType ?? 'application/octet-stream', sizeBytes: Number(object.ContentLength ?? 0), body: body ?? Readable.from([]) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    assertStorageKey(key);
    try {
      const object = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { contentType: object.ContentType ?? 'application/octet-stream', sizeBytes: Number(object.ContentLength ?? 0) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    assertStorageKey(key);
    const expiresIn = Math.min(Math.max(1, Math.floor(options.expiresInSeconds)), this.options.maxPresignSeconds ?? 7 * 24 * 3600);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: contentDisposition(options.disposition, options.fileName),
      ...(options.contentType ? { ResponseContentType: options.contentType } : {}),
    });
    return getSignedUrl(this.presigner, command, { expiresIn });
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  close(): void {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }

  private encryption(): Pick<PutObjectCommandInput, 'ServerSideEncryption' | 'SSEKMSKeyId'> {
    const { serverSideEncryption, kmsKeyId } = this.options;
    if (!serverSideEncryption) return {};
    return { ServerSideEncryption: serverSideEncryption as ServerSideEncryption, ...(kmsKeyId ? { SSEKMSKeyId: kmsKeyId } : {}) };
  }
}

/**
 * The object is not there. A missing bucket (a misspelt S3_BUCKET) is an error, not a missing object: it would make
 * every output read as gone and every delete as done while the files stay in the real bucket. HEAD answers a bare 404
 * for both, so there a missing bucket still reads as a missing object (the health check reports the bucket).
 */
const isNotFound = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name !== 'NoSuchBucket' &&
  ((error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound')) ||
    (error as { name?: string } | null)?.name === 'NoSuchKey');

/** Counts the bytes on their way to the store, and fails the upload when they do not match the announced length. */
class CountingStream extends Transform {
  bytes = 0;
  failure: Error | null = null;

  constructor(private readonly expected: number | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.expected !== undefined && this.bytes > this.expected) return done(this.fail(`body is longer than the ${this.expected} bytes announced`));
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.expected !== undefined && this.bytes !== this.expected) return done(this.fail(`body has ${this.bytes} bytes but ${this.expected} were announced`));
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    if (error && !this.failure) this.failure = error;
    done(error);
  }

  private fail(message: string): Error {
    this.failure = new Error(message);
    return this.failure;
  }
}
