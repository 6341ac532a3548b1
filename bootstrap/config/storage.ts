import { createHmac } from 'node:crypto';
import path from 'node:path';
import { awsCredentials, type AwsCredentials } from './aws.ts';
import type { Reader } from './reader.ts';

/** `signingKey`: HMAC key of local storage's signed URLs (STORAGE_SIGNING_KEY, else derived from JWT_SECRET). */
export type StorageConfig =
  | { driver: 'local'; dir: string; signingKey: string }
  | {
      driver: 's3';
      bucket: string;
      endpoint?: string;
      /** S3_PUBLIC_ENDPOINT: the store's address for browsers, when it differs from S3_ENDPOINT. */
      publicEndpoint?: string;
      region: string;
      forcePathStyle: boolean;
      serverSideEncryption?: 'AES256' | 'aws:kms';
      kmsKeyId?: string;
      /** From AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY when both are set; otherwise the SDK's default chain (profile, role). */
      credentials?: AwsCredentials;
    };

/**
 * STORAGE_DRIVER: local (STORAGE_DIR, default <DATA_DIR>/storage) or s3 (S3_*, AWS_*). Local storage without
 * STORAGE_SIGNING_KEY comes back with an empty `signingKey`: `deriveStorageSigningKey` fills it once JWT_SECRET is known.
 */
export function readStorage(read: Reader, ctx: { dataDir: string }): StorageConfig {
  const storageDriver = read.oneOf('STORAGE_DRIVER', 'local', ['local', 's3'] as const);
  const storage: StorageConfig =
    storageDriver === 's3'
      ? {
          driver: 's3',
          bucket: read.required('S3_BUCKET', 'when STORAGE_DRIVER=s3'),
          region: read.string('AWS_REGION', 'us-east-1'),
          ...(read.raw('S3_ENDPOINT') ? { endpoint: read.raw('S3_ENDPOINT')! } : {}),
          ...(read.raw('S3_PUBLIC_ENDPOINT') ? { publicEndpoint: read.raw('S3_PUBLIC_ENDPOINT')! } : {}),
          // S3-compatible stores (MinIO, s3rver) want path-style URLs; AWS itself virtual-hosted ones.
          forcePathStyle: read.bool('S3_FORCE_PATH_STYLE', Boolean(read.raw('S3_ENDPOINT'))),
          ...s3Encryption(read),
          ...awsCredentials(read),
        }
      : { driver: 'local', dir: path.resolve(read.string('STORAGE_DIR', path.join(ctx.dataDir, 'storage'))), signingKey: read.raw('STORAGE_SIGNING_KEY') ?? '' };
  if (read.raw('STORAGE_SIGNING_KEY') !== undefined && read.raw('STORAGE_SIGNING_KEY')!.length < 32) {
    read.problems.push('STORAGE_SIGNING_KEY must be at least 32 characters');
  }
  return storage;
}

/** Local storage without STORAGE_SIGNING_KEY: its key is derived from the JWT secret (in place). */
export function deriveStorageSigningKey(storage: StorageConfig, jwtSecret: string): void {
  // A key of its own (domain separation): a URL signature can never double as a JWT signature.
  if (storage.driver === 'local' && !storage.signingKey) {
    storage.signingKey = createHmac('sha256', jwtSecret).update('media-gen:storage-url-signing:v1').digest('base64url');
  }
}

/** S3_SSE: server-side encryption of every object written (AES256, or aws:kms with an optional S3_SSE_KMS_KEY_ID). */
function s3Encryption(read: Reader): { serverSideEncryption?: 'AES256' | 'aws:kms'; kmsKeyId?: string } {
  const sse = read.raw('S3_SSE');
  const kmsKeyId = read.raw('S3_SSE_KMS_KEY_ID');
  if (!sse) {
    if (kmsKeyId) read.problems.push('S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms');
    return {};
  }
  if (sse !== 'AES256' && sse !== 'aws:kms') {
    read.problems.push(`S3_SSE must be AES256 or aws:kms (got "${sse}")`);
    return {};
  }
  if (kmsKeyId && sse !== 'aws:kms') read.problems.push('S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms');
  return { serverSideEncryption: sse, ...(kmsKeyId && sse === 'aws:kms' ? { kmsKeyId } : {}) };
}
