import { publishMessage } from '../../domain/messages.ts';
import { fail, ok, validationFailed, type FieldProblem, type Result } from '../../domain/result.ts';
import {
  MAX_DESCRIPTION_CHARS,
  MAX_TITLE_CHARS,
  parsePlatform,
  platformName,
  PUBLICATION_PRIVACIES,
  type Publication,
  type PublicationPrivacy,
  type SocialPlatform,
} from '../../domain/social.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { HistoryRepository } from '../../ports/history-repository.port.ts';
import type { IdGenerator } from '../../ports/id-generator.port.ts';
import type { SocialConnectionRepository } from '../../ports/social-connection-repository.port.ts';
import type { SocialPlatforms } from '../../ports/social-platform.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { isUuid } from '../../domain/ids.ts';

export interface RequestPublicationDeps {
  uow: UnitOfWork;
  history: HistoryRepository;
  connections: SocialConnectionRepository;
  platforms: SocialPlatforms;
  ids: IdGenerator;
  clock: Clock;
  environment: string;
}

interface PublishRequestBody {
  platforms: SocialPlatform[];
  title: string | null;
  description: string;
  privacy: PublicationPrivacy;
}

const text = (value: unknown, field: string, max: number, problems: FieldProblem[]): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') problems.push({ field, message: 'must be a string' });
  else if (value.length > max) problems.push({ field, message: `must be at most ${max} characters` });
  else return value.trim();
  return null;
};

function parseBody(body: unknown, platforms: SocialPlatforms): Result<PublishRequestBody> {
  const value = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  const chosen: SocialPlatform[] = [];
  if (!Array.isArray(value.platforms) || value.platforms.length === 0 || value.platforms.length > 10) {
    problems.push({ field: 'platforms', message: 'must be a list of one or more platforms, such as ["YOUTUBE"]' });
  } else {
    value.platforms.forEach((name: unknown, index) => {
      const platform = parsePlatform(name);
      if (!platform) problems.push({ field: `platforms[${index}]`, message: `unknown platform ${JSON.stringify(name)} (supported: YOUTUBE, TIKTOK)` });
      else if (!platforms.get(platform)) problems.push({ field: `platforms[${index}]`, message: `${platformName(platform)} is not configured on this server` });
      else if (!chosen.includes(platform)) chosen.push(platform);
    });
  }
  const title = text(value.title, 'title', MAX_TITLE_CHARS, problems);
  const description = text(value.description, 'description', MAX_DESCRIPTION_CHARS, problems) ?? '';
  let privacy: PublicationPrivacy = 'private';
  if (value.privacy !== undefined) {
    if (!PUBLICATION_PRIVACIES.includes(value.privacy as PublicationPrivacy)) problems.push({ field: 'privacy', message: `must be one of ${PUBLICATION_PRIVACIES.join(', ')}` });
    else privacy = value.privacy as PublicationPrivacy;
  }
  if (privacy === 'unlisted' && chosen.includes('TIKTOK')) problems.push({ field: 'privacy', message: 'TIKTOK has no unlisted posts (use private or public)' });
  return problems.length > 0 ? validationFailed(problems) : ok({ platforms: chosen, title, description, privacy });
}

/** A title from the file name when none is given: "sunset_00001_.mp4" → "sunset_00001_". */
const defaultTitle = (fileName: string): string => (fileName.replace(/\.[^.]+$/, '') || 'Untitled').slice(0, MAX_TITLE_CHARS);

/**
 * `POST /my-outputs/{id}/publish`: checks the output (the caller's, a video) and that every platform is
 * connected, then, in one transaction, records a publication per platform and puts one `publish` message per
 * platform on the queue (through the outbox). A platform already being published or published keeps its
 * publication and gets no second message; a failed one starts a new attempt.
 */
export class RequestPublication {
  constructor(private readonly deps: RequestPublicationDeps) {}

  async execute(input: { userId: string; outputId: string; body: unknown }): Promise<Result<{ message: string; started: SocialPlatform[] }>> {
    const { deps } = this;
    const item = isUuid(input.outputId) ? await deps.history.findForUser(input.outputId.toLowerCase(), input.userId) : null;
    if (!item) return fail('NOT_FOUND', 'No such output');
    const parsed = parseBody(input.body, deps.platforms);
    if (!parsed.ok) return parsed;
    const request = parsed.value;
    const problems: FieldProblem[] = [];
    if (!item.mimeType.startsWith('video/')) problems.push({ field: 'platforms', message: `${request.platforms.map(platformName).join(' and ')} accept${request.platforms.length === 1 ? 's' : ''} videos only; this output is ${item.mimeType}` });
    const connected = new Set((await deps.connections.listForUser(input.userId)).map((connection) => connection.platform));
    for (const platform of request.platforms) if (!connected.has(platform)) problems.push({ field: 'platforms', message: `${platformName(platform)} is not connected: connect it first (GET /connect/${platform.toLowerCase()})` });
    if (problems.length > 0) return validationFailed(problems, problems.map((problem) => problem.message).join('; '));

    const now = deps.clock.now();
    const outcome = await deps.uow.run(async (tx) => {
      const started: SocialPlatform[] = [];
      const kept: Publication[] = [];
      for (const platform of request.platforms) {
        const publication: Publication = {
          outputId: item.id,
          userId: input.userId,
          platform,
          status: 'pending',
          attemptId: deps.ids.newId(),
          // An empty title counts as none: YouTube refuses a video without a title (invalidTitle), after the request was accepted.
          title: request.title || defaultTitle(item.fileName),
          description: request.description,
          privacy: request.privacy,
          url: null,
          error: null,
          remoteRef: null,
          createdAt: now,
          updatedAt: now,
        };
        const result = await tx.publications.request(publication);
        if (!result.started) {
          kept.push(result.publication);
          continue;
        }
        started.push(platform);
        await tx.outbox.add({ id: deps.ids.newId(), createdAt: now, message: publishMessage(result.publication, deps.environment) });
      }
      return { started, kept };
    });
    const parts = [
      outcome.started.length > 0 ? `Publishing to ${outcome.started.map(platformName).join(' and ')} has started` : null,
      ...outcome.kept.map((publication) => (publication.status === 'published' ? `already published to ${platformName(publication.platform)}` : `${platformName(publication.platform)} is already in progress`)),
    ].filter((part): part is string => part !== null);
    const message = parts.join('; ');
    return ok({ message: message.charAt(0).toUpperCase() + message.slice(1), started: outcome.started });
  }
}
