/**
 * The order a queue hands out waiting jobs, so a job's position counts the jobs that really go before it
 * (ADR 037, amended). `arrival`: creation order, the lower id first at the same instant (RabbitMQ and SQS are
 * FIFO). `owner-turns`: every owner's first waiting job before any owner's second, and so on, each turn in
 * creation order (the database queue serves owners in turn, ADR 019): one user's burst does not stand in front
 * of another user's single job.
 */
export type QueueOrder = 'arrival' | 'owner-turns';

export interface QueuedInLine {
  id: string;
  userId: string;
  createdAt: Date;
}

const byArrival = (a: QueuedInLine, b: QueuedInLine): number => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The waiting jobs in the order the queue serves them (a new array; the input is left alone). */
export function serveOrder<T extends QueuedInLine>(jobs: readonly T[], order: QueueOrder): T[] {
  const arrived = [...jobs].sort(byArrival);
  if (order === 'arrival') return arrived;
  const turn = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const job of arrived) {
    const n = (seen.get(job.userId) ?? 0) + 1;
    seen.set(job.userId, n);
    turn.set(job.id, n);
  }
  return arrived.sort((a, b) => turn.get(a.id)! - turn.get(b.id)! || byArrival(a, b));
}
