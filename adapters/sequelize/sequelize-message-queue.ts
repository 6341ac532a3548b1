import { randomUUID } from 'node:crypto';
import { DataTypes, Op, type Model, type Sequelize } from 'sequelize';
import { DEFAULT_BACKOFF, validateConsumeOptions, type BackoffPolicy } from '../../core/domain/message-delivery.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { IdGenerator } from '../../core/ports/id-generator.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type {
  ConsumeOptions,
  Consumer,
  DeliveredMessage,
  HandlerOutcome,
  MessageQueue,
  OutgoingMessage,
  PeekedMessage,
  QueueStats,
} from '../../core/ports/queue.port.ts';
import type { OutboxEntry, OutboxWriter } from '../../core/ports/outbox.port.ts';
import { isUniqueViolation, selectRows, type SqlScope } from './sql-scope.ts';
import { asRows, defineOnce, type RowModel } from './models.ts';
import { isInsideTransaction, type SequelizeDatabase } from './sequelize-database.ts';
import { SequelizeQueueConsumer, type Candidate } from './sequelize-queue-consumer.ts';

export interface QueueMessageRow {
  id: string;
  message_id: string;
  task_type: string;
  environment: string;
  body: string;
  /** ready (waiting, or taken: claim_token set and visible_at ahead), dead, or done (acknowledged: a tombstone
   * that keeps its message id taken, so a relay republishing it after a crash cannot deliver it again). */
  status: 'ready' | 'dead' | 'done';
  attempts: number;
  visible_at: Date;
  claim_token: string | null;
  last_error: string | null;
  /** The owner of the message (OutgoingMessage.fairnessKey) and its place among that owner's waiting messages. */
  fair_key: string | null;
  fair_seq: number;
  /** The publisher's trace context as JSON (OutgoingMessage.trace), null without one. */
  trace: string | null;
  created_at: Date;
  updated_at: Date;
}

export const queueMessageModel = (sequelize: Sequelize): RowModel<QueueMessageRow> =>
  defineOnce(sequelize, 'QueueMessage', () =>
    sequelize.define<Model<QueueMessageRow, QueueMessageRow>>(
      'QueueMessage',
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        message_id: { type: DataTypes.STRING(128), allowNull: false },
        task_type: { type: DataTypes.STRING(32), allowNull: false },
        environment: { type: DataTypes.STRING(32), allowNull: false },
        body: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.STRING(8), allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false },
        visible_at: { type: DataTypes.DATE(3), allowNull: false },
        claim_token: { type: DataTypes.STRING(36), allowNull: true },
        last_error: { type: DataTypes.TEXT, allowNull: true },
        fair_key: { type: DataTypes.STRING(64), allowNull: true },
        fair_seq: { type: DataTypes.INTEGER, allowNull: false },
        trace: { type: DataTypes.STRING(1024), allowNull: true },
        created_at: { type: DataTypes.DATE(3), allowNull: false },
        updated_at: { type: DataTypes.DATE(3), allowNull: false },
      },
      { tableName: 'queue_messages' },
    ),
  );

export interface SequelizeMessageQueueOptions {
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /** Sleep between polls while there is nothing to take (a publish in this process wakes the poller at once). */
  pollIntervalMs?: number;
  /** Delay before retrying a message whose handler threw: doubles per attempt, capped. */
  backoff?: BackoffPolicy;
  /** How long acknowledged messages stay as tombstones (their ids refuse a republish); default 24 h. */
  retainDoneMs?: number;
}

const systemClock: Clock = { now: () => new Date() };
const randomIds: IdGenerator = { newId: () => randomUUID() };
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

/**
 * QUEUE_DRIVER=db: the queue is a table of the application database (SQLite or MariaDB), so it
 * survives restarts and needs no other server. Consumers poll; a message is taken by a conditional
 * UPDATE (it must still be ready and visible), so two processes never run one message at once.
 * A taken message stays invisible for the visibility timeout; if its consumer dies, it comes back.
 */
export class SequelizeMessageQueue implements MessageQueue {
  private readonly model: RowModel<QueueMessageRow>;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly backoff: BackoffPolicy;
  private readonly consumers = new Set<SequelizeQueueConsumer>();
  private readonly retainDoneMs: number;
  private lastPurge = 0;

  constructor(
    private readonly db: SequelizeDatabase,
    options: SequelizeMessageQueueOptions = {},
  ) {
    this.model = queueMessageModel(db.sequelize);
    this.retainDoneMs = options.retainDoneMs ?? 86_400_000;
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.logger = options.logger ?? silent;
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  /** A message id published before (even one already acknowledged, within the tombstone retention) is kept once. */
  publish(message: OutgoingMessage): Promise<{ messageId: string }> {
    return this.insert(this.db.autocommit, message);
  }

  /**
   * The queue as a transaction's outbox: the message is inserted in that transaction (it exists exactly when the
   * change that produced it commits) and this process's consumers are woken after the commit. No relay, no hop.
   */
  writerOn(scope: SqlScope): OutboxWriter {
    return { add: async (entry: OutboxEntry) => void (await this.insert(scope, { ...entry.message, messageId: entry.id })) };
  }

  private async insert(target: SqlScope, message: OutgoingMessage): Promise<{ messageId: string }> {
    const id = this.ids.newId();
    const messageId = message.messageId ?? id;
    const now = this.clock.now();
    const fairKey = message.fairnessKey?.slice(0, 64) ?? null;
    const trace = message.trace ? JSON.stringify(message.trace) : null;
    try {
      // Consumers serve place 1 of every owner before any place 2. The producer may name the place (a job's turn,
      // ADR 047, which its queue position counts by); else the owner's n-th waiting message takes place n. Two
      // messages of one owner in one place are served by time.
      const fairSeq = fairKey === null ? 0 : (message.fairnessTurn ?? 1 + (await this.waitingOf(target, fairKey)));
      // Plain SQL (`run`): one per job, inside the submit's transaction.
      await target.run(
        `INSERT INTO queue_messages (id, message_id, task_type, environment, body, status, attempts, visible_at, claim_token, last_error, fair_key, fair_seq, trace, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'ready', 0, ?, NULL, NULL, ?, ?, ?, ?, ?)`,
        [id, messageId, message.taskType, message.environment, JSON.stringify(message.body ?? null), now, fairKey, fairSeq, trace, now, now],
      );
    } catch (error) {
      // Same messageId published before (a relay retrying after a crash): keep the first one.
      if (isUniqueViolation(error)) return { messageId };
      throw error;
    }
    const hint = { id, message_id: messageId, task_type: message.taskType, environment: message.environment, body: JSON.stringify(message.body ?? null), attempts: 0, trace };
    target.afterCommit(() => {
      this.wakeConsumers(hint);
      // After the commit, outside the transaction: inside it, SQLite's autocommit write would nest and be refused.
      void this.purgeDone(now);
    });
    return { messageId };
  }

  private async waitingOf(target: SqlScope, fairKey: string): Promise<number> {
    const [row] = await target.read<{ n: number | string }>("SELECT COUNT(*) AS n FROM queue_messages WHERE fair_key = ? AND status = 'ready'", [fairKey]);
    return Number(row?.n ?? 0);
  }

  async consume(options: ConsumeOptions, handler: (message: DeliveredMessage) => Promise<HandlerOutcome>): Promise<Consumer> {
    validateConsumeOptions(options);
    // The poll loop's own units of work would trip over the transaction it was started in.
    if (isInsideTransaction()) throw new Error('consume() must not be called inside a unit of work');
    const consumer = new SequelizeQueueConsumer(
      {
        db: this.db,
        clock: this.clock,
        logger: this.logger,
        pollIntervalMs: this.pollIntervalMs,
        backoff: this.backoff,
        onStopped: (stopped) => this.consumers.delete(stopped),
      },
      options,
      handler,
    );
    this.consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  /** Messages waiting: ready and not held by a consumer (delayed retries included). */
  async peek(max: number): Promise<PeekedMessage[]> {
    const rows = await this.model.findAll({
      where: { status: 'ready', [Op.or]: [{ claim_token: null }, { visible_at: { [Op.lte]: this.clock.now() } }] },
      order: [
        ['visible_at', 'ASC'],
        ['created_at', 'ASC'],
      ],
      limit: Math.max(0, max),
      raw: true,
    });
    return asRows<QueueMessageRow>(rows).map(toPeeked);
  }

  async deadLetters(max: number): Promise<PeekedMessage[]> {
    const rows = await this.model.findAll({
      where: { status: 'dead' },
      order: [
        ['updated_at', 'ASC'],
        ['created_at', 'ASC'],
      ],
      limit: Math.max(0, max),
      raw: true,
    });
    return asRows<QueueMessageRow>(rows).map((row) => ({ ...toPeeked(row), ...(row.last_error !== null ? { reason: row.last_error } : {}) }));
  }

  /** One conditional update (it must still be dead), so two administrators redriving at once deliver it once. */
  async redrive(id: string): Promise<boolean> {
    const now = this.clock.now();
    const changed = await this.updateDead(id, { status: 'ready', attempts: 0, claim_token: null, last_error: null, visible_at: now, updated_at: now });
    if (changed) this.wakeConsumers();
    return changed;
  }

  /** A tombstone like an acknowledged message: its id stays taken until the retention purge. */
  async discard(id: string): Promise<boolean> {
    return this.updateDead(id, { status: 'done', updated_at: this.clock.now() });
  }

  private async updateDead(id: string, values: Partial<QueueMessageRow>): Promise<boolean> {
    const changed = await this.db.autocommit.write(
      async (scope) => (await queueMessageModel(scope.sequelize).update(values, { where: { message_id: id, status: 'dead' }, ...scope.options }))[0],
    );
    return changed === 1;
  }

  /** One grouped count over the environment's waiting and dead messages. */
  async stats(environment: string, taskTypes: readonly string[]): Promise<QueueStats[]> {
    const now = this.clock.now();
    const rows = await selectRows<{ task_type: string; status: string; n: number | string; oldest: Date | string | null }>(
      this.db.autocommit,
      `SELECT task_type, status, COUNT(*) AS n, MIN(created_at) AS oldest FROM queue_messages
       WHERE environment = :environment AND (status = 'dead' OR (status = 'ready' AND (claim_token IS NULL OR visible_at <= :now)))
       GROUP BY task_type, status`,
      { environment, now },
    );
    const find = (taskType: string, status: string) => rows.find((row) => row.task_type === taskType && row.status === status);
    return taskTypes.map((taskType) => {
      const waiting = find(taskType, 'ready');
      const oldest = waiting?.oldest ? new Date(waiting.oldest).getTime() : now.getTime();
      return {
        taskType,
        waiting: Number(waiting?.n ?? 0),
        oldestWaitingSeconds: Math.max(0, now.getTime() - oldest) / 1000,
        deadLetters: Number(find(taskType, 'dead')?.n ?? 0),
      };
    });
  }

  async check(): Promise<void> {
    await this.model.findOne({ attributes: ['id'], raw: true });
  }

  /** Stops every consumer (each waits for its handlers). The database belongs to the application. */
  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
  }

  /** `hint`: a message just committed, which a consumer may take without polling for it. */
  private wakeConsumers(hint?: Candidate): void {
    for (const consumer of this.consumers) consumer.wake(hint);
  }

  /** Drops tombstones past their retention, at most once a minute per process. */
  private async purgeDone(now: Date): Promise<void> {
    if (now.getTime() - this.lastPurge < 60_000) return;
    this.lastPurge = now.getTime();
    const before = new Date(now.getTime() - this.retainDoneMs);
    await this.db.autocommit
      .write((scope) => queueMessageModel(scope.sequelize).destroy({ where: { status: 'done', updated_at: { [Op.lt]: before } }, ...scope.options }))
      .catch((error: unknown) => this.logger.warn('queue tombstone purge failed', { error: String(error) }));
  }
}

const toPeeked = (row: QueueMessageRow): PeekedMessage => ({
  id: row.message_id,
  body: JSON.parse(row.body) as unknown,
  attributes: { TaskType: row.task_type, Environment: row.environment },
});
