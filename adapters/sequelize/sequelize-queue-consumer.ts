import { randomUUID } from 'node:crypto';
import type { WhereOptions } from 'sequelize';
import { describeError, expiredReason, settlementOf, WakeableSleep, type BackoffPolicy, type Settlement } from '../../core/domain/message-delivery.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { ConsumeOptions, Consumer, DeliveredMessage, HandlerOutcome, TraceCarrier } from '../../core/ports/queue.port.ts';
import type { Transaction } from '../../core/ports/unit-of-work.port.ts';
import type { SequelizeDatabase } from './sequelize-database.ts';
import { selectRows, sqlTime } from './sql-scope.ts';
import { queueMessageModel, type QueueMessageRow } from './sequelize-message-queue.ts';
import { sqlScopeOf } from './sequelize-unit-of-work.ts';

export interface QueueConsumerDeps {
  db: SequelizeDatabase;
  clock: Clock;
  logger: Logger;
  pollIntervalMs: number;
  backoff: BackoffPolicy;
  onStopped(consumer: SequelizeQueueConsumer): void;
}

/** Whether a delivery's ack committed with the handler's own transaction (`ackWith`), which makes its settle needless. */
interface AckState {
  committed: boolean;
}

export type Candidate = Pick<QueueMessageRow, 'id' | 'message_id' | 'task_type' | 'environment' | 'body' | 'attempts' | 'trace'>;

/** Hints kept at most: beyond that the poll finds the rest. */
const MAX_HINTS = 64;

const later = (from: Date, seconds: number): Date => new Date(from.getTime() + Math.round(seconds * 1000));

/**
 * The take: claims the message for `claim.token` only while it is as the candidate showed it: still ready, its
 * attempts unchanged (no rival took it since it was read), and visible at `now`. Plain SQL (`run`): made for every
 * message. Answers whether this delivery holds it now.
 */
export async function claimMessage(
  db: SequelizeDatabase,
  candidate: { id: string; attempts: number },
  claim: { token: string; takenAt: Date; visibleUntil: Date; attempts: number },
  now: Date,
): Promise<boolean> {
  const changed = await db.autocommit.run(
    "UPDATE queue_messages SET visible_at = ?, attempts = ?, claim_token = ?, updated_at = ? WHERE id = ? AND status = 'ready' AND attempts = ? AND visible_at <= ?",
    [claim.visibleUntil, claim.attempts, claim.token, claim.takenAt, candidate.id, candidate.attempts, now],
  );
  return changed === 1;
}

/**
 * One consume() of the database queue: a poll loop that takes up to `concurrency` messages at a
 * time. Every write after the take is guarded by the claim token, so a consumer whose visibility
 * ran out (and whose message another consumer took) can no longer touch the message.
 */
export class SequelizeQueueConsumer implements Consumer {
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  /** The poll interval's sleep, cut short by wake(). */
  private readonly idle = new WakeableSleep();
  /** Messages this process just committed: tried first, without a poll query (the conditional take still decides). */
  private hints: Candidate[] = [];
  /**
   * Waiting work the hints may not show: a hint came while every slot was busy (or did not fit), or the last poll left
   * candidates behind. The next take then polls, so the queue's fair order decides, not the newest hint.
   */
  private backlog = false;

  constructor(
    private readonly deps: QueueConsumerDeps,
    private readonly options: ConsumeOptions,
    private readonly handler: (message: DeliveredMessage) => Promise<HandlerOutcome>,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Cuts the current idle sleep short (a publish in this process, a handler finishing, stop()). */
  wake(hint?: Candidate): void {
    if (hint && hint.environment === this.options.environment && this.options.taskTypes.includes(hint.task_type)) {
      // Every slot busy (or too many hints): work is waiting that a later hint must not overtake.
      if (this.hints.length >= MAX_HINTS || this.inFlight.size >= this.options.concurrency) this.backlog = true;
      if (this.hints.length < MAX_HINTS) this.hints.push(hint);
    }
    this.idle.wake();
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.wake();
    }
    await this.loop;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    this.deps.onStopped(this);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let found = false;
      const free = this.options.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          found = await this.takeAndStart(free);
        } catch (error) {
          this.deps.logger.warn('queue poll failed', { error: describeError(error) });
        }
      }
      if (this.stopped) break;
      // Took (or raced for) work and still has room: look again at once instead of sleeping.
      if (found && this.inFlight.size < this.options.concurrency) continue;
      await this.idle.sleep(this.deps.pollIntervalMs);
    }
  }

  /** Returns whether any candidate was seen (taken here or by a rival). */
  private async takeAndStart(free: number): Promise<boolean> {
    const { clock } = this.deps;
    const now = clock.now();
    // More hints than room, or work waiting that they do not show: the poll's fair order decides (the hinted rows are in it).
    const pending = this.hints.splice(0);
    const hinted = !this.backlog && pending.length <= free ? pending : [];
    // Polled several times a second by every consumer: plain SQL (see selectRows). A little slack in the limit:
    // some candidates may go to a rival consumer first.
    const candidates =
      hinted.length > 0
        ? hinted
        : await selectRows<Candidate>(
            this.deps.db.autocommit,
            `SELECT id, message_id, task_type, environment, body, attempts, trace FROM queue_messages
             WHERE status = 'ready' AND environment = :environment AND task_type IN (:taskTypes) AND visible_at <= :now
             ORDER BY fair_seq ASC, visible_at ASC, created_at ASC LIMIT ${free + 4}`,
            { environment: this.options.environment, taskTypes: this.options.taskTypes, now: sqlTime(now, this.deps.db.dialect) },
          );
    let taken = 0;
    for (const candidate of candidates) {
      if (taken >= free || this.stopped) break;
      const attempts = Number(candidate.attempts);
      const token = randomUUID();
      // The visibility window starts at the take, not at the (possibly slow) candidate query.
      const takenAt = clock.now();
      // Delivered maxAttempts times and never settled: its consumers died on it. It is taken like any other
      // message, but only to end it (onDeadLetter, then the dead letters), never to run it again.
      const exhausted = attempts >= this.options.maxAttempts;
      const claimed = await claimMessage(this.deps.db, { id: candidate.id, attempts }, { token, takenAt, visibleUntil: later(takenAt, this.options.visibilitySeconds), attempts: exhausted ? attempts : attempts + 1 }, now);
      if (!claimed) continue;
      taken += 1;
      if (exhausted) this.startTask(this.expire(candidate, token, attempts));
      else this.startTask(this.handle(candidate, attempts + 1, token));
    }
    // A poll that left candidates behind (no room, or a rival took them) may have left work waiting.
    if (hinted.length === 0) this.backlog = taken < candidates.length;
    return candidates.length > 0;
  }

  private write(values: Partial<QueueMessageRow>, where: WhereOptions<QueueMessageRow>): Promise<number> {
    return this.deps.db.autocommit.write(async (scope) => (await queueMessageModel(scope.sequelize).update(values, { where, ...scope.options }))[0]);
  }

  private delivered(row: Candidate, attempt: number, token: string, ack: AckState | null = null): DeliveredMessage {
    return {
      ...(ack ? { ackWith: (tx: Transaction) => this.ackWith(row, token, tx, ack) } : {}),
      id: row.message_id,
      taskType: row.task_type,
      environment: row.environment,
      body: JSON.parse(row.body) as unknown,
      attempt,
      ...(row.trace ? { trace: JSON.parse(row.trace) as TraceCarrier } : {}),
      extendVisibility: (seconds) => this.extendVisibility(row, token, seconds),
    };
  }

  private async expire(row: Candidate, token: string, attempts: number): Promise<void> {
    try {
      await this.settle(row, token, { kind: 'dead', reason: expiredReason(attempts) }, this.delivered(row, attempts, token));
    } catch (error) {
      this.deps.logger.error('queue dead-lettering failed', { messageId: row.message_id, error: describeError(error) });
    }
  }

  private startTask(task: Promise<void>): void {
    this.inFlight.add(task);
    void task.finally(() => {
      this.inFlight.delete(task);
      this.wake();
    });
  }

  private async handle(row: Candidate, attempt: number, token: string): Promise<void> {
    let result: { outcome: HandlerOutcome } | { error: unknown };
    let message: DeliveredMessage | null = null;
    const ack: AckState = { committed: false };
    try {
      message = this.delivered(row, attempt, token, ack);
      result = { outcome: await this.handler(message) };
    } catch (error) {
      result = { error };
      this.deps.logger.warn('queue handler failed', { messageId: row.message_id, attempt, error: describeError(error) });
    }
    // Acknowledged with the handler's transaction: the message is done, whatever the handler did after that commit.
    if (ack.committed) return;
    try {
      await this.settle(row, token, settlementOf(result, attempt, this.options.maxAttempts, this.deps.backoff), message);
    } catch (error) {
      // The message stays taken until its visibility ends, then it is delivered again.
      this.deps.logger.error('queue settle failed', { messageId: row.message_id, error: describeError(error) });
    }
  }

  /** Every write is guarded by the claim token. A message goes dead only after onDeadLetter has ended its work. */
  private async settle(row: Candidate, token: string, settlement: Settlement, message: DeliveredMessage | null): Promise<void> {
    const { clock } = this.deps;
    const where: WhereOptions<QueueMessageRow> = { id: row.id, claim_token: token, status: 'ready' };
    let changed: number;
    if (settlement.kind === 'delete') {
      // A tombstone, not a delete: the message id stays taken (see QueueMessageRow.status).
      changed = await this.write({ status: 'done', claim_token: null, updated_at: clock.now() }, where);
    } else if (settlement.kind === 'delay') {
      const now = clock.now();
      changed = await this.write({ visible_at: later(now, settlement.seconds), claim_token: null, updated_at: now }, where);
    } else {
      // If this throws, the message stays taken and comes back after its visibility: ended again, then dead.
      if (this.options.onDeadLetter && message) await this.options.onDeadLetter(message, settlement.reason);
      // At most 10,000 characters (40 KB in UTF-8): a TEXT column on MariaDB refuses more than 64 KB, and the write with it.
      changed = await this.write({ status: 'dead', claim_token: null, last_error: settlement.reason.slice(0, 10_000), updated_at: clock.now() }, where);
    }
    if (changed !== 1) {
      this.deps.logger.warn('queue message was taken by another delivery before it was settled (visibility expired)', {
        messageId: row.message_id,
        settlement: settlement.kind,
      });
    }
  }

  /**
   * The ack as one more statement of the caller's transaction, guarded by the claim token like every settle: it
   * commits with the handler's work or rolls back with it. Only a commit marks the delivery settled; a delivery
   * that lost its claim changes nothing here and is settled (or found taken) as usual afterwards.
   */
  private async ackWith(row: Candidate, token: string, tx: Transaction, ack: AckState): Promise<void> {
    const scope = sqlScopeOf(tx);
    if (!scope || !this.deps.db.owns(scope)) return;
    // Plain SQL: it runs inside the job's completing transaction, where the model layer's cost holds the writer longer.
    const changed = await scope.run("UPDATE queue_messages SET status = 'done', claim_token = NULL, updated_at = ? WHERE id = ? AND claim_token = ? AND status = 'ready'", [
      this.deps.clock.now(),
      row.id,
      token,
    ]);
    if (changed === 1) scope.afterCommit(() => void (ack.committed = true));
  }

  private async extendVisibility(row: Candidate, token: string, seconds: number): Promise<void> {
    const now = this.deps.clock.now();
    const changed = await this.write({ visible_at: later(now, seconds), updated_at: now }, { id: row.id, claim_token: token, status: 'ready' });
    if (changed !== 1) throw new Error(`message ${row.message_id} is no longer held by this delivery (its visibility ran out and it was taken again)`);
  }
}
