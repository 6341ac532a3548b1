import type { HistoryItem } from '../../domain/job.ts';
import { backoffSeconds } from '../../domain/message-delivery.ts';
import { publishTarget } from '../../domain/messages.ts';
import { platformName, type Publication, type SocialPlatform } from '../../domain/social.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { ObjectStorage } from '../../ports/object-storage.port.ts';
import type { PublicationRepository } from '../../ports/publication-repository.port.ts';
import type { DeliveredMessage, HandlerOutcome } from '../../ports/queue.port.ts';
import { PlatformError, type PublishFile, type SocialPlatforms } from '../../ports/social-platform.port.ts';
import type { ConnectionTokens } from './connection-tokens.service.ts';
import type { PublicationEnds } from './publication-ends.service.ts';


export interface RunPublicationDeps {
  publications: PublicationRepository;
  history: HistoryRepository;
  storage: ObjectStorage;
  platforms: SocialPlatforms;
  tokens: ConnectionTokens;
  ends: PublicationEnds;
  clock: Clock;
  logger: Logger;
  maxAttempts: number;
  visibilitySeconds: number;
}

/** Thrown by saveRemoteRef when the attempt is no longer this message's to work on. */
class AttemptLost extends Error {}

/** The stored file from `start` on (a resumed upload sends the rest only). */
async function readFrom(storage: ObjectStorage, key: string, start: number): Promise<AsyncIterable<Uint8Array>> {
  const object = await storage.get(key);
  if (!object) throw new PlatformError('rejected', 'the output file is no longer stored');
  let skip = start;
  async function* rest(): AsyncGenerator<Uint8Array> {
    for await (const chunk of object!.body as AsyncIterable<Uint8Array>) {
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      yield skip > 0 ? chunk.subarray(skip) : chunk;
      skip = 0;
    }
  }
  return rest();
}

/**
 * The worker's `publish` handler: posts one output to one platform for the attempt its message names.
 * The publication row is the truth: a message whose attempt ended (or was replaced) is acknowledged
 * without a call to the platform; an attempt that a dead worker began resumes from its saved upload
 * reference instead of posting again. Transient failures are retried with back-off up to MAX_ATTEMPTS;
 * a refused authorization is refreshed once, then reported.
 */
export class RunPublication {
  constructor(private readonly deps: RunPublicationDeps) {}

  async execute(message: DeliveredMessage): Promise<HandlerOutcome> {
    const target = publishTarget(message.body);
    if (!target) return { action: 'dead', reason: 'not a publish message body' };
    const { deps } = this;
    const publication = await deps.publications.find(target.outputId, target.platform);
    if (!publication || publication.attemptId !== target.attemptId || publication.status === 'published' || publication.status === 'failed') return { action: 'ack' };
    if (!(await deps.publications.begin(target.outputId, target.platform, target.attemptId, deps.clock.now()))) return { action: 'ack' };
    const item = await deps.history.findForUser(target.outputId, target.userId);
    if (!item) {
      // The output was deleted (its publications with it): nothing to post, nobody to tell.
      return { action: 'ack' };
    }
    const heartbeat = setInterval(
      () => void message.extendVisibility(deps.visibilitySeconds).catch((error: unknown) => deps.logger.warn('publish heartbeat: visibility not extended', { outputId: target.outputId, error: String(error) })),
      Math.max(1000, (deps.visibilitySeconds * 1000) / 3),
    );
    try {
      const { url } = await this.post(publication, item, target);
      await deps.ends.end(target, item.jobId, { status: 'published', url });
      deps.logger.info('output published', { outputId: target.outputId, platform: target.platform, attempt: message.attempt });
      return { action: 'ack' };
    } catch (error) {
      if (error instanceof AttemptLost) return { action: 'ack' };
      return this.failed(message, target, item, error);
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async post(publication: Publication, item: HistoryItem, target: { outputId: string; userId: string; platform: SocialPlatform; attemptId: string }) {
    const { deps } = this;
    const client = deps.platforms.get(target.platform);
    if (!client) throw new PlatformError('rejected', `${platformName(target.platform)} is no longer configured on this server`);
    const head = await deps.storage.head(item.storageKey);
    if (!head) throw new PlatformError('rejected', 'the output file is no longer stored');
    const file: PublishFile = { sizeBytes: head.sizeBytes, contentType: item.mimeType, fileName: item.fileName, read: (start) => readFrom(deps.storage, item.storageKey, start) };
    let remoteRef = publication.remoteRef;
    const attempt = async (accessToken: string) =>
      client.publish({
        accessToken,
        file,
        title: publication.title,
        description: publication.description,
        privacy: publication.privacy,
        remoteRef,
        saveRemoteRef: async (ref) => {
          if (!(await deps.publications.saveRemoteRef(target.outputId, target.platform, target.attemptId, ref, deps.clock.now()))) throw new AttemptLost();
          remoteRef = ref;
        },
      });
    try {
      return await attempt(await deps.tokens.accessToken(target.userId, target.platform));
    } catch (error) {
      // A token the platform no longer takes before its expiry (revoked and granted again, say): refresh once.
      if (!(error instanceof PlatformError) || error.kind !== 'unauthorized') throw error;
      return attempt(await deps.tokens.accessToken(target.userId, target.platform, { forceRefresh: true }));
    }
  }

  private async failed(message: DeliveredMessage, target: { outputId: string; userId: string; platform: SocialPlatform; attemptId: string }, item: HistoryItem, error: unknown): Promise<HandlerOutcome> {
    const { deps } = this;
    const text = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof PlatformError && error.kind !== 'transient';
    if (!permanent && message.attempt < deps.maxAttempts) {
      const platformWait = error instanceof PlatformError ? (error.retryAfterSeconds ?? 0) : 0;
      deps.logger.warn('publish failed; retrying', { outputId: target.outputId, platform: target.platform, attempt: message.attempt, error: text });
      return { action: 'retry', delaySeconds: Math.max(backoffSeconds(message.attempt), platformWait) };
    }
    const reason =
      error instanceof PlatformError && error.kind === 'unauthorized'
        ? `${platformName(target.platform)} refused the authorization (${text}); connect ${platformName(target.platform)} again`
        : permanent
          ? text
          : `${text} (gave up after ${message.attempt} attempts)`;
    deps.logger.warn('publish failed', { outputId: target.outputId, platform: target.platform, attempt: message.attempt, error: text });
    await deps.ends.end(target, item.jobId, { status: 'failed', error: reason });
    return { action: 'ack' };
  }
}

export interface FailDeadLetteredPublicationDeps {
  history: HistoryRepository;
  ends: PublicationEnds;
  logger: Logger;
}

/** The queue's `onDeadLetter` for `publish` messages: the attempt ends as failed (and its owner hears of it), unless it ended already. */
export class FailDeadLetteredPublication {
  constructor(private readonly deps: FailDeadLetteredPublicationDeps) {}

  async execute(message: DeliveredMessage, reason: string): Promise<void> {
    const target = publishTarget(message.body);
    if (!target) return;
    const item = await this.deps.history.findForUser(target.outputId, target.userId);
    if (!item) return;
    if (await this.deps.ends.end(target, item.jobId, { status: 'failed', error: `Gave up on this publication: ${reason}` })) {
      this.deps.logger.warn('dead-lettered publication failed', { outputId: target.outputId, platform: target.platform, reason });
    }
  }
}

/** `GET /my-outputs/{id}/publications`. */
export const publicationView = (publication: Publication) => ({
  platform: publication.platform,
  status: publication.status,
  ...(publication.url ? { url: publication.url } : {}),
  ...(publication.error ? { error: publication.error } : {}),
  updatedAt: publication.updatedAt.toISOString(),
});
