import type { Upload, UploadRepository } from '../../core/ports/upload-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

/** Stored and handed out as copies: a caller that changes its object (or a Date in it) changes no stored row. */
const copy = (upload: Upload): Upload => structuredClone(upload);

export class MemoryUploadRepository implements UploadRepository {
  private readonly uploads: Map<string, Upload>;

  constructor(private readonly store: MemoryStore) {
    this.uploads = store.table<Upload>('uploads');
  }

  async create(upload: Omit<Upload, 'usedAt'>): Promise<void> {
    // Like the foreign key: an upload needs its user.
    if (!this.store.users.has(upload.userId)) throw new Error(`no user ${upload.userId}`);
    if (this.live(upload.id)) throw new Error(`upload ${upload.id} already exists`);
    this.uploads.set(upload.id, copy({ ...upload, usedAt: null }));
  }

  async findForUser(id: string, userId: string): Promise<Upload | null> {
    const upload = this.live(id);
    return upload && upload.userId === userId ? copy(upload) : null;
  }

  async findByHashForUser(contentHash: string, userId: string): Promise<Upload | null> {
    const found = this.rows()
      .filter((upload) => upload.userId === userId && upload.contentHash === contentHash)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))[0];
    return found ? copy(found) : null;
  }

  async markUsed(id: string, at: Date): Promise<boolean> {
    const upload = this.live(id);
    if (!upload) return false;
    upload.usedAt ??= new Date(at);
    return true;
  }

  async listForUser(userId: string, limit: number): Promise<Upload[]> {
    return this.rows()
      .filter((upload) => upload.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .slice(0, limit).map(copy);
  }

  async listExpired(before: Date, limit = 500): Promise<Upload[]> {
    return this.rows()
      .filter((upload) => upload.usedAt === null && upload.createdAt.getTime() < before.getTime())
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit)
      .map(copy);
  }

  async delete(id: string, options: { onlyIfUnused?: boolean } = {}): Promise<boolean> {
    const upload = this.live(id);
    if (!upload || (options.onlyIfUnused && upload.usedAt !== null)) return false;
    return this.uploads.delete(id);
  }

  /** A row whose user was deleted is gone (the foreign key cascades in SQL). */
  private live(id: string): Upload | undefined {
    const upload = this.uploads.get(id);
    return upload && this.store.users.has(upload.userId) ? upload : undefined;
  }

  private rows(): Upload[] {
    return [...this.uploads.values()].filter((upload) => this.store.users.has(upload.userId));
  }
}
