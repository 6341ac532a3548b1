import { CONTENT_HASH_FORMAT, parseContentHash } from '../../domain/content-hash.ts';
import { IMAGE_EXTENSION, type ImageMimeType } from '../../domain/image-type.ts';
import { isUuid } from '../../domain/ids.ts';
import { isFinished } from '../../domain/job.ts';
import { fail, ok, validationFailed, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { Upload, UploadRepository } from '../../ports/upload-repository.port.ts';
import { saveUpload } from './save-upload.service.ts';
import { MAX_FILE_NAME_LENGTH } from './store-upload.use-case.ts';

/**
 * Uploads as Comfy API v2 assets (ADR 042): found by content hash, minted again from a hash without the bytes,
 * downloaded, deleted. Every lookup is by owner: another user's upload is never found, whatever its hash.
 */

const badHash = () => validationFailed([{ field: 'hash', message: `must be ${CONTENT_HASH_FORMAT}` }]);
const NO_BYTES = 'You have no upload with these bytes';

/** The caller's newest upload with this content hash. */
export class FindUploadByHash {
  constructor(private readonly deps: { uploads: UploadRepository }) {}

  async execute(input: { userId: string; hash: unknown }): Promise<Result<Upload>> {
    const hash = parseContentHash(input.hash);
    if (hash === null) return badHash();
    const upload = await this.deps.uploads.findByHashForUser(hash, input.userId);
    return upload ? ok(upload) : fail('NOT_FOUND', NO_BYTES);
  }
}

export interface MintUploadFromHashDeps {
  uploads: UploadRepository;
  storage: ObjectStorage;
  ids: IdGenerator;
  clock: Clock;
}

/**
 * A new upload of the caller's over bytes they already uploaded, found by hash: the client sends no bytes. The
 * stored file is copied on the server, so each upload owns its file and deleting one never touches another's.
 */
export class MintUploadFromHash {
  constructor(private readonly deps: MintUploadFromHashDeps) {}

  async execute(input: { userId: string; hash: unknown; fileName?: unknown }): Promise<Result<Upload>> {
    const { uploads, storage, ids, clock } = this.deps;
    const hash = parseContentHash(input.hash);
    if (hash === null) return badHash();
    if (input.fileName !== undefined && (typeof input.fileName !== 'string' || input.fileName.length > MAX_FILE_NAME_LENGTH)) {
      return validationFailed([{ field: 'file_path', message: `must be a string of at most ${MAX_FILE_NAME_LENGTH} characters` }]);
    }
    const source = await uploads.findByHashForUser(hash, input.userId);
    if (!source) return fail('NOT_FOUND', NO_BYTES);
    const stored = await storage.get(source.storageKey);
    if (!stored) return fail('NOT_FOUND', NO_BYTES);
    const id = ids.newId();
    const { usedAt: _used, ...copy } = source;
    const upload: Upload = {
      ...copy,
      id,
      storageKey: `uploads/${input.userId}/${id}.${IMAGE_EXTENSION[source.mimeType as ImageMimeType] ?? 'bin'}`,
      createdAt: clock.now(),
      fileName: (input.fileName as string | undefined)?.trim() || source.fileName,
      usedAt: null,
    };
    await saveUpload({ uploads, storage }, upload, stored.body);
    return ok(upload);
  }
}

/** A short-lived signed URL of the caller's upload's file (an attachment under its file name). */
export class UploadDownloadUrl {
  constructor(private readonly deps: { uploads: UploadRepository; storage: ObjectStorage; ttlSeconds: number }) {}

  async execute(input: { userId: string; uploadId: string }): Promise<Result<string>> {
    const upload = isUuid(input.uploadId) ? await this.deps.uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;
    if (!upload) return fail('NOT_FOUND', 'No such asset');
    const extension = IMAGE_EXTENSION[upload.mimeType as ImageMimeType] ?? 'bin';
    return ok(
      await this.deps.storage.signedUrl(upload.storageKey, {
        expiresInSeconds: this.deps.ttlSeconds,
        disposition: 'attachment',
        fileName: upload.fileName ?? `${upload.id}.${extension}`,
        contentType: upload.mimeType,
      }),
    );
  }
}

/**
 * Deletes one of the caller's uploads, its file first (a row left without its file can be deleted again; a file
 * left without its row could not be found). Refused while a queued or running job of theirs reads it.
 */
export class DeleteUpload {
  constructor(private readonly deps: { uploads: UploadRepository; jobs: JobRepository; storage: ObjectStorage }) {}

  async execute(input: { userId: string; uploadId: string }): Promise<Result<void>> {
    const { uploads, jobs, storage } = this.deps;
    const upload = isUuid(input.uploadId) ? await uploads.findForUser(input.uploadId.toLowerCase(), input.userId) : null;
    if (!upload) return fail('NOT_FOUND', 'No such asset');
    const active = await jobs.listActiveForUser(input.userId);
    if (active.some((job) => !isFinished(job.status) && job.imageRefs.some((ref) => ref.id === upload.id))) {
      return fail('ASSET.IN_USE', 'A queued or running job reads this asset; delete it once the job has ended');
    }
    await storage.delete(upload.storageKey);
    await uploads.delete(upload.id);
    return ok(undefined);
  }
}
