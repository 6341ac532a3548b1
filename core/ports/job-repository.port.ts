import type { GenerationJob, JobError, JobStatus, TextOutput } from '../domain/job.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';

export type NewJob = Omit<GenerationJob, 'refundedCoins' | 'error' | 'textOutputs' | 'attempts' | 'startedAt' | 'finishedAt' | 'updatedAt'>;

export interface JobUpdate {
  progress?: { value: number; max: number };
  statusText?: string;
  error?: JobError | null;
  textOutputs?: TextOutput[];
  attempts?: number;
  startedAt?: Date;
  finishedAt?: Date;
}

export interface JobRepository {
  /** False when the id is taken. */
  create(job: NewJob): Promise<boolean>;
  findById(id: string): Promise<GenerationJob | null>;
  /** Null when the job is not this user's. */
  findForUser(id: string, userId: string): Promise<GenerationJob | null>;
  listForUser(userId: string, request: PageRequest): Promise<Page<GenerationJob>>;
  listActiveForUser(userId: string): Promise<GenerationJob[]>;
  /** Moves the job only when its status is one of `from`; false otherwise (someone else moved it). */
  transition(id: string, from: readonly JobStatus[], to: JobStatus, update: JobUpdate, at: Date): Promise<boolean>;
  /** Progress and status text while running; ignored once the job finished. */
  update(id: string, update: JobUpdate, at: Date): Promise<void>;
  /** Records the refund once: false when it was already refunded. */
  markRefunded(id: string, amount: number, at: Date): Promise<boolean>;
  countForTemplate(templateId: string): Promise<number>;
}
