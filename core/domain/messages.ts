import { isUuid } from './ids.ts';
import type { GenerationJob } from './job.ts';

/**
 * The one catalogue of queue messages, shared by producers and consumers. A task type is added here
 * together with its handler (publishing joins when it has one).
 *
 * `generation`: the job id is what the worker acts on (the job row is the truth); the other fields are
 * the body API.md §5 promises to anyone reading the queue.
 */
export interface MessageCatalogue {
  generation: { jobId: string; userId: string; workflow: Record<string, unknown>; outputType: 'image' | 'video' };
}

export type TaskType = keyof MessageCatalogue;
export const TASK_TYPES: readonly TaskType[] = ['generation'];

export interface CatalogueMessage<T extends TaskType = TaskType> {
  taskType: T;
  environment: string;
  body: MessageCatalogue[T];
  messageId?: string;
  /** Whose work it is (see OutgoingMessage.fairnessKey). */
  fairnessKey?: string;
}

export const generationMessage = (job: Pick<GenerationJob, 'id' | 'userId' | 'workflow' | 'outputType'>, environment: string): CatalogueMessage<'generation'> => ({
  taskType: 'generation',
  environment,
  messageId: job.id,
  fairnessKey: job.userId,
  body: { jobId: job.id, userId: job.userId, workflow: job.workflow, outputType: job.outputType },
});

/** The job id of a delivered `generation` body, or null when the body is not one (it goes to the dead letters). */
export const generationJobId = (body: unknown): string | null => {
  const jobId = (body as { jobId?: unknown } | null)?.jobId;
  return isUuid(jobId) ? jobId.toLowerCase() : null;
};
