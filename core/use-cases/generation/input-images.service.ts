import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { Transaction } from '../../ports/unit-of-work.port.ts';
import type { UploadRepository } from '../../ports/upload-repository.port.ts';

/** An image a job reads: one of the caller's uploads or outputs. */
export interface InputImage {
  id: string;
  storageKey: string;
  mimeType: string;
  kind: 'upload' | 'output';
}

/** The images a parameter of type `image` may name: the caller's own uploads and outputs, nobody else's. */
export class InputImages {
  constructor(private readonly deps: { uploads: UploadRepository; history: HistoryRepository }) {}

  /** Null when the id is neither an upload nor an output of this user. */
  async find(userId: string, id: string): Promise<InputImage | null> {
    const upload = await this.deps.uploads.findForUser(id, userId);
    if (upload) return { id, storageKey: upload.storageKey, mimeType: upload.mimeType, kind: 'upload' };
    const output = await this.deps.history.findForUser(id, userId);
    return output ? { id, storageKey: output.storageKey, mimeType: output.mimeType, kind: 'output' } : null;
  }

  /** A used upload no longer expires; in the transaction that creates the job using it. */
  async markUsed(tx: Transaction, image: InputImage, at: Date): Promise<void> {
    if (image.kind === 'upload') await tx.uploads.markUsed(image.id, at);
  }
}
