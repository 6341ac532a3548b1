import type { JobRepository } from '../../ports/job-repository.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UserEventLog } from '../events/user-event-log.service.ts';
import type { QueueEstimates } from './queue-estimates.service.ts';

export interface AnnounceQueuePositionsDeps {
  uow: UnitOfWork;
  jobs: JobRepository;
  queue: QueueEstimates;
  events: UserEventLog;
  /** Only the first this many queued jobs are announced (the tail's position changes matter least). */
  maxJobs: number;
  /** Jobs announced per transaction; 25 by default. */
  batchSize?: number;
}

const DEFAULT_BATCH = 25;

/**
 * The periodic pass that tells owners where their queued jobs stand (ADR 037): a `job.queue` event with position
 * and ETA, only for a job whose position changed since it was last announced. Events are stored and replayed, so
 * they are sent sparingly: at most one per job per pass, none while nothing moves. The announced position is a
 * guarded write in the event's transaction, so several processes running the pass announce each change once.
 * Jobs are announced in batches, one transaction per batch (ADR 045): a batch commits or rolls back whole, and what
 * rolled back is announced by a later pass; a batch is small enough not to hold SQLite's writer for long.
 */
export class AnnounceQueuePositions {
  constructor(private readonly deps: AnnounceQueuePositionsDeps) {}

  async execute(): Promise<number> {
    const { uow, jobs, queue, events } = this.deps;
    const queued = (await jobs.listByStatus(['queued'], { page: 1, limit: this.deps.maxJobs })).items;
    const owners = new Map(queued.map((job) => [job.id, job.userId]));
    const positions = await queue.ofQueue(queued);
    const size = Math.max(1, this.deps.batchSize ?? DEFAULT_BATCH);
    let announced = 0;
    for (let start = 0; start < positions.length; start += size) {
      announced += await uow.run(async (tx) => {
        let sent = 0;
        for (const { jobId, position, etaSeconds } of positions.slice(start, start + size)) {
          if (!(await tx.jobs.announcePosition(jobId, position))) continue;
          await events.record(tx, owners.get(jobId)!, { type: 'job.queue', jobId, position, etaSeconds });
          sent += 1;
        }
        return sent;
      });
    }
    return announced;
  }
}
