import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalObjectStorage } from '../../adapters/local-storage/local-object-storage.ts';
import { MemoryObjectStorage } from '../../adapters/memory/memory-object-storage.ts';
import { S3ObjectStorage } from '../../adapters/s3/s3-object-storage.ts';
import { startS3StandIn } from '../support/s3-stand-in.ts';
import { generated, objectStorageContract, readAll } from './object-storage.contract.ts';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import test from 'ava';

objectStorageContract('memory', async () => ({ storage: new MemoryObjectStorage(), dispose: async () => undefined }));

objectStorageContract('local', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'object-storage-'));
  return {
    storage: new LocalObjectStorage({
      dir: path.join(dir, 'storage'),
      filesUrl: 'http://localhost:3000/api/v1/files',
      signingKey: 'contract-signing-key-0123456789abcdef',
      clock: { now: () => new Date() },
    }),
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

objectStorageContract(
  's3',
  async () => {
    const s3 = await startS3StandIn();
    const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials, partSizeBytes: 5 * 1024 * 1024 });
    return {
      storage,
      async dispose() {
        storage.close();
        await s3.stop();
      },
    };
  },
  'fetchable',
);

test('s3: a body larger than a part goes up in parts and comes back intact; a body failing after some parts leaves nothing', async (t) => {
  const s3 = await startS3StandIn();
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials, partSizeBytes: 5 * 1024 * 1024 });
  t.teardown(async () => {
    storage.close();
    await s3.stop();
  });
  const parts: number[] = [];
  storage.client.middlewareStack.add((next, context) => async (args) => {
    if (context.commandName === 'UploadPartCommand') parts.push(1);
    return next(args);
  }, { step: 'initialize', name: 'countParts' });

  const { stream, sha256 } = generated(12 * 1024 * 1024 + 17);
  t.deepEqual(await storage.put('outputs/u/j/big.bin', stream, { contentType: 'application/octet-stream' }), { sizeBytes: 12 * 1024 * 1024 + 17 });
  t.is(parts.length, 3, 'three parts of at most 5 MiB');
  const got = await storage.get('outputs/u/j/big.bin');
  t.is(createHash('sha256').update(await readAll(got!.body)).digest('hex'), sha256);

  async function* failing() {
    const chunk = Buffer.alloc(1024 * 1024, 1);
    for (let i = 0; i < 11; i++) yield chunk;
    throw new Error('the engine went away mid-file');
  }
  await t.throwsAsync(() => storage.put('outputs/u/j/broken.bin', Readable.from(failing()), { contentType: 'application/octet-stream' }), { message: /went away/ });
  t.is(await storage.head('outputs/u/j/broken.bin'), null);
});

test('s3: with a public endpoint, presigned URLs carry the address browsers use, and work there', async (t) => {
  const s3 = await startS3StandIn();
  const publicEndpoint = s3.endpoint.replace('127.0.0.1', 'localhost');
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, publicEndpoint, credentials: s3.credentials });
  t.teardown(async () => {
    storage.close();
    await s3.stop();
  });
  await storage.put('outputs/u/j/a.png', Buffer.from('png bytes'), { contentType: 'image/png' });
  const url = await storage.signedUrl('outputs/u/j/a.png', { expiresInSeconds: 60, disposition: 'inline', fileName: 'a.png' });
  t.true(url.startsWith(`${publicEndpoint}/${s3.bucket}/outputs/u/j/a.png?`), url);
  const viewed = await fetch(url);
  t.is(viewed.status, 200);
  t.is(await viewed.text(), 'png bytes');
});

test('s3: a lifetime beyond the 7 days S3 allows is presigned for 7 days, and the URL works', async (t) => {
  const s3 = await startS3StandIn();
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials });
  t.teardown(async () => {
    storage.close();
    await s3.stop();
  });
  await storage.put('outputs/u/j/kept.png', Buffer.from('kept'), { contentType: 'image/png' });
  // Pins the cap: S3 refuses to presign for longer than 604 800 s, so a longer wish is cut to that.
  const url = new URL(await storage.signedUrl('outputs/u/j/kept.png', { expiresInSeconds: 30 * 24 * 3600, disposition: 'inline', fileName: 'kept.png' }));
  t.is(url.searchParams.get('X-Amz-Expires'), '604800');
  const viewed = await fetch(url);
  t.is(viewed.status, 200);
  t.is(await viewed.text(), 'kept');
});

/** S3 storage at a stand-in, closed after the test. */
const s3Storage = async (t: { teardown(fn: () => Promise<void> | void): void }, options: Partial<ConstructorParameters<typeof S3ObjectStorage>[0]> = {}) => {
  const s3 = await startS3StandIn();
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials, ...options });
  t.teardown(async () => {
    storage.close();
    await s3.stop();
  });
  return { s3, storage };
};

test('s3: a stream longer than announced is refused as soon as it passes the length, not read to its end', async (t) => {
  const { storage } = await s3Storage(t);
  let release!: () => void;
  const never = new Promise<void>((resolve) => (release = resolve));
  t.teardown(() => release());
  async function* endless() {
    yield Buffer.from('123456');
    await never; // a body that would never end: only the early refusal can end the put
    yield Buffer.from('7');
  }
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    storage.put('outputs/u/j/long.png', Readable.from(endless()), { contentType: 'image/png', contentLength: 5 }).then(
      () => 'stored',
      (error: Error) => error.message,
    ),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still reading after 30 s'), 30_000))),
  ]);
  clearTimeout(timer);
  t.regex(outcome, /longer than the 5 bytes announced/);
  t.is(await storage.head('outputs/u/j/long.png'), null);
});

test('s3: a store that cannot be reached is an error for get, head and delete, not a missing object', async (t) => {
  const s3 = await startS3StandIn();
  const endpoint = s3.endpoint;
  const seeded = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint, credentials: s3.credentials });
  await seeded.put('outputs/u/j/kept.png', Buffer.from('kept'), { contentType: 'image/png' });
  seeded.close();
  await s3.stop();
  const storage = new S3ObjectStorage({ bucket: s3.bucket, region: 'us-east-1', endpoint, credentials: s3.credentials });
  t.teardown(() => storage.close());
  // Pins: an outage must not read as "this output is gone" (nor a delete as done when the file is still there).
  await t.throwsAsync(() => storage.get('outputs/u/j/kept.png'), undefined, 'get');
  await t.throwsAsync(() => storage.head('outputs/u/j/kept.png'), undefined, 'head');
  await t.throwsAsync(() => storage.delete('outputs/u/j/kept.png'), undefined, 'delete');
});

test('s3: a bucket that does not exist (a misspelt S3_BUCKET) is an error for get and delete, not a missing object', async (t) => {
  const s3 = await startS3StandIn();
  t.teardown(() => s3.stop());
  const storage = new S3ObjectStorage({ bucket: `${s3.bucket}-misspelt`, region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials });
  t.teardown(() => storage.close());
  await t.throwsAsync(() => storage.get('outputs/u/j/kept.png'), { name: 'NoSuchBucket' }, 'get');
  await t.throwsAsync(() => storage.delete('outputs/u/j/kept.png'), { name: 'NoSuchBucket' }, 'delete: not done while the file is in the real bucket');
  // HEAD's 404 has no body to tell a bucket from a key: it reads as missing (the health check names the bucket).
  t.is(await storage.head('outputs/u/j/kept.png'), null);
  await t.throwsAsync(() => storage.check());
});

test('s3: a signed URL serves the content type asked for, and a lifetime under a second is presigned for one', async (t) => {
  const { storage } = await s3Storage(t);
  await storage.put('outputs/u/j/out.bin', Buffer.from('png bytes'), { contentType: 'application/octet-stream' });
  const typed = await fetch(await storage.signedUrl('outputs/u/j/out.bin', { expiresInSeconds: 300, disposition: 'inline', fileName: 'out.png', contentType: 'image/png' }));
  t.is(typed.status, 200);
  t.is(typed.headers.get('content-type'), 'image/png');
  t.is(await typed.text(), 'png bytes');
  const short = new URL(await storage.signedUrl('outputs/u/j/out.bin', { expiresInSeconds: 0.5, disposition: 'inline', fileName: 'out.png' }));
  t.is(short.searchParams.get('X-Amz-Expires'), '1');
});

test('s3: every object is written with the configured server-side encryption, in one piece or in parts', async (t) => {
  const { storage } = await s3Storage(t, { serverSideEncryption: 'aws:kms', kmsKeyId: 'alias/media-outputs', partSizeBytes: 5 * 1024 * 1024 });
  const writes: { command: string; sse: unknown; kms: unknown }[] = [];
  storage.client.middlewareStack.add((next, context) => async (args) => {
    const input = args.input as { ServerSideEncryption?: unknown; SSEKMSKeyId?: unknown };
    if (context.commandName === 'PutObjectCommand' || context.commandName === 'CreateMultipartUploadCommand') {
      writes.push({ command: context.commandName, sse: input.ServerSideEncryption, kms: input.SSEKMSKeyId });
    }
    return next(args);
  }, { step: 'initialize', name: 'recordEncryption' });
  await storage.put('outputs/u/j/small.png', Buffer.from('small'), { contentType: 'image/png' }).catch(() => undefined);
  await storage.put('outputs/u/j/streamed.png', generated(6 * 1024 * 1024).stream, { contentType: 'image/png' }).catch(() => undefined);
  t.true(writes.length >= 2, JSON.stringify(writes));
  for (const write of writes) t.deepEqual(write, { command: write.command, sse: 'aws:kms', kms: 'alias/media-outputs' });
});
