import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
  type SQSClientConfig,
  type QueueAttributeName,
} from '@aws-sdk/client-sqs';
import {
  DEFAULT_BACKOFF,
  describeError,
  expiredReason,
  settlementOf,
  TRACE_FIELDS,
  traceCarrierOf,
  traceFields,
  validateConsumeOptions,
  WakeableSleep,
  withTrace,
  type BackoffPolicy,
  type Settlement,
} from '../../core/domain/message-delivery.ts';
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

export interface SqsMessageQueueOptions {
  queueUrl: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** The dead-letter queue; without it, the one named by the queue's RedrivePolicy (found at start). */
  deadLetterQueueUrl?: string;
  /** Long polling: how long one receive waits for a message (0 to 20 s; default 10). Stopping waits for it. */
  waitTimeSeconds?: number;
  backoff?: BackoffPolicy;
  logger?: Logger;
  /** Deletes are batched (up to 10, those settled together) and flushed this soon after the first (default 0 ms). */
  deleteFlushMs?: number;
  /** The clock SQS's 12-hour hold of a received message is counted by (milliseconds; Date.now by default). */
  now?: () => number;
  /**
   * The long poll of peek, dead letters, redrive and discard (default 1 s): SQS then asks all its servers, where a
   * short poll (0) samples some and may answer fewer messages than there are, or none. An empty queue answers after it.
   */
  browseWaitSeconds?: number;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
/** SQS holds a received message at most 12 hours from its receive, however often its visibility is changed. */
const MAX_HOLD_SECONDS = 43_200;
/** SQS counts visibility and delays in whole seconds. */
const wholeSeconds = (seconds: number): number => (seconds <= 0 ? 0 : Math.min(MAX_HOLD_SECONDS, Math.ceil(seconds)));
const text = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });

/**
 * QUEUE_DRIVER=sqs. One SQS queue (SQS_QUEUE_URL) carries every task type of an environment, with the message
 * attributes `TaskType`, `Environment` and our `MessageId`. Receives long-poll; a received message stays invisible for
 * the consumer's visibility timeout, extended while a job runs; a retry is the same message made visible again after
 * its delay (SQS counts the receive, which is the attempt number); an explicit dead letter goes to the dead-letter
 * queue after `onDeadLetter` ran, and the queue's own RedrivePolicy catches what consumers never settle. Deletes are
 * batched. A FIFO queue (`.fifo`) deduplicates publishes of one messageId for five minutes; a standard queue
 * delivers at least once. A message of another environment or task type is handed back at once (give each
 * environment its own queue, and let every worker on it serve all task types).
 */
export class SqsMessageQueue implements MessageQueue {
  readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly fifo: boolean;
  private readonly waitTimeSeconds: number;
  private readonly browseWaitSeconds: number;
  private readonly backoff: BackoffPolicy;
  private readonly logger: Logger;
  private deadUrl: Promise<string> | null;
  private readonly consumers = new Set<SqsConsumer>();

  constructor(private readonly options: SqsMessageQueueOptions) {
    const config: SQSClientConfig = {
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      // A copy: the SDK annotates the object it is given, and configuration is frozen.
      ...(options.credentials ? { credentials: { ...options.credentials } } : {}),
    };
    this.client = new SQSClient(config);
    this.queueUrl = options.queueUrl;
    this.fifo = options.queueUrl.endsWith('.fifo');
    this.waitTimeSeconds = Math.max(0, Math.min(20, options.waitTimeSeconds ?? 10));
    this.browseWaitSeconds = Math.max(0, Math.min(20, options.browseWaitSeconds ?? 1));
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.logger = options.logger ?? silent;
    this.deadUrl = options.deadLetterQueueUrl ? Promise.resolve(options.deadLetterQueueUrl) : null;
  }

  async publish(message: OutgoingMessage): Promise<{ messageId: string }> {
    const messageId = message.messageId ?? randomUUID();
    await this.send(this.queueUrl, JSON.stringify(message.body ?? null), {
      TaskType: message.taskType,
      Environment: message.environment,
      MessageId: messageId,
      ...traceFields(message.trace),
    });
    return { messageId };
  }

  async consume(options: ConsumeOptions, handler: (message: DeliveredMessage) => Promise<HandlerOutcome>): Promise<Consumer> {
    validateConsumeOptions(options);
    await this.deadLetterQueueUrl(); // fails now, not at the first dead letter, when there is none
    const consumer = new SqsConsumer(this, options, handler, (done) => this.consumers.delete(done));
    this.consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  /** Receives with visibility 0: the messages stay where they are (each such receive counts as one on SQS). */
  async peek(max: number): Promise<PeekedMessage[]> {
    return this.browse(this.queueUrl, max);
  }

  async deadLetters(max: number): Promise<PeekedMessage[]> {
    return this.browse(await this.deadLetterQueueUrl(), max);
  }

  /**
   * Sent again to the work queue as a new SQS message (so its receive count, the attempt number, starts over; on a
   * FIFO queue with a fresh deduplication id, since its first publish may be less than five minutes old), then
   * deleted from the dead-letter queue. A crash between the two leaves it in both: delivered at least once.
   */
  redrive(id: string): Promise<boolean> {
    return this.takeDead(id, async (message) => {
      const { DeadReason: _reason, ...attributes } = Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue ?? '']));
      await this.send(this.queueUrl, message.Body ?? 'null', attributes, randomUUID());
    });
  }

  discard(id: string): Promise<boolean> {
    return this.takeDead(id, async () => undefined);
  }

  /**
   * Receives the dead-letter queue's messages (held 30 s) until `id` turns up, runs `then` on it and deletes it; every
   * other message received is made visible again at once. Each round is a long poll (`browseWaitSeconds`, 1 s by default): a short poll samples some
   * of SQS's servers and may answer fewer messages than there are, or none. A round may still bring fewer than ten
   * while more are left, so only an empty round (every message seen is held) means the queue holds no such message.
   */
  private async takeDead(id: string, then: (message: Message) => Promise<void>): Promise<boolean> {
    const deadUrl = await this.deadLetterQueueUrl();
    const held: Message[] = [];
    try {
      for (;;) {
        const { Messages } = await this.client.send(
          new ReceiveMessageCommand({ QueueUrl: deadUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30, WaitTimeSeconds: this.browseWaitSeconds, MessageAttributeNames: ['All'] }),
        );
        const received = Messages ?? [];
        const found = received.find((message) => toPeeked(message).id === id);
        held.push(...received.filter((message) => message !== found));
        if (found) {
          await then(found);
          await this.client.send(new DeleteMessageCommand({ QueueUrl: deadUrl, ReceiptHandle: found.ReceiptHandle }));
          return true;
        }
        if (received.length === 0) return false;
      }
    } finally {
      for (let i = 0; i < held.length; i += 10) {
        const entries = held.slice(i, i + 10).map((message, n) => ({ Id: String(n), ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 0 }));
        await this.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: deadUrl, Entries: entries })).catch(() => undefined);
      }
    }
  }

  /**
   * One queue holds every task type of its environment: one entry for all of them (`taskType: null`), from SQS's
   * approximate counts (visible plus delayed). The oldest message's age is a CloudWatch metric, not an attribute.
   */
  async stats(): Promise<QueueStats[]> {
    const approximate = async (queueUrl: string, names: QueueAttributeName[]): Promise<number> => {
      const { Attributes } = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: names }));
      return names.reduce((sum, name) => sum + Number(Attributes?.[name] ?? 0), 0);
    };
    const waitingNames: QueueAttributeName[] = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'];
    // A dead letter someone is looking at (deadLetters() receives it) is still a dead letter.
    const deadNames: QueueAttributeName[] = [...waitingNames, 'ApproximateNumberOfMessagesNotVisible'];
    const [waiting, deadLetters] = await Promise.all([approximate(this.queueUrl, waitingNames), this.deadLetterQueueUrl().then((url) => approximate(url, deadNames))]);
    return [{ taskType: null, waiting, deadLetters }];
  }

  async check(): Promise<void> {
    await this.client.send(new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['QueueArn'] }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
    this.client.destroy();
  }

  // --- used by consumers ---------------------------------------------------------------------------

  get settings(): { queueUrl: string; waitTimeSeconds: number; backoff: BackoffPolicy; logger: Logger; deleteFlushMs: number; now: () => number } {
    return { queueUrl: this.queueUrl, waitTimeSeconds: this.waitTimeSeconds, backoff: this.backoff, logger: this.logger, deleteFlushMs: this.options.deleteFlushMs ?? 0, now: this.options.now ?? Date.now };
  }

  async sendDead(message: Message, reason: string): Promise<void> {
    const attributes = Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue ?? '']));
    // On a FIFO dead-letter queue, deduplicated by this SQS message (a second dead-lettering of the same receive is
    // dropped), not by our MessageId: a redriven message that goes dead again within five minutes would be dropped
    // as a duplicate of its first dead letter, then deleted from the work queue, and lost.
    await this.send(await this.deadLetterQueueUrl(), message.Body ?? 'null', { ...attributes, DeadReason: reason.slice(0, 1000) }, message.MessageId);
  }

  /** SQS_DLQ_URL, or the queue named by the queue's RedrivePolicy. */
  deadLetterQueueUrl(): Promise<string> {
    this.deadUrl ??= (async () => {
      const { Attributes } = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['RedrivePolicy'] }));
      const policy = Attributes?.RedrivePolicy ? (JSON.parse(Attributes.RedrivePolicy) as { deadLetterTargetArn?: string }) : null;
      const arn = policy?.deadLetterTargetArn;
      if (!arn) throw new Error(`the SQS queue ${this.queueUrl} has no dead-letter queue: give it a RedrivePolicy, or set SQS_DLQ_URL`);
      const [, , , , account, name] = arn.split(':');
      const { QueueUrl } = await this.client.send(new GetQueueUrlCommand({ QueueName: name, ...(account ? { QueueOwnerAWSAccountId: account } : {}) }));
      if (!QueueUrl) throw new Error(`the dead-letter queue ${arn} was not found`);
      return QueueUrl;
    })().catch((error: unknown) => {
      this.deadUrl = null;
      throw error;
    });
    return this.deadUrl;
  }

  private async send(queueUrl: string, body: string, attributes: Record<string, string>, deduplicationId?: string): Promise<void> {
    const messageAttributes = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, text(value)]));
    const fifo = queueUrl.endsWith('.fifo');
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        MessageAttributes: messageAttributes,
        // One group per message: FIFO's deduplication without serialising unrelated jobs.
        ...(fifo ? { MessageGroupId: attributes['MessageId'] ?? randomUUID(), MessageDeduplicationId: deduplicationId ?? attributes['MessageId'] ?? randomUUID() } : {}),
      }),
    );
  }

  /**
   * Receives with visibility 0, so the messages stay visible to consumers. Each such receive counts on SQS (the next
   * delivery's attempt number grows by one per peek), and SQS shows only visible messages: one held by a consumer or
   * waiting out a retry delay is not listed. Each round is a long poll (`browseWaitSeconds`; it waits only when nothing is visible),
   * which asks every SQS server: a short poll samples some and may answer fewer messages than there are, or none. A
   * short round ends the browse, as another round would count one more receive on every message.
   */
  private async browse(queueUrl: string, max: number): Promise<PeekedMessage[]> {
    const peeked = new Map<string, PeekedMessage>();
    while (peeked.size < max) {
      const wanted = Math.min(10, max - peeked.size);
      const { Messages } = await this.client.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: wanted, VisibilityTimeout: 0, WaitTimeSeconds: this.browseWaitSeconds, MessageAttributeNames: ['All'] }),
      );
      const fresh = (Messages ?? []).filter((message) => !peeked.has(message.MessageId ?? ''));
      for (const message of fresh) peeked.set(message.MessageId ?? '', toPeeked(message));
      if (fresh.length < wanted) break;
    }
    return [...peeked.values()];
  }
}

const attribute = (message: Message, name: string): string => message.MessageAttributes?.[name]?.StringValue ?? '';

function toPeeked(message: Message): PeekedMessage {
  const reason = attribute(message, 'DeadReason');
  return {
    id: attribute(message, 'MessageId') || (message.MessageId ?? ''),
    body: parseBody(message),
    attributes: { TaskType: attribute(message, 'TaskType'), Environment: attribute(message, 'Environment') },
    ...(reason ? { reason } : {}),
  };
}

function parseBody(message: Message): unknown {
  try {
    return JSON.parse(message.Body ?? 'null') as unknown;
  } catch {
    return message.Body;
  }
}

interface Delivery {
  message: Message;
  attempt: number;
  /** When its receive was asked for (settings.now): SQS's 12-hour hold counts from then, or a little later. */
  receivedAt: number;
  /** Its visibility ran out: SQS gives it to another consumer; this handler's outcome no longer counts. */
  expired: boolean;
  timer: NodeJS.Timeout | null;
}

/** One consume() call: a receive loop that asks for as many messages as it has free handler slots. */
class SqsConsumer implements Consumer {
  private stopped = false;
  private running = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** The back-off after a failed receive, which stop() ends at once (it does not wait out up to 10 s). */
  private readonly idle = new WakeableSleep();
  private deletes: string[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: SqsMessageQueue,
    private readonly options: ConsumeOptions,
    private readonly handler: (message: DeliveredMessage) => Promise<HandlerOutcome>,
    private readonly onStopped: (consumer: SqsConsumer) => void,
  ) {}

  start(): void {
    this.loop = this.receiveLoop();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.idle.wake();
    // The receive in flight is not aborted: SQS may already have hidden the messages it is returning, which would
    // then stay hidden for a whole visibility timeout. Its answer is handed back at once instead (see the loop).
    this.wake?.();
    await this.loop;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    await this.flush();
    this.onStopped(this);
  }

  private async receiveLoop(): Promise<void> {
    const { queueUrl, waitTimeSeconds, logger, now } = this.queue.settings;
    const visibility = wholeSeconds(this.options.visibilitySeconds) || 1;
    let failures = 0;
    while (!this.stopped) {
      const free = this.options.concurrency - this.running;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      let messages: Message[];
      const askedAt = now();
      try {
        const answer = await this.queue.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.min(10, free),
            WaitTimeSeconds: waitTimeSeconds,
            VisibilityTimeout: visibility,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
        );
        messages = answer.Messages ?? [];
        failures = 0;
      } catch (error) {
        if (this.stopped) return;
        failures += 1;
        logger.warn('SQS receive failed; retrying', { error: describeError(error), failures });
        await this.idle.sleep(Math.min(10_000, 200 * 2 ** Math.min(failures, 6)));
        continue;
      }
      if (this.stopped) {
        // Received while stopping: not ours to run any more, visible again at once for the other consumers.
        await Promise.all(messages.map((message) => this.changeVisibility(message, 0).catch(() => undefined)));
        return;
      }
      let foreign = 0;
      for (const message of messages) {
        if (attribute(message, 'Environment') !== this.options.environment || !this.options.taskTypes.includes(attribute(message, 'TaskType'))) {
          // Not ours: visible again at once for the consumers it is for.
          foreign += 1;
          await this.changeVisibility(message, 0).catch(() => undefined);
          continue;
        }
        this.run({ message, attempt: Number(message.Attributes?.ApproximateReceiveCount ?? 1), receivedAt: askedAt, expired: false, timer: null });
      }
      if (foreign > 0 && foreign === messages.length) await sleep(200); // only others' messages: do not spin on them
    }
  }

  private run(delivery: Delivery): void {
    this.running += 1;
    const work = this.handle(delivery).finally(() => {
      this.inFlight.delete(work);
      this.running -= 1;
      this.wake?.();
    });
    this.inFlight.add(work);
  }

  private async handle(delivery: Delivery): Promise<void> {
    const { options } = this;
    const { backoff, logger } = this.queue.settings;
    // Armed until the message is settled: dead-lettering runs onDeadLetter, which may outlast the visibility too.
    this.arm(delivery, wholeSeconds(options.visibilitySeconds) || 1);
    if (delivery.attempt > options.maxAttempts) {
      // A failure here (SQS unreachable) must not escape: nobody awaits this promise, and an unhandled rejection
      // ends the worker process. The message stays hidden for its visibility, then comes back to be dead-lettered.
      try {
        await this.deadLetter(delivery, expiredReason(options.maxAttempts), { ...this.delivered(delivery), attempt: options.maxAttempts });
      } catch (error) {
        logger.warn('SQS message not dead-lettered; it will be delivered again', { messageId: delivery.message.MessageId, error: describeError(error) });
      }
      if (delivery.timer) clearTimeout(delivery.timer);
      return;
    }
    let result: { outcome: HandlerOutcome } | { error: unknown };
    try {
      result = { outcome: await this.handler(this.delivered(delivery)) };
    } catch (error) {
      result = { error };
    }
    if (delivery.expired) {
      logger.info('late outcome ignored: the message was handed to another consumer', { messageId: delivery.message.MessageId });
      return;
    }
    if ('error' in result) logger.warn('queue handler failed', { messageId: delivery.message.MessageId, attempt: delivery.attempt, error: describeError(result.error) });
    await this.settle(delivery, settlementOf(result, delivery.attempt, options.maxAttempts, backoff)).catch((error: unknown) =>
      logger.warn('SQS message not settled; it will be delivered again', { messageId: delivery.message.MessageId, error: describeError(error) }),
    );
    if (delivery.timer) clearTimeout(delivery.timer);
  }

  private delivered(delivery: Delivery): DeliveredMessage {
    const { message, attempt } = delivery;
    return {
      id: attribute(message, 'MessageId') || (message.MessageId ?? ''),
      taskType: attribute(message, 'TaskType'),
      environment: attribute(message, 'Environment'),
      body: parseBody(message),
      attempt,
      ...withTrace(traceCarrierOf(Object.fromEntries(TRACE_FIELDS.map((name) => [name, attribute(message, name)])))),
      extendVisibility: async (seconds: number) => {
        if (delivery.expired) throw new Error('the message is no longer held by this consumer (its visibility ran out)');
        const whole = this.held(delivery, wholeSeconds(seconds) || 1);
        await this.changeVisibility(message, whole);
        this.arm(delivery, whole);
      },
    };
  }

  /**
   * `seconds`, or less when SQS's hold of this receive ends sooner: SQS refuses a visibility that would end more than
   * 12 hours after the receive, and a refused retry delay would bring the message back at once. A second is kept in
   * hand for the time between the receive's request and SQS's answer.
   */
  private held(delivery: Delivery, seconds: number): number {
    const left = MAX_HOLD_SECONDS - Math.ceil((this.queue.settings.now() - delivery.receivedAt) / 1000) - 1;
    return Math.max(0, Math.min(seconds, left));
  }

  /** Our view of the visibility: when it runs out SQS redelivers, so the handler's late outcome must not count. */
  private arm(delivery: Delivery, seconds: number): void {
    if (delivery.timer) clearTimeout(delivery.timer);
    // A little before SQS's own clock runs out (it started when SQS answered the receive): a receipt handle used
    // after that is stale, so the outcome is dropped and the message comes back instead.
    delivery.timer = setTimeout(() => (delivery.expired = true), Math.max(500, seconds * 1000 - 250));
  }

  private async settle(delivery: Delivery, settlement: Settlement): Promise<void> {
    if (settlement.kind === 'delete') return this.delete(delivery.message);
    if (settlement.kind === 'delay') return this.changeVisibility(delivery.message, this.held(delivery, wholeSeconds(settlement.seconds)));
    return this.deadLetter(delivery, settlement.reason, this.delivered(delivery));
  }

  private async deadLetter(delivery: Delivery, reason: string, message: DeliveredMessage): Promise<void> {
    if (this.options.onDeadLetter) {
      try {
        await this.options.onDeadLetter(message, reason);
      } catch (error) {
        this.queue.settings.logger.warn('onDeadLetter failed; the message stays', { messageId: message.id, error: describeError(error) });
        await this.changeVisibility(delivery.message, 0).catch(() => undefined);
        return;
      }
      // Its visibility ran out meanwhile: the message is another delivery's now, which dead-letters it (once).
      if (delivery.expired) {
        this.queue.settings.logger.info('dead letter left to the delivery that holds the message now', { messageId: message.id });
        return;
      }
    }
    await this.queue.sendDead(delivery.message, reason);
    await this.delete(delivery.message);
  }

  private changeVisibility(message: Message, seconds: number): Promise<void> {
    const { queueUrl } = this.queue.settings;
    return this.queue.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: seconds })).then(() => undefined);
  }

  /** Batched: up to 10 receipt handles per DeleteMessageBatch, flushed shortly after the first. */
  private delete(message: Message): Promise<void> {
    if (message.ReceiptHandle) this.deletes.push(message.ReceiptHandle);
    if (this.deletes.length >= 10) return this.flush();
    this.flushTimer ??= setTimeout(() => void this.flush(), this.queue.settings.deleteFlushMs);
    return Promise.resolve();
  }

  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.deletes.splice(0, 10);
    const rest = this.deletes.length > 0;
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      const { queueUrl, logger } = this.queue.settings;
      const answer = await this.queue.client
        .send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((handle, index) => ({ Id: String(index), ReceiptHandle: handle })) }))
        .catch((error: unknown) => {
          logger.warn('SQS batch delete failed; those messages will be delivered again', { error: describeError(error) });
          return null;
        });
      for (const failed of answer?.Failed ?? []) logger.warn('SQS delete refused; the message will be delivered again', { code: failed.Code, message: failed.Message });
    });
    return rest ? this.flushing.then(() => this.flush()) : this.flushing;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
