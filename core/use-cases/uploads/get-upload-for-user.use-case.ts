import { fail, ok, type Result } from '../../domain/result.ts';
import type { Upload, UploadRepository } from '../../ports/upload-repository.port.ts';
import { isUuid } from '../../domain/ids.ts';

/** One of the caller's uploads. Another user's id is NOT_FOUND, exactly like an unknown one. */
export class GetUploadForUser {
  constructor(private readonly deps: { uploads: UploadRepository }) {}

  async execute(input: { userId: string; uploadId: unknown }): Promise<Result<Upload>> {
    if (!isUuid(input.uploadId)) return fail('NOT_FOUND', 'Upload not found');
    const upload = await this.deps.uploads.findForUser(input.uploadId.toLowerCase(), input.userId);
    return upload ? ok(upload) : fail('NOT_FOUND', 'Upload not found');
  }
}
