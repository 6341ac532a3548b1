/**
 * Which waiting job a free GPU server takes (ADR 044). Pure: the pool gives it the jobs waiting for a slot that
 * this server can run, the model files the server ran last, who was served when, and the time.
 *
 * `fair` is delay scheduling over a per-user round robin:
 *  1. a job that has been passed over for at least `maxSkipMs` goes first (the one passed over longest, then the
 *     oldest);
 *  2. else the fair order: users by when they were last given a server (never first, then the least recently;
 *     ties by their oldest waiting job), each user's jobs oldest first. The first job in that order whose model
 *     files the server has loaded takes it (no model load);
 *  3. else, when no waiting job's models are loaded, the first job of the fair order.
 * A job taken in 2 ahead of others passes them over: the first job of each user ahead of its owner, and its owner's
 * older job, start their clock (`skippedSince`), so no job waits behind loaded models for more than `maxSkipMs`.
 *
 * `shortest-queue` is plain arrival order (the free server was already the one with the shortest queue).
 */

export type DispatchPolicyName = 'fair' | 'shortest-queue';

export const DISPATCH_POLICIES: readonly DispatchPolicyName[] = ['fair', 'shortest-queue'];

export interface WaitingJob {
  id: string;
  userId: string;
  /** The model files it loads (checkpoints, LoRAs, VAEs...); empty when it loads none. */
  models: readonly string[];
  /** Arrival order at the pool (lower came first). */
  order: number;
  /** When it was first passed over for a job with loaded models (ms), or null. */
  skippedSince: number | null;
}

export interface DispatchInput {
  waiting: readonly WaitingJob[];
  /** The model files of the last job this server ran that loaded any. */
  loaded: readonly string[];
  /** When each user was last given a server, as an increasing serial; a user absent was never served. */
  lastServed: ReadonlyMap<string, number>;
  now: number;
  maxSkipMs: number;
}

export interface DispatchChoice {
  id: string;
  reason: 'overdue' | 'loaded' | 'fair' | 'arrival';
  /** Jobs this choice passes over (their clock starts unless it runs already). */
  skipped: string[];
}

/** Whether a job needs no model the server lacks (a job that loads none never does). */
export const hasModelsLoaded = (job: Pick<WaitingJob, 'models'>, loaded: readonly string[]): boolean => job.models.every((model) => loaded.includes(model));

const byOrder = (a: WaitingJob, b: WaitingJob): number => a.order - b.order;

/** The waiting jobs in fair order: users least recently served first (never served before any), each user's oldest first. */
export const fairOrder = (waiting: readonly WaitingJob[], lastServed: ReadonlyMap<string, number>): WaitingJob[][] => {
  const byUser = new Map<string, WaitingJob[]>();
  for (const job of [...waiting].sort(byOrder)) byUser.set(job.userId, [...(byUser.get(job.userId) ?? []), job]);
  const served = (userId: string): number => lastServed.get(userId) ?? -1;
  return [...byUser.values()].sort((a, b) => served(a[0]!.userId) - served(b[0]!.userId) || a[0]!.order - b[0]!.order);
};

export const chooseFair = (input: DispatchInput): DispatchChoice | null => {
  const { waiting, loaded, lastServed, now, maxSkipMs } = input;
  if (waiting.length === 0) return null;
  const overdue = waiting.filter((job) => job.skippedSince !== null && now - job.skippedSince >= maxSkipMs);
  if (overdue.length > 0) {
    const first = [...overdue].sort((a, b) => a.skippedSince! - b.skippedSince! || a.order - b.order)[0]!;
    return { id: first.id, reason: 'overdue', skipped: [] };
  }
  const users = fairOrder(waiting, lastServed);
  for (const [index, jobs] of users.entries()) {
    const ready = jobs.find((job) => hasModelsLoaded(job, loaded));
    if (!ready) continue;
    const skipped = [...users.slice(0, index).map((ahead) => ahead[0]!.id), ...(ready === jobs[0] ? [] : [jobs[0]!.id])];
    return { id: ready.id, reason: skipped.length === 0 ? 'fair' : 'loaded', skipped };
  }
  return { id: users[0]![0]!.id, reason: 'fair', skipped: [] };
};

export const chooseByArrival = (input: Pick<DispatchInput, 'waiting'>): DispatchChoice | null => {
  const first = [...input.waiting].sort(byOrder)[0];
  return first ? { id: first.id, reason: 'arrival', skipped: [] } : null;
};

export const chooseJob = (policy: DispatchPolicyName, input: DispatchInput): DispatchChoice | null =>
  policy === 'fair' ? chooseFair(input) : chooseByArrival(input);
