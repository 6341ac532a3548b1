import type { HistoryItem } from '../../domain/job.ts';
import { parsePageRequest, type Page } from '../../domain/pagination.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { TemplateRepository } from '../../ports/template-repository.port.ts';
import { historyItemView, type HistoryView } from './history-view.service.ts';
import { isUuid } from '../../domain/ids.ts';

export interface HistoryDeps {
  history: HistoryRepository;
  /** Names the template of each listed output. */
  templates: Pick<TemplateRepository, 'namesOf'>;
  storage: ObjectStorage;
  clock: Clock;
  logger: Logger;
  viewUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
}

/** The caller's outputs: a page of them, short-lived links, deletion, and the retention sweep. */
/** A listed output with its template's name: the current name of a live template, null once it is deleted. */
export type HistoryListItem = HistoryView & { templateName: string | null };

export class OutputHistory {
  constructor(private readonly deps: HistoryDeps) {}

  viewUrl = (item: HistoryItem): Promise<string> =>
    this.deps.storage.signedUrl(item.storageKey, {
      expiresInSeconds: this.deps.viewUrlTtlSeconds,
      disposition: 'inline',
      fileName: item.fileName,
      contentType: item.mimeType,
    });

  async list(input: { userId: string; page?: unknown; limit?: unknown }): Promise<Result<Page<HistoryListItem>>> {
    const request = parsePageRequest(input);
    if (!request.ok) return request;
    const page = await this.deps.history.listForUser(input.userId, request.value);
    const names = await this.deps.templates.namesOf([...new Set(page.items.flatMap((item) => (item.templateId ? [item.templateId] : [])))]);
    const items = await Promise.all(
      page.items.map(async (item) => ({ ...(await historyItemView(item, this.viewUrl)), templateName: (item.templateId && names.get(item.templateId)) ?? null })),
    );
    return ok({ ...page, items });
  }

  async link(input: { userId: string; outputId: string; kind: 'view' | 'download' }): Promise<Result<string>> {
    const item = await this.find(input.userId, input.outputId);
    if (!item) return fail('NOT_FOUND', 'No such output');
    if (input.kind === 'view') return ok(await this.viewUrl(item));
    return ok(
      await this.deps.storage.signedUrl(item.storageKey, {
        expiresInSeconds: this.deps.downloadUrlTtlSeconds,
        disposition: 'attachment',
        fileName: item.fileName,
        contentType: item.mimeType,
      }),
    );
  }

  async delete(input: { userId: string; outputId: string }): Promise<Result<void>> {
    const item = await this.find(input.userId, input.outputId);
    if (!item) return fail('NOT_FOUND', 'No such output');
    await this.remove(item);
    return ok(undefined);
  }

  /** Deletes outputs past their retention; returns how many went. One that cannot be deleted now is left for the next sweep. */
  async sweepExpired(max = 500): Promise<number> {
    const expired = await this.deps.history.listExpired(this.deps.clock.now(), max);
    let deleted = 0;
    for (const item of expired) {
      try {
        await this.remove(item);
        deleted += 1;
      } catch (error) {
        this.deps.logger.warn('expired output not deleted; the next sweep retries', { outputId: item.id, key: item.storageKey, error: String(error) });
      }
    }
    if (deleted > 0) this.deps.logger.info('expired outputs deleted', { count: deleted });
    return deleted;
  }

  find(userId: string, outputId: string): Promise<HistoryItem | null> {
    return isUuid(outputId) ? this.deps.history.findForUser(outputId.toLowerCase(), userId) : Promise.resolve(null);
  }

  /** File first: a record without its file would be a broken link, a file without a record is swept again. */
  private async remove(item: HistoryItem): Promise<void> {
    await this.deps.storage.delete(item.storageKey);
    await this.deps.history.delete(item.id);
  }
}
