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
}

/**
 * The periodic pass that tells owners where their queued jobs stand (ADR 037): a `job.queue` event with position
 * and ETA, only for a job whose position changed since it was last announced. Events are stored and replayed, so
 * they are sent sparingly: at most one per job per pass, none while nothing moves. The announced position is a
 * guarded write in the event's transaction, so several processes running the pass announce each change once.
 */
export class AnnounceQueuePositions {
  constructor(private readonly deps: AnnounceQueuePositionsDeps) {}

  async execute(): Promise<number> {
    const { uow, jobs, queue, events } = this.deps;
    const queued = (await jobs.listByStatus(['queued'], { page: 1, limit: this.deps.maxJobs })).items;
    const owners = new Map(queued.map((job) => [job.id, job.userId]));
    let announced = 0;
    for (const { jobId, position, etaSeconds } of await queue.ofQueue(queued)) {
      const sent = await uow.run(async (tx) => {
        if (!(await tx.jobs.announcePosition(jobId, position))) return false;
        await events.record(tx, owners.get(jobId)!, { type: 'job.queue', jobId, position, etaSeconds });
        return true;
      });
      if (sent) announced += 1;
    }
    return announced;
  }
}
