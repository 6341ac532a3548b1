import { isUuid } from './ids.ts';
import type { GenerationJob } from './job.ts';
import { parsePlatform, type SocialPlatform } from './social.ts';

/**
 * The one catalogue of queue messages, shared by producers and consumers. A task type is added here
 * together with its handler (publishing joins when it has one).
 *
 * `generation`: the job id is what the worker acts on (the job row is the truth); the other fields are
 * the body API.md §5 promises to anyone reading the queue.
 *
 * `publish`: one message per (output, platform), API.md §5's body `{outputId, userId, platforms}` with the one
 * platform, plus the publication attempt it is for (the publication row is the truth).
 */
export interface MessageCatalogue {
  generation: { jobId: string; userId: string; workflow: Record<string, unknown>; outputType: 'image' | 'video' };
  publish: { outputId: string; userId: string; platforms: [SocialPlatform]; attemptId: string };
}

export type TaskType = keyof MessageCatalogue;
export const TASK_TYPES: readonly TaskType[] = ['generation', 'publish'];

export interface CatalogueMessage<T extends TaskType = TaskType> {
  taskType: T;
  environment: string;
  body: MessageCatalogue[T];
  messageId?: string;
  /** Whose work it is (see OutgoingMessage.fairnessKey). */
  fairnessKey?: string;
  /** Its place among that owner's (see OutgoingMessage.fairnessTurn). */
  fairnessTurn?: number;
}

export const generationMessage = (job: Pick<GenerationJob, 'id' | 'userId' | 'workflow' | 'outputType' | 'queueTurn'>, environment: string): CatalogueMessage<'generation'> => ({
  taskType: 'generation',
  environment,
  messageId: job.id,
  fairnessKey: job.userId,
  fairnessTurn: job.queueTurn,
  body: { jobId: job.id, userId: job.userId, workflow: job.workflow, outputType: job.outputType },
});

/** The job id of a delivered `generation` body, or null when the body is not one (it goes to the dead letters). */
export const generationJobId = (body: unknown): string | null => {
  const jobId = (body as { jobId?: unknown } | null)?.jobId;
  return isUuid(jobId) ? jobId.toLowerCase() : null;
};

export const publishMessage = (
  publication: { outputId: string; userId: string; platform: SocialPlatform; attemptId: string },
  environment: string,
): CatalogueMessage<'publish'> => ({
  taskType: 'publish',
  environment,
  messageId: publication.attemptId,
  fairnessKey: publication.userId,
  body: { outputId: publication.outputId, userId: publication.userId, platforms: [publication.platform], attemptId: publication.attemptId },
});

/** A delivered `publish` body, or null when it is not one (it goes to the dead letters). */
export const publishTarget = (body: unknown): { outputId: string; userId: string; platform: SocialPlatform; attemptId: string } | null => {
  const value = body as { outputId?: unknown; userId?: unknown; platforms?: unknown; attemptId?: unknown } | null;
  if (typeof value !== 'object' || value === null) return null;
  const platform = Array.isArray(value.platforms) && value.platforms.length === 1 ? parsePlatform(value.platforms[0]) : null;
  if (!platform || !isUuid(value.outputId) || !isUuid(value.userId) || !isUuid(value.attemptId)) return null;
  return { outputId: value.outputId.toLowerCase(), userId: value.userId.toLowerCase(), platform, attemptId: value.attemptId.toLowerCase() };
};
