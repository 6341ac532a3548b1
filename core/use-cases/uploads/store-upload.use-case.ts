import { parseContentHash, CONTENT_HASH_FORMAT } from '../../domain/content-hash.ts';
import { IMAGE_EXTENSION, parseClaimedImageType, sniffImageType } from '../../domain/image-type.ts';
import { LIMIT_NAMES } from '../../domain/resource-limits.ts';
import { fail, ok, validationFailed, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { ContentDigest, ContentHasher } from '../../ports/content-hasher.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { ImageInspector } from '../../ports/image-inspector.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { Upload, UploadRepository } from '../../ports/upload-repository.port.ts';
import { saveUpload } from './save-upload.service.ts';

export interface StoreUploadInput {
  userId: string;
  /** The file's bytes: a buffer, or a stream (read up to `maxBytes + 1` bytes, then left unread). */
  body: Uint8Array | AsyncIterable<Uint8Array>;
  /** The type the client declared for the file (the multipart part's Content-Type). */
  claimedMimeType?: string | null;
  /** The name the client gave the file (a v2 asset's `file_path`), kept as it is. */
  fileName?: string | null;
  /** The blake3 the client computed (`blake3:<hex>`): the upload is refused, nothing stored, when the bytes' differs. */
  expectedHash?: string | null;
}

/** The longest file name kept (the column's size). */
export const MAX_FILE_NAME_LENGTH = 255;

export interface StoreUploadDeps {
  uploads: UploadRepository;
  storage: ObjectStorage;
  inspector: ImageInspector;
  hasher: ContentHasher;
  ids: IdGenerator;
  clock: Clock;
  maxBytes: number;
  /** Pixels an image may have (the pixel limit per image of every job): checked from the header, before any decoding. */
  maxImagePixels: number;
}

const problem = (message: string) => validationFailed([{ field: 'file', message }]);

/** Reads the whole body, hashing each chunk as it comes, stopping as soon as it is known to be too large. */
async function readAtMost(body: StoreUploadInput['body'], maxBytes: number, hash: ContentDigest): Promise<Uint8Array | null> {
  if (body instanceof Uint8Array) {
    if (body.length > maxBytes) return null;
    await hash.update(body);
    return body;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) return null;
    await hash.update(chunk);
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * Accepts a PNG, JPEG or WebP input image. The bytes decide the type: a file whose bytes are not the
 * image type it claims is refused, as is one that does not decode. The whole file is held in memory
 * (at most MAX_UPLOAD_MB) because it is read twice: decoded, then stored. Its blake3 is computed as the
 * bytes arrive (ADR 042) and checked against the client's `expectedHash` before anything is stored.
 */
export class StoreUpload {
  constructor(private readonly deps: StoreUploadDeps) {}

  async execute(input: StoreUploadInput): Promise<Result<Upload>> {
    const { uploads, storage, inspector, hasher, ids, clock, maxBytes, maxImagePixels } = this.deps;
    const expected = input.expectedHash === undefined || input.expectedHash === null ? null : parseContentHash(input.expectedHash);
    if (expected === null && input.expectedHash !== undefined && input.expectedHash !== null) {
      return validationFailed([{ field: 'expected_hash', message: `must be ${CONTENT_HASH_FORMAT}` }]);
    }
    const fileName = input.fileName?.trim() || null;
    if (fileName !== null && fileName.length > MAX_FILE_NAME_LENGTH) return validationFailed([{ field: 'file_path', message: `must be at most ${MAX_FILE_NAME_LENGTH} characters` }]);
    const hash = await hasher.start();
    const bytes = await readAtMost(input.body, maxBytes, hash);
    if (bytes === null) return fail('PAYLOAD.TOO_LARGE', `The file is larger than ${formatBytes(maxBytes)}`);
    if (bytes.length === 0) return problem('is empty');
    const contentHash = hash.digest();
    if (expected !== null && expected !== contentHash) {
      return fail('ASSET.HASH_MISMATCH', `The file's blake3 is ${contentHash}, not the expected ${expected}: nothing was stored`);
    }

    const real = sniffImageType(bytes);
    if (real === null) return problem('must be a PNG, JPEG or WebP image');
    const claimed = parseClaimedImageType(input.claimedMimeType);
    if (claimed === 'other') return problem(`is declared as ${String(input.claimedMimeType)}; only image/png, image/jpeg and image/webp are accepted`);
    if (claimed !== 'unspecified' && claimed !== real) return problem(`is declared as ${claimed} but its content is ${real}`);

    const header = await inspector.readHeader(bytes);
    if (header === null) return problem(`is not a readable ${real} image (no valid header)`);
    const pixels = header.width * header.height;
    if (pixels > maxImagePixels) {
      return problem(`is ${header.width}×${header.height} (${pixels} pixels), above the ${LIMIT_NAMES.maxImagePixels} (${maxImagePixels})`);
    }
    const dimensions = await inspector.inspect(bytes, maxImagePixels);
    if (dimensions === null) return problem(`is not a readable ${real} image (corrupt, truncated or too large in pixels)`);

    const id = ids.newId();
    const upload: Upload = {
      id,
      userId: input.userId,
      storageKey: `uploads/${input.userId}/${id}.${IMAGE_EXTENSION[real]}`,
      mimeType: real,
      width: dimensions.width,
      height: dimensions.height,
      sizeBytes: bytes.length,
      createdAt: clock.now(),
      contentHash,
      fileName,
      usedAt: null,
    };
    await saveUpload({ uploads, storage }, upload, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return ok(upload);
  }
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MB` : `${bytes} bytes`;
}
