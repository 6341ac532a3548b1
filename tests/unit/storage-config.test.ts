import path from 'node:path';
import test from 'ava';
import { Reader } from '../../bootstrap/config/reader.ts';
import { deriveStorageSigningKey, readStorage } from '../../bootstrap/config/storage.ts';

const read = (env: Record<string, string>) => {
  const reader = new Reader(env);
  const storage = readStorage(reader, { dataDir: '/srv/data' });
  return { storage, problems: reader.problems };
};

test('local by default, under DATA_DIR, signed with STORAGE_SIGNING_KEY of at least 32 characters', (t) => {
  t.deepEqual(read({}), { storage: { driver: 'local', dir: path.resolve('/srv/data/storage'), signingKey: '' }, problems: [] });
  t.deepEqual(read({ STORAGE_DIR: '/mnt/out', STORAGE_SIGNING_KEY: 'k'.repeat(32) }), { storage: { driver: 'local', dir: path.resolve('/mnt/out'), signingKey: 'k'.repeat(32) }, problems: [] });
  t.deepEqual(read({ STORAGE_SIGNING_KEY: 'k'.repeat(31) }).problems, ['STORAGE_SIGNING_KEY must be at least 32 characters']);
  t.deepEqual(read({ STORAGE_DRIVER: 'ftp' }).problems, ['STORAGE_DRIVER must be one of local, s3 (got "ftp")']);
});

test('without a key of its own, local storage signs with a key derived from the JWT secret: stable, and not the secret', (t) => {
  const { storage } = read({});
  deriveStorageSigningKey(storage, 'j'.repeat(32));
  const derived = storage.driver === 'local' ? storage.signingKey : '';
  t.regex(derived, /^[A-Za-z0-9_-]{43}$/);
  t.not(derived, 'j'.repeat(32));
  const again = read({}).storage;
  deriveStorageSigningKey(again, 'j'.repeat(32));
  t.deepEqual(again, storage, 'the same secret derives the same key');
  const other = read({}).storage;
  deriveStorageSigningKey(other, 'o'.repeat(32));
  t.notDeepEqual(other, storage, 'another secret, another key');
  const own = read({ STORAGE_SIGNING_KEY: 'k'.repeat(32) }).storage;
  deriveStorageSigningKey(own, 'j'.repeat(32));
  t.like(own, { signingKey: 'k'.repeat(32) }, 'a key of its own is kept');
});

test('s3: S3_BUCKET required; path-style URLs by default only with an endpoint; the public endpoint taken', (t) => {
  t.deepEqual(read({ STORAGE_DRIVER: 's3' }).problems, ['S3_BUCKET is required when STORAGE_DRIVER=s3']);
  t.deepEqual(read({ STORAGE_DRIVER: 's3', S3_BUCKET: 'out' }), { storage: { driver: 's3', bucket: 'out', region: 'us-east-1', forcePathStyle: false }, problems: [] });
  t.deepEqual(read({ STORAGE_DRIVER: 's3', S3_BUCKET: 'out', AWS_REGION: 'eu-west-1', S3_ENDPOINT: 'http://minio:9000', S3_PUBLIC_ENDPOINT: 'https://files.example.com' }).storage, {
    driver: 's3',
    bucket: 'out',
    region: 'eu-west-1',
    endpoint: 'http://minio:9000',
    publicEndpoint: 'https://files.example.com',
    forcePathStyle: true,
  });
  t.like(read({ STORAGE_DRIVER: 's3', S3_BUCKET: 'out', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'false' }).storage, { forcePathStyle: false });
});

test('s3 encryption: AES256 or aws:kms, a KMS key only with aws:kms', (t) => {
  const s3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'out' };
  t.like(read({ ...s3, S3_SSE: 'AES256' }), { storage: { serverSideEncryption: 'AES256' }, problems: [] });
  t.like(read({ ...s3, S3_SSE: 'aws:kms', S3_SSE_KMS_KEY_ID: 'key-1' }), { storage: { serverSideEncryption: 'aws:kms', kmsKeyId: 'key-1' }, problems: [] });
  t.like(read({ ...s3, S3_SSE: 'aws:kms' }), { storage: { serverSideEncryption: 'aws:kms' }, problems: [] });
  t.false('kmsKeyId' in read({ ...s3, S3_SSE: 'aws:kms' }).storage);
  t.deepEqual(read({ ...s3, S3_SSE: 'aes256' }).problems, ['S3_SSE must be AES256 or aws:kms (got "aes256")']);
  t.false('serverSideEncryption' in read({ ...s3, S3_SSE: 'aes256' }).storage);
  t.deepEqual(read({ ...s3, S3_SSE: 'AES256', S3_SSE_KMS_KEY_ID: 'key-1' }).problems, ['S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms']);
  t.false('kmsKeyId' in read({ ...s3, S3_SSE: 'AES256', S3_SSE_KMS_KEY_ID: 'key-1' }).storage);
  t.deepEqual(read({ ...s3, S3_SSE_KMS_KEY_ID: 'key-1' }).problems, ['S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms']);
});
