import type { Readable } from 'node:stream';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { Upload, UploadRepository } from '../../ports/upload-repository.port.ts';

/**
 * Stores a new upload's file, then its row. A row that cannot be written takes its file away again: no file is
 * left that no row names (the expiry sweep finds rows, not files).
 */
export async function saveUpload(deps: { uploads: UploadRepository; storage: ObjectStorage }, upload: Upload, body: Readable | Buffer): Promise<void> {
  await deps.storage.put(upload.storageKey, body, { contentType: upload.mimeType, contentLength: upload.sizeBytes });
  try {
    const { usedAt: _unused, ...row } = upload;
    await deps.uploads.create(row);
  } catch (error) {
    await deps.storage.delete(upload.storageKey).catch(() => undefined);
    throw error;
  }
}
