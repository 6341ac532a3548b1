import type { Upload, UploadRepository } from '../../core/ports/upload-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

export class MemoryUploadRepository implements UploadRepository {
  private readonly uploads: Map<string, Upload>;

  constructor(store: MemoryStore) {
    this.uploads = store.table<Upload>('uploads');
  }

  async create(upload: Omit<Upload, 'usedAt'>): Promise<void> {
    if (this.uploads.has(upload.id)) throw new Error(`upload ${upload.id} already exists`);
    this.uploads.set(upload.id, { ...upload, usedAt: null });
  }

  async findForUser(id: string, userId: string): Promise<Upload | null> {
    const upload = this.uploads.get(id);
    return upload && upload.userId === userId ? { ...upload } : null;
  }

  async findByHashForUser(contentHash: string, userId: string): Promise<Upload | null> {
    const found = [...this.uploads.values()]
      .filter((upload) => upload.userId === userId && upload.contentHash === contentHash)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))[0];
    return found ? { ...found } : null;
  }

  async markUsed(id: string, at: Date): Promise<boolean> {
    const upload = this.uploads.get(id);
    if (!upload) return false;
    upload.usedAt ??= at;
    return true;
  }

  async listExpired(before: Date, limit = 500): Promise<Upload[]> {
    return [...this.uploads.values()]
      .filter((upload) => upload.usedAt === null && upload.createdAt.getTime() < before.getTime())
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit)
      .map((upload) => ({ ...upload }));
  }

  async delete(id: string, options: { onlyIfUnused?: boolean } = {}): Promise<boolean> {
    const upload = this.uploads.get(id);
    if (!upload || (options.onlyIfUnused && upload.usedAt !== null)) return false;
    return this.uploads.delete(id);
  }
}
