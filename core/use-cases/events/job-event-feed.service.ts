import type { GenerationJob } from '../../domain/job.ts';
import { isUuid } from '../../domain/ids.ts';
import { fail, ok, type Result } from '../../domain/result.ts';
import type { JobRepository } from '../../ports/job-repository.port.ts';
import { USER_EVENTS_CHANNEL, type EventBus, type StoredUserEvent, type UserEventEnvelope, type UserEventStore } from '../../ports/user-events.port.ts';

export interface JobEventFeedDeps {
  bus: EventBus;
  store: UserEventStore;
  jobs: JobRepository;
  /** Stored events read per page while replaying. */
  pageSize?: number;
}

/** One job's events as they happen, optionally after a replay of those stored after `since` (a seq of the owner's log). */
export interface JobFeed {
  /** The job as read after the live subscription began: no event later than this snapshot can be missed. */
  job: GenerationJob;
  /** Replays (when `since` was given), then delivers live events, each once and in seq order. */
  follow(deliver: (event: StoredUserEvent) => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * The event stream of one job (ADR 040): the owner's event log (ADR 011) filtered to the job. The live
 * subscription starts before the job is read and before the replay, and holds what arrives meanwhile, so a
 * client resuming with the last seq it saw gets everything after it exactly once.
 */
export class JobEventFeed {
  constructor(private readonly deps: JobEventFeedDeps) {}

  async open(input: { userId: string; jobId: string; since?: number }): Promise<Result<JobFeed>> {
    if (!isUuid(input.jobId)) return fail('NOT_FOUND', 'No such job');
    const jobId = input.jobId.toLowerCase();
    const { userId, since } = input;
    let deliver: ((event: StoredUserEvent) => void) | null = null;
    const held: StoredUserEvent[] = [];
    let lastSeq = since ?? -1;
    const forward = (event: StoredUserEvent) => {
      if (event.seq <= lastSeq) return;
      lastSeq = event.seq;
      deliver!(event);
    };
    const unsubscribe = await this.deps.bus.subscribe(USER_EVENTS_CHANNEL, (payload) => {
      const envelope = payload as UserEventEnvelope;
      if (envelope.userId !== userId || envelope.event?.jobId !== jobId) return;
      const event: StoredUserEvent = { userId, seq: envelope.seq, event: envelope.event, createdAt: new Date(envelope.createdAt) };
      if (deliver) forward(event);
      else held.push(event);
    });
    // Read after subscribing: only the owner's job is found, and its state is no older than the subscription.
    const job = await this.deps.jobs.findForUser(jobId, userId);
    if (!job) {
      await unsubscribe();
      return fail('NOT_FOUND', 'No such job');
    }
    const pageSize = this.deps.pageSize ?? 500;
    const store = this.deps.store;
    return ok({
      job,
      async follow(to) {
        const replayed: StoredUserEvent[] = [];
        if (since !== undefined) {
          for (let cursor = since; ; ) {
            const page = await store.listSince(userId, cursor, pageSize);
            replayed.push(...page.filter((stored) => stored.event.jobId === jobId));
            if (page.length < pageSize) break;
            cursor = page[page.length - 1]!.seq;
          }
        }
        deliver = to;
        for (const event of [...replayed, ...held.splice(0)].sort((a, b) => a.seq - b.seq)) forward(event);
      },
      close: () => unsubscribe(),
    });
  }
}
