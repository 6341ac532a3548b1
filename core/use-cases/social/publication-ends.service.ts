import { clientErrorText } from '../../domain/client-error-text.ts';
import type { SocialPlatform } from '../../domain/social.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { PublicationEnd } from '../../ports/publication-repository.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserEventLog } from '../events/user-event-log.service.ts';

export interface PublicationEndsDeps {
  uow: UnitOfWork;
  events: UserEventLog;
  clock: Clock;
  logger: Logger;
}

/** Longest error text kept on a publication (the platform's words, scrubbed). */
export const PUBLICATION_ERROR_MAX_CHARS = 2000;

/**
 * Ends a publication attempt and tells its owner, in one transaction: the end is a conditional write (this
 * attempt, still pending or uploading), and the `publish.completed` / `publish.failed` event exists exactly
 * when the end does, so a redelivered message or a racing dead-letter handler never reports twice.
 */
export class PublicationEnds {
  constructor(private readonly deps: PublicationEndsDeps) {}

  async end(target: { outputId: string; userId: string; platform: SocialPlatform; attemptId: string }, jobId: string, end: PublicationEnd): Promise<boolean> {
    const { uow, events, clock } = this.deps;
    const bounded: PublicationEnd = end.status === 'failed' ? { status: 'failed', error: clientErrorText(end.error, PUBLICATION_ERROR_MAX_CHARS) } : end;
    return uow.run(async (tx) => {
      if (!(await tx.publications.end(target.outputId, target.platform, target.attemptId, bounded, clock.now()))) return false;
      const base = { jobId, outputId: target.outputId, platform: target.platform };
      await events.record(
        tx,
        target.userId,
        bounded.status === 'published' ? { type: 'publish.completed', ...base, url: bounded.url } : { type: 'publish.failed', ...base, error: bounded.error },
      );
      return true;
    });
  }
}
