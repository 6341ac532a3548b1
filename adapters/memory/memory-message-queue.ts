import { randomUUID } from 'node:crypto';
import {
  DEFAULT_BACKOFF,
  describeError,
  expiredReason,
  settlementOf,
  validateConsumeOptions,
  type BackoffPolicy,
  type Settlement,
} from '../../core/domain/message-delivery.ts';
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
  TraceCarrier,
} from '../../core/ports/queue.port.ts';
import type { MemoryStore } from './memory-store.ts';

interface QueueRow {
  id: string;
  taskType: OutgoingMessage['taskType'];
  environment: string;
  /** Kept as JSON text so every delivery hands out a fresh copy, as a real queue would. */
  body: string;
  /** done: acknowledged, kept as a tombstone so a republish of its id is ignored (like the database queue). */
  status: 'ready' | 'dead' | 'done';
  attempts: number;
  visibleAt: number;
  claimToken: string | null;
  lastError: string | null;
  seq: number;
  /** When it was published (ms). */
  createdAt: number;
  trace?: TraceCarrier;
}

type Handler = (message: DeliveredMessage) => Promise<HandlerOutcome>;

class MemoryConsumer implements Consumer {
  stopped = false;
  readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly options: ConsumeOptions,
    readonly handler: Handler,
    private readonly onStop: (consumer: MemoryConsumer) => void,
  ) {}

  async stop(): Promise<void> {
    this.stopped = true;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    this.onStop(this);
  }
}

export interface MemoryMessageQueueOptions {
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  backoff?: BackoffPolicy;
}

/** Instances over one MemoryStore see the same messages, like processes over one database. */
const peersByStore = new WeakMap<MemoryStore, Set<MemoryMessageQueue>>();
let sequence = 0;

const systemClock: Clock = { now: () => new Date() };
const randomIds: IdGenerator = { newId: () => randomUUID() };
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

/**
 * The queue in memory, with the database queue's semantics (visibility, attempts, retry delays,
 * dead letters, messageId dedupe) but event-driven: it delivers as soon as a message is ready.
 * Nothing survives the process, and it has no transactions to join.
 */
export class MemoryMessageQueue implements MessageQueue {
  private readonly rows: Map<string, QueueRow>;
  private readonly peers: Set<MemoryMessageQueue>;
  private readonly consumers = new Set<MemoryConsumer>();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly logger: Logger;
  private readonly backoff: BackoffPolicy;
  private scheduled = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(store: MemoryStore, options: MemoryMessageQueueOptions = {}) {
    // A broker is not part of the database transaction: a rollback leaves the queue alone.
    this.rows = store.table<QueueRow>('queue_messages', { transactional: false });
    let peers = peersByStore.get(store);
    if (!peers) {
      peers = new Set();
      peersByStore.set(store, peers);
    }
    this.peers = peers;
    peers.add(this);
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.logger = options.logger ?? silent;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  async publish(message: OutgoingMessage): Promise<{ messageId: string }> {
    const id = message.messageId ?? this.ids.newId();
    if (this.rows.has(id)) return { messageId: id };
    this.rows.set(id, {
      id,
      taskType: message.taskType,
      environment: message.environment,
      body: JSON.stringify(message.body ?? null),
      status: 'ready',
      attempts: 0,
      visibleAt: this.clock.now().getTime(),
      claimToken: null,
      lastError: null,
      seq: (sequence += 1),
      createdAt: this.clock.now().getTime(),
      ...(message.trace ? { trace: { ...message.trace } } : {}),
    });
    this.scheduleAll();
    return { messageId: id };
  }

  async consume(options: ConsumeOptions, handler: Handler): Promise<Consumer> {
    validateConsumeOptions(options);
    const consumer = new MemoryConsumer({ ...options, taskTypes: [...options.taskTypes] }, handler, (stopped) => {
      this.consumers.delete(stopped);
      // Without consumers the wake-up timer serves no one, and would keep the process alive until it fires.
      this.armTimer(this.clock.now().getTime());
    });
    this.consumers.add(consumer);
    this.schedule();
    return consumer;
  }

  async peek(max: number): Promise<PeekedMessage[]> {
    const now = this.clock.now().getTime();
    return this.ordered((row) => isWaiting(row, now))
      .slice(0, Math.max(0, max))
      .map(toPeeked);
  }

  async deadLetters(max: number): Promise<PeekedMessage[]> {
    return this.ordered((row) => row.status === 'dead')
      .slice(0, Math.max(0, max))
      .map((row) => ({ ...toPeeked(row), ...(row.lastError !== null ? { reason: row.lastError } : {}) }));
  }

  async redrive(id: string): Promise<boolean> {
    const row = this.deadRow(id);
    if (!row) return false;
    Object.assign(row, { status: 'ready', attempts: 0, claimToken: null, lastError: null, visibleAt: this.clock.now().getTime(), seq: (sequence += 1) });
    this.scheduleAll();
    return true;
  }

  /** The row stays as a tombstone (like an acknowledged one): a republish of its id is still ignored. */
  async discard(id: string): Promise<boolean> {
    const row = this.deadRow(id);
    if (!row) return false;
    row.status = 'done';
    return true;
  }

  private deadRow(id: string): QueueRow | null {
    const row = this.rows.get(id);
    return row && row.status === 'dead' ? row : null;
  }

  async stats(environment: string, taskTypes: readonly string[]): Promise<QueueStats[]> {
    const now = this.clock.now().getTime();
    const rows = [...this.rows.values()].filter((row) => row.environment === environment);
    return taskTypes.map((taskType) => {
      const waiting = rows.filter((row) => row.taskType === taskType && isWaiting(row, now));
      const oldest = Math.min(now, ...waiting.map((row) => row.createdAt));
      const deadLetters = rows.filter((row) => row.taskType === taskType && row.status === 'dead').length;
      return { taskType, waiting: waiting.length, oldestWaitingSeconds: (now - oldest) / 1000, deadLetters };
    });
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.peers.delete(this);
  }

  private ordered(keep: (row: QueueRow) => boolean): QueueRow[] {
    return [...this.rows.values()].filter(keep).sort((a, b) => a.visibleAt - b.visibleAt || a.seq - b.seq);
  }

  private scheduleAll(): void {
    for (const peer of this.peers) peer.schedule();
  }

  /** Coalesces bursts of changes into one dispatch on the next turn of the event loop. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  /** Synchronous from look-up to take, so no two consumers can take one message. */
  private dispatch(): void {
    const now = this.clock.now().getTime();
    for (const consumer of this.consumers) {
      while (!consumer.stopped && consumer.inFlight.size < consumer.options.concurrency) {
        const row = this.ordered(
          (r) =>
            r.status === 'ready' && r.visibleAt <= now && r.environment === consumer.options.environment && consumer.options.taskTypes.includes(r.taskType),
        )[0];
        if (!row) break;
        const token = randomUUID();
        // Delivered maxAttempts times and never settled (its consumers died): taken only to be ended.
        const exhausted = row.attempts >= consumer.options.maxAttempts;
        if (!exhausted) row.attempts += 1;
        row.claimToken = token;
        row.visibleAt = now + Math.round(consumer.options.visibilitySeconds * 1000);
        const task = exhausted
          ? this.settle(consumer, row, token, { kind: 'dead', reason: expiredReason(row.attempts) }, this.delivered(row, row.attempts, token))
          : this.handle(consumer, row, row.attempts, token);
        consumer.inFlight.add(task);
        void task.finally(() => {
          consumer.inFlight.delete(task);
          this.scheduleAll();
        });
      }
    }
    this.armTimer(now);
  }

  /** Wakes up when the next delayed or taken message becomes visible again. */
  private armTimer(now: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.consumers.size === 0) return;
    let next = Infinity;
    for (const row of this.rows.values()) {
      if (row.status === 'ready' && row.visibleAt > now && row.visibleAt < next) next = row.visibleAt;
    }
    if (next === Infinity) return;
    // Every instance over the store dispatches: the message may belong to another one's consumers.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.scheduleAll();
    }, next - now);
  }

  private delivered(row: QueueRow, attempt: number, token: string): DeliveredMessage {
    return {
      id: row.id,
      taskType: row.taskType,
      environment: row.environment,
      body: JSON.parse(row.body) as unknown,
      attempt,
      ...(row.trace ? { trace: { ...row.trace } } : {}),
      extendVisibility: async (seconds) => this.extend(row, token, seconds),
    };
  }

  private async handle(consumer: MemoryConsumer, row: QueueRow, attempt: number, token: string): Promise<void> {
    await Promise.resolve();
    const message = this.delivered(row, attempt, token);
    let result: { outcome: HandlerOutcome } | { error: unknown };
    try {
      result = { outcome: await consumer.handler(message) };
    } catch (error) {
      result = { error };
      this.logger.warn('queue handler failed', { messageId: row.id, attempt, error: describeError(error) });
    }
    await this.settle(consumer, row, token, settlementOf(result, attempt, consumer.options.maxAttempts, this.backoff), message);
  }

  /** A message goes dead only after onDeadLetter has ended its work; if that throws, it stays taken and comes back. */
  private async settle(consumer: MemoryConsumer, row: QueueRow, token: string, settlement: Settlement, message: DeliveredMessage): Promise<void> {
    if (!this.holds(row, token)) {
      this.logger.warn('queue message was taken by another delivery before it was settled (visibility expired)', { messageId: row.id });
      return;
    }
    if (settlement.kind === 'dead' && consumer.options.onDeadLetter) {
      try {
        await consumer.options.onDeadLetter(message, settlement.reason);
      } catch (error) {
        this.logger.error('queue dead-lettering failed', { messageId: row.id, error: describeError(error) });
        return;
      }
      if (!this.holds(row, token)) return;
    }
    const now = this.clock.now().getTime();
    row.claimToken = null;
    if (settlement.kind === 'delete') row.status = 'done';
    else if (settlement.kind === 'delay') row.visibleAt = now + Math.round(settlement.seconds * 1000);
    else Object.assign(row, { status: 'dead', lastError: settlement.reason });
  }

  private holds(row: QueueRow, token: string): boolean {
    return row.claimToken === token && row.status === 'ready' && this.rows.get(row.id) === row;
  }

  private extend(row: QueueRow, token: string, seconds: number): void {
    if (!this.holds(row, token)) throw new Error(`message ${row.id} is no longer held by this delivery (its visibility ran out and it was taken again)`);
    row.visibleAt = this.clock.now().getTime() + Math.round(seconds * 1000);
    this.scheduleAll();
  }
}

/** Ready and not held by a consumer (a delayed retry included). */
const isWaiting = (row: QueueRow, now: number): boolean => row.status === 'ready' && (row.claimToken === null || row.visibleAt <= now);

const toPeeked = (row: QueueRow): PeekedMessage => ({
  id: row.id,
  body: JSON.parse(row.body) as unknown,
  attributes: { TaskType: row.taskType, Environment: row.environment },
});
