import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { describeError, expiredReason, settlementOf, type BackoffPolicy, type Settlement } from '../../core/domain/message-delivery.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { ConsumeOptions, Consumer, DeliveredMessage, HandlerOutcome, TaskType } from '../../core/ports/queue.port.ts';
import { asRows, type RowModel } from './models.ts';
import type { QueueMessageRow } from './sequelize-message-queue.ts';

export interface QueueConsumerDeps {
  model: RowModel<QueueMessageRow>;
  clock: Clock;
  logger: Logger;
  pollIntervalMs: number;
  backoff: BackoffPolicy;
  onStopped(consumer: SequelizeQueueConsumer): void;
}

type Candidate = Pick<QueueMessageRow, 'id' | 'message_id' | 'task_type' | 'environment' | 'body' | 'attempts'>;

const later = (from: Date, seconds: number): Date => new Date(from.getTime() + Math.round(seconds * 1000));

/**
 * One consume() of the database queue: a poll loop that takes up to `concurrency` messages at a
 * time. Every write after the take is guarded by the claim token, so a consumer whose visibility
 * ran out (and whose message another consumer took) can no longer touch the message.
 */
export class SequelizeQueueConsumer implements Consumer {
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(
    private readonly deps: QueueConsumerDeps,
    private readonly options: ConsumeOptions,
    private readonly handler: (message: DeliveredMessage) => Promise<HandlerOutcome>,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Cuts the current idle sleep short (a publish in this process, a handler finishing, stop()). */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
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
      await this.sleep(this.deps.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** Returns whether any candidate was seen (taken here or by a rival). */
  private async takeAndStart(free: number): Promise<boolean> {
    const { model, clock } = this.deps;
    const now = clock.now();
    const candidates = asRows<Candidate>(
      await model.findAll({
        attributes: ['id', 'message_id', 'task_type', 'environment', 'body', 'attempts'],
        where: {
          status: 'ready',
          environment: this.options.environment,
          task_type: { [Op.in]: this.options.taskTypes },
          visible_at: { [Op.lte]: now },
        },
        order: [
          ['visible_at', 'ASC'],
          ['created_at', 'ASC'],
        ],
        // A little slack: some candidates may go to a rival consumer first.
        limit: free + 4,
        raw: true,
      }),
    );
    let taken = 0;
    for (const candidate of candidates) {
      if (taken >= free || this.stopped) break;
      const attempts = Number(candidate.attempts);
      const guard = { id: candidate.id, status: 'ready', attempts, visible_at: { [Op.lte]: now } };
      if (attempts >= this.options.maxAttempts) {
        // Delivered maxAttempts times and never settled: its consumers died on it. Stop the loop here.
        await model.update({ status: 'dead', claim_token: null, last_error: expiredReason(attempts), updated_at: now }, { where: guard });
        continue;
      }
      const token = randomUUID();
      // The visibility window starts at the take, not at the (possibly slow) candidate query.
      const takenAt = clock.now();
      const [changed] = await model.update(
        { visible_at: later(takenAt, this.options.visibilitySeconds), attempts: attempts + 1, claim_token: token, updated_at: takenAt },
        { where: guard },
      );
      if (changed !== 1) continue;
      taken += 1;
      this.startHandler(candidate, attempts + 1, token);
    }
    return candidates.length > 0;
  }

  private startHandler(row: Candidate, attempt: number, token: string): void {
    const task = this.handle(row, attempt, token);
    this.inFlight.add(task);
    void task.finally(() => {
      this.inFlight.delete(task);
      this.wake();
    });
  }

  private async handle(row: Candidate, attempt: number, token: string): Promise<void> {
    let result: { outcome: HandlerOutcome } | { error: unknown };
    try {
      const message: DeliveredMessage = {
        id: row.message_id,
        taskType: row.task_type as TaskType,
        environment: row.environment,
        body: JSON.parse(row.body) as unknown,
        attempt,
        extendVisibility: (seconds) => this.extendVisibility(row, token, seconds),
      };
      result = { outcome: await this.handler(message) };
    } catch (error) {
      result = { error };
      this.deps.logger.warn('queue handler failed', { messageId: row.message_id, attempt, error: describeError(error) });
    }
    try {
      await this.settle(row, token, settlementOf(result, attempt, this.options.maxAttempts, this.deps.backoff));
    } catch (error) {
      // The message stays taken until its visibility ends, then it is delivered again.
      this.deps.logger.error('queue settle failed', { messageId: row.message_id, error: describeError(error) });
    }
  }

  private async settle(row: Candidate, token: string, settlement: Settlement): Promise<void> {
    const { model, clock } = this.deps;
    const now = clock.now();
    const where = { id: row.id, claim_token: token };
    let changed: number;
    if (settlement.kind === 'delete') {
      changed = await model.destroy({ where });
    } else if (settlement.kind === 'delay') {
      [changed] = await model.update({ visible_at: later(now, settlement.seconds), claim_token: null, updated_at: now }, { where });
    } else {
      [changed] = await model.update({ status: 'dead', claim_token: null, last_error: settlement.reason, updated_at: now }, { where });
    }
    if (changed !== 1) {
      this.deps.logger.warn('queue message was taken by another delivery before it was settled (visibility expired)', {
        messageId: row.message_id,
        settlement: settlement.kind,
      });
    }
  }

  private async extendVisibility(row: Candidate, token: string, seconds: number): Promise<void> {
    const now = this.deps.clock.now();
    const [changed] = await this.deps.model.update(
      { visible_at: later(now, seconds), updated_at: now },
      { where: { id: row.id, claim_token: token, status: 'ready' } },
    );
    if (changed !== 1) {
      this.deps.logger.warn('extendVisibility on a message this delivery no longer holds', { messageId: row.message_id });
    }
  }
}
