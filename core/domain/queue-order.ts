/**
 * The order a queue hands out waiting jobs, so a job's position counts the jobs that really go before it
 * (ADR 037, amended). `arrival`: creation order, the lower id first at the same instant (RabbitMQ and SQS are
 * FIFO). `owner-turns`: by each job's `queueTurn`, each turn in creation order (the database queue serves owners in
 * turn, ADR 019 and 047): a job's turn is 1 + its owner's queued and running jobs when it was submitted, so one
 * user's burst does not stand in front of another user's single job, and a user whose jobs are running waits behind
 * users whose are not.
 */
export type QueueOrder = 'arrival' | 'owner-turns';

export interface QueuedInLine {
  id: string;
  createdAt: Date;
  queueTurn: number;
}

const byArrival = (a: QueuedInLine, b: QueuedInLine): number => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The waiting jobs in the order the queue serves them (a new array; the input is left alone). */
export function serveOrder<T extends QueuedInLine>(jobs: readonly T[], order: QueueOrder): T[] {
  const arrived = [...jobs].sort(byArrival);
  if (order === 'arrival') return arrived;
  return arrived.sort((a, b) => a.queueTurn - b.queueTurn || byArrival(a, b));
}
