import type { Publication, SocialPlatform } from '../../core/domain/social.ts';
import type { HistoryItem } from '../../core/domain/job.ts';
import type { PublicationEnd, PublicationRepository } from '../../core/ports/publication-repository.port.ts';
import type { MemoryStore } from './memory-store.ts';

const keyOf = (outputId: string, platform: string) => `${outputId}\u0000${platform}`;
const copy = (publication: Publication): Publication => ({ ...publication, createdAt: new Date(publication.createdAt), updatedAt: new Date(publication.updatedAt) });

export class MemoryPublicationRepository implements PublicationRepository {
  private readonly publications: Map<string, Publication>;
  private readonly history: Map<string, HistoryItem>;

  constructor(private readonly store: MemoryStore) {
    this.publications = store.table<Publication>('publications');
    this.history = store.table<HistoryItem>('history_items');
  }

  async request(publication: Publication): Promise<{ started: boolean; publication: Publication }> {
    // Like the foreign keys: a publication needs its output and its user.
    if (!this.history.has(publication.outputId)) throw new Error(`no output ${publication.outputId}`);
    if (!this.store.users.has(publication.userId)) throw new Error(`no user ${publication.userId}`);
    const key = keyOf(publication.outputId, publication.platform);
    const existing = this.live(publication.outputId, publication.platform);
    if (existing && existing.status !== 'failed') return { started: false, publication: copy(existing) };
    const row: Publication = existing ? { ...publication, createdAt: existing.createdAt } : publication;
    this.publications.set(key, copy({ ...row, status: 'pending', url: null, error: null, remoteRef: null }));
    return { started: true, publication: copy(this.publications.get(key)!) };
  }

  async find(outputId: string, platform: SocialPlatform): Promise<Publication | null> {
    const found = this.live(outputId, platform);
    return found ? copy(found) : null;
  }

  async listForOutput(outputId: string): Promise<Publication[]> {
    return [...this.publications.values()].filter((p) => p.outputId === outputId && this.live(outputId, p.platform)).sort((a, b) => a.platform.localeCompare(b.platform)).map(copy);
  }

  async begin(outputId: string, platform: SocialPlatform, attemptId: string, now: Date): Promise<boolean> {
    const found = this.live(outputId, platform);
    if (!found || found.attemptId !== attemptId || (found.status !== 'pending' && found.status !== 'uploading')) return false;
    this.publications.set(keyOf(outputId, platform), { ...found, status: 'uploading', updatedAt: new Date(now) });
    return true;
  }

  async saveRemoteRef(outputId: string, platform: SocialPlatform, attemptId: string, remoteRef: string, now: Date): Promise<boolean> {
    const found = this.live(outputId, platform);
    if (!found || found.attemptId !== attemptId || found.status !== 'uploading') return false;
    this.publications.set(keyOf(outputId, platform), { ...found, remoteRef, updatedAt: new Date(now) });
    return true;
  }

  async end(outputId: string, platform: SocialPlatform, attemptId: string, end: PublicationEnd, now: Date): Promise<boolean> {
    const found = this.live(outputId, platform);
    if (!found || found.attemptId !== attemptId || (found.status !== 'pending' && found.status !== 'uploading')) return false;
    const result = end.status === 'published' ? { status: end.status, url: end.url, error: null } : { status: end.status, url: null, error: end.error };
    this.publications.set(keyOf(outputId, platform), { ...found, ...result, updatedAt: new Date(now) });
    return true;
  }

  /** A row whose output or user was deleted is gone (the foreign keys cascade in SQL). */
  private live(outputId: string, platform: SocialPlatform): Publication | undefined {
    const found = this.history.has(outputId) ? this.publications.get(keyOf(outputId, platform)) : undefined;
    return found && this.store.users.has(found.userId) ? found : undefined;
  }
}
