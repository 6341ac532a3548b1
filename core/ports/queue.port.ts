import type { Transaction } from './unit-of-work.port.ts';

/**
 * The message queue between API and workers: a transport of JSON bodies with the attributes `TaskType`
 * and `Environment`. Delivery is at least once: handlers must be idempotent. Which task types exist and
 * what their bodies hold is the message catalogue's business (core/domain/messages.ts), not the queue's.
 */
/**
 * W3C trace context (`traceparent`, optional `tracestate`) that travels with a message, so the work it
 * starts continues the trace of the request that asked for it. Opaque to the queue: adapters carry it as
 * headers or attributes and hand it back on delivery; only the tracing decorators read or write it.
 */
export type TraceCarrier = Record<string, string>;

export interface OutgoingMessage {
  /** `TaskType` attribute (a key of the message catalogue). */
  taskType: string;
  /** `Environment` attribute: production, development or local. */
  environment: string;
  body: unknown;
  /** Idempotent publishing: adapters that support it drop a second message with the same id. */
  messageId?: string;
  /** Whose work this is (a user id): the database queue takes one owner's waiting messages in turn with
   * everyone else's, so a deep queue of one owner does not starve the others. Other adapters keep FIFO order. */
  fairnessKey?: string;
  /** The message's turn among its owner's (1 = first), decided by the producer (a job's `queueTurn`), so the
   * producer can state the order the queue serves. Absent: the database queue counts the owner's waiting messages. */
  fairnessTurn?: number;
  /** Trace context of the work that produced the message (absent when tracing is off). */
  trace?: TraceCarrier;
}

export interface DeliveredMessage {
  id: string;
  taskType: string;
  environment: string;
  body: unknown;
  /** 1 on the first delivery. */
  attempt: number;
  /** The publisher's trace context, as published (absent when it had none). */
  trace?: TraceCarrier;
  /** Keeps the message invisible to other consumers while a long job runs. */
  extendVisibility(seconds: number): Promise<void>;
  /**
   * Where the queue is a table of the application database (QUEUE_DRIVER=db): acknowledges this delivery in
   * the caller's transaction, so the ack commits with the work it confirms, or not at all. Once that transaction
   * has committed, the handler's `ack` needs no write of its own. Absent on brokers, and a no-op when `tx`
   * belongs to another database or the delivery no longer holds the message (the usual settle then follows).
   */
  ackWith?(tx: Transaction): Promise<void>;
}

/** What the handler decided: done, try again later (counts as an attempt), or give up to the dead letters. */
export type HandlerOutcome = { action: 'ack' } | { action: 'retry'; delaySeconds: number } | { action: 'dead'; reason: string };

export interface ConsumeOptions {
  taskTypes: string[];
  environment: string;
  /** Messages handled at once by this consumer. */
  concurrency: number;
  /** Deliveries after which a failing message goes to the dead letters. */
  maxAttempts: number;
  /** Initial visibility timeout of a taken message. */
  visibilitySeconds: number;
  /**
   * Called for every message before it goes to the dead letters, whatever the reason (the handler gave up,
   * or the message was delivered `maxAttempts` times without being settled because its consumers died), so
   * the work it stood for can be ended properly. If it throws, the message stays and comes back later.
   */
  onDeadLetter?(message: DeliveredMessage, reason: string): Promise<void>;
}

export interface Consumer {
  stop(): Promise<void>;
}

export interface PeekedMessage {
  id: string;
  body: unknown;
  attributes: Record<string, string>;
  /** Dead letters only: why the message went dead, where the broker kept it. */
  reason?: string;
}

/** How one task type's queue stands (metrics). A figure the driver cannot tell is left out. */
export interface QueueStats {
  /** Null when the driver keeps every task type on one queue and cannot count them apart (SQS). */
  taskType: string | null;
  /** Messages waiting to be taken (delayed retries included where the driver sees them), not those held by a consumer. */
  waiting: number;
  /** Seconds since the oldest waiting message was published (0 when none waits). */
  oldestWaitingSeconds?: number;
  /** Messages in the dead letters. */
  deadLetters?: number;
}

export interface MessageQueue {
  publish(message: OutgoingMessage): Promise<{ messageId: string }>;
  consume(options: ConsumeOptions, handler: (message: DeliveredMessage) => Promise<HandlerOutcome>): Promise<Consumer>;
  /** Diagnostics: messages waiting, without taking them. */
  peek(max: number): Promise<PeekedMessage[]>;
  /** Dead-lettered messages (diagnostics and tests). */
  deadLetters(max: number): Promise<PeekedMessage[]>;
  /**
   * Puts the dead letter with this message id back on its queue as a fresh delivery (attempts start over).
   * False when no dead letter has this id (never was one, or already redriven or discarded).
   */
  redrive(id: string): Promise<boolean>;
  /** Drops the dead letter with this message id for good. False when no dead letter has this id. */
  discard(id: string): Promise<boolean>;
  /** Depth, oldest age and dead letters of each of these task types in one environment, cheaply (one grouped count or one call per queue). */
  stats(environment: string, taskTypes: readonly string[]): Promise<QueueStats[]>;
  check(): Promise<void>;
  close(): Promise<void>;
}
