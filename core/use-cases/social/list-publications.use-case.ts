import { isUuid } from '../../domain/ids.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { PublicationRepository } from '../../ports/publication-repository.port.ts';
import { publicationView } from './run-publication.use-case.ts';

/** `GET /my-outputs/{id}/publications`: the caller's output's publications, one per platform. */
export class ListPublications {
  constructor(private readonly deps: { history: HistoryRepository; publications: PublicationRepository }) {}

  async execute(input: { userId: string; outputId: string }): Promise<Result<ReturnType<typeof publicationView>[]>> {
    const item = isUuid(input.outputId) ? await this.deps.history.findForUser(input.outputId.toLowerCase(), input.userId) : null;
    if (!item) return fail('NOT_FOUND', 'No such output');
    return ok((await this.deps.publications.listForOutput(item.id)).map(publicationView));
  }
}
