import type { HistoryView, JobView } from './job-views.ts';

/**
 * Every event a user's sockets receive (API.md §6), one discriminated union shared by producers (the
 * generation use cases) and consumers (the WebSocket gateway, clients of the core). Each is stored with the
 * user's next `seq` in the same transaction as the change it reports, and fanned out after that commits.
 */
export type UserEvent =
  | { type: 'job.queued'; jobId: string; position?: number }
  // The job's place in the queue changed (ADR 037): sent by a periodic pass, only when `position` changed.
  | { type: 'job.queue'; jobId: string; position: number; etaSeconds: number | null }
  // `etaSeconds`: what should be left of it as it starts (its run estimate, ADR 037), null when no run time is known.
  | { type: 'job.started'; jobId: string; attempt: number; etaSeconds: number | null }
  | { type: 'job.status'; jobId: string; text: string }
  | { type: 'job.progress'; jobId: string; value: number; max: number; node?: string }
  | { type: 'job.output'; jobId: string; output: HistoryView }
  | { type: 'job.completed'; jobId: string; outputs: HistoryView[]; texts: string[] }
  | { type: 'job.failed'; jobId: string; error: { code: string; message: string; nodeId?: string }; refunded: number }
  | { type: 'job.cancelled'; jobId: string; refunded: number }
  // Not started before its start deadline (ADR 037): ended without running, refunded like a cancelled job.
  | { type: 'job.expired'; jobId: string; refunded: number }
  // Publishing an output (API.md §6); `jobId` is the output's job.
  | { type: 'publish.completed'; jobId: string; outputId: string; platform: string; url: string | null }
  | { type: 'publish.failed'; jobId: string; outputId: string; platform: string; error: string };

export type UserEventType = UserEvent['type'];

/** Sent on a socket only (never stored): the answer to `sync`. */
export interface JobSnapshotMessage {
  type: 'job.snapshot';
  jobs: JobView[];
}

export const USER_EVENT_TYPES: readonly UserEventType[] = [
  'job.queued',
  'job.queue',
  'job.started',
  'job.status',
  'job.progress',
  'job.output',
  'job.completed',
  'job.failed',
  'job.cancelled',
  'job.expired',
  'publish.completed',
  'publish.failed',
];
