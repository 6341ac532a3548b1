import { randomUUID } from 'node:crypto';
import type { Channel, ChannelModel, ConsumeMessage, GetMessage, Message } from 'amqplib';
import {
  DEFAULT_BACKOFF,
  describeError,
  expiredReason,
  settlementOf,
  traceCarrierOf,
  traceFields,
  validateConsumeOptions,
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
  TraceCarrier,
} from '../../core/ports/queue.port.ts';
import type { AmqpLink } from './amqp-link.ts';

export interface RabbitMessageQueueOptions {
  /** Names every exchange and queue: `<prefix>` (direct), `<prefix>.<environment>.<taskType>` and its `.dead` queue. */
  prefix?: string;
  /** The broker's own `x-delivery-limit` on work queues: a backstop above MAX_ATTEMPTS (this adapter dead-letters first). */
  deliveryLimit?: number;
  backoff?: BackoffPolicy;
  logger?: Logger;
  /** Routes peek() looks at besides those this process published to or consumed from. */
  routes?: { environment: string; taskType: string }[];
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const ATTEMPT_HEADER = 'x-attempt';
const REASON_HEADER = 'x-dead-reason';

interface Route {
  environment: string;
  taskType: string;
}

/**
 * QUEUE_DRIVER=rabbitmq. One durable quorum queue per (environment, task type), fed by a direct exchange, so a
 * worker takes only its environment and task types and leaves the rest untouched. Publishes wait for the broker's
 * confirm. Consumers ack manually with a prefetch of their concurrency.
 *
 * What RabbitMQ lacks is built here: a visibility timeout (a handler that outlives it has its message returned to
 * the queue for another consumer, and its late outcome is ignored), delayed retries (a fanout exchange and a TTL
 * queue per delay that dead-letters back into the work exchange), attempt counting across both (our `x-attempt`
 * header plus the quorum queue's `x-delivery-count`), and a dead-letter queue written by this adapter after
 * `onDeadLetter` ran. The queue's `x-delivery-limit` dead-letters a message on its own only if this adapter never
 * got to (a backstop). Delivery is at least once and publishing is not deduplicated: consumers are idempotent.
 */
export class RabbitMessageQueue implements MessageQueue {
  readonly prefix: string;
  private readonly deliveryLimit: number;
  private readonly backoff: BackoffPolicy;
  private readonly logger: Logger;
  private readonly known = new Map<string, Route>();
  private readonly asserted = new Set<string>();
  private readonly delays = new Set<number>();
  private readonly consumers = new Set<RabbitConsumer>();

  constructor(
    readonly link: AmqpLink,
    options: RabbitMessageQueueOptions = {},
  ) {
    this.prefix = options.prefix ?? 'media-gen';
    this.deliveryLimit = options.deliveryLimit ?? 10;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.logger = options.logger ?? silent;
    for (const route of options.routes ?? []) this.remember(route);
    // A broker restart forgets nothing durable, but a new connection must not trust what an old one asserted.
    link.onConnect(() => this.asserted.clear());
  }

  queueName(route: Route): string {
    return `${this.prefix}.${route.environment}.${route.taskType}`;
  }

  /** The dead letters of a route: `<work queue>.dead`, bound to the dead exchange with the route's key. */
  deadQueueName(route: Route): string {
    return `${this.queueName(route)}.dead`;
  }

  private get deadExchange(): string {
    return `${this.prefix}.dead`;
  }

  async publish(message: OutgoingMessage): Promise<{ messageId: string }> {
    const messageId = message.messageId ?? randomUUID();
    const route = this.remember({ environment: message.environment, taskType: message.taskType });
    await this.send(route, Buffer.from(JSON.stringify(message.body ?? null)), { messageId, attempt: 0, trace: message.trace });
    return { messageId };
  }

  async consume(options: ConsumeOptions, handler: (message: DeliveredMessage) => Promise<HandlerOutcome>): Promise<Consumer> {
    validateConsumeOptions(options);
    const routes = options.taskTypes.map((taskType) => this.remember({ environment: options.environment, taskType }));
    const consumer = new RabbitConsumer(this, routes, options, handler, this.backoff, this.logger, (done) => this.consumers.delete(done));
    this.consumers.add(consumer);
    await consumer.start();
    return consumer;
  }

  async peek(max: number): Promise<PeekedMessage[]> {
    const queues = [...this.known.values()].map((route) => this.queueName(route));
    queues.push(...[...this.delays].map((ms) => this.delayName(ms)));
    return this.browse(queues, max);
  }

  async deadLetters(max: number): Promise<PeekedMessage[]> {
    return this.browse([...this.known.values()].map((route) => this.deadQueueName(route)), max);
  }

  /** Republished on its route with a fresh attempt count (confirmed), then taken off the dead queue. */
  redrive(id: string): Promise<boolean> {
    // Fresh headers: no reason, no attempt count, no broker delivery count.
    return this.takeDead(id, (route, message) => this.send(route, message.content, { messageId: id, attempt: 0 }));
  }

  discard(id: string): Promise<boolean> {
    return this.takeDead(id, async () => undefined);
  }

  /**
   * Finds the dead letter `id` in the known dead queues (got without ack; the others go back in order when the
   * channel closes), runs `then` and acks it only after `then` succeeded: a failed redrive leaves it dead.
   */
  private async takeDead(id: string, then: (route: Route, message: GetMessage) => Promise<void>): Promise<boolean> {
    const model: ChannelModel = await this.link.connection();
    let channel = await quietChannel(model);
    try {
      for (const route of this.known.values()) {
        for (;;) {
          const message = await channel.get(this.deadQueueName(route), { noAck: false }).catch(async (error: unknown) => {
            if (!/NOT_FOUND/.test(String(error))) throw error;
            // No dead queue yet: nothing to take. The broker closed the channel over it; the next route needs another.
            channel = await quietChannel(model);
            return false as const;
          });
          if (!message) break;
          if (message.properties.messageId !== id) continue;
          await then(route, message);
          channel.ack(message);
          return true;
        }
      }
      return false;
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
  /**
   * Each route's ready messages and dead letters, from a passive declare (the broker's own count; messages waiting
   * out a retry delay sit in the shared delay queues and are not counted). RabbitMQ cannot tell the oldest's age.
   */
  async stats(environment: string, taskTypes: readonly string[]): Promise<QueueStats[]> {
    const model: ChannelModel = await this.link.connection(5000);
    const count = async (queue: string): Promise<number> => {
      // A failed passive declare closes its channel: one channel per queue.
      const channel = await quietChannel(model);
      try {
        return (await channel.checkQueue(queue)).messageCount;
      } catch (error) {
        // A queue nobody declared yet holds nothing.
        if (/NOT_FOUND/.test(String(error))) return 0;
        throw error;
      } finally {
        await channel.close().catch(() => undefined);
      }
    };
    return Promise.all(
      taskTypes.map(async (taskType) => {
        const route = { environment, taskType };
        const [waiting, deadLetters] = await Promise.all([count(this.queueName(route)), count(this.deadQueueName(route))]);
        return { taskType, waiting, deadLetters };
      }),
    );
  }

  async check(): Promise<void> {
    const model = await this.link.connection(5000);
    const channel = await model.createChannel();
    try {
      await channel.assertExchange(this.prefix, 'direct', { durable: true });
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
  }

  /** Test helper: deletes every queue and exchange of this prefix that this instance knows of. */
  async destroyTopology(): Promise<void> {
    const model = await this.link.connection();
    const channel = await quietChannel(model);
    for (const route of this.known.values()) await channel.deleteQueue(this.queueName(route)).catch(() => undefined);
    for (const ms of this.delays) {
      await channel.deleteQueue(this.delayName(ms)).catch(() => undefined);
      await channel.deleteExchange(this.delayName(ms)).catch(() => undefined);
    }
    for (const route of this.known.values()) await channel.deleteQueue(this.deadQueueName(route)).catch(() => undefined);
    await channel.deleteExchange(this.deadExchange).catch(() => undefined);
    await channel.deleteExchange(this.prefix).catch(() => undefined);
    await channel.close().catch(() => undefined);
  }

  // --- used by consumers ---------------------------------------------------------------------------

  /** Declares the work queue of a route (and the exchanges it needs) on `channel`, once per connection. */
  async assertRoute(channel: Channel, route: Route): Promise<string> {
    const name = this.queueName(route);
    if (this.asserted.has(name)) return name;
    await channel.assertExchange(this.prefix, 'direct', { durable: true });
    await channel.assertExchange(this.deadExchange, 'direct', { durable: true });
    await channel.assertQueue(this.deadQueueName(route), { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.bindQueue(this.deadQueueName(route), this.deadExchange, routingKey(route));
    // The broker's own dead-lettering (the delivery-limit backstop) keeps the routing key: same dead queue.
    await channel.assertQueue(name, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': this.deliveryLimit, 'x-dead-letter-exchange': this.deadExchange },
    });
    await channel.bindQueue(name, this.prefix, routingKey(route));
    this.asserted.add(name);
    return name;
  }

  /** Puts a message (back) on its route: at once, or through the delay queue of `delaySeconds`. Confirmed. */
  async send(route: Route, body: Buffer, meta: { messageId: string; attempt: number; trace?: TraceCarrier | undefined }, delaySeconds = 0): Promise<void> {
    const channel = await this.link.publishChannel();
    await this.assertRoute(channel, route);
    let exchange = this.prefix;
    const delayMs = Math.round(delaySeconds * 100) * 10; // 10 ms buckets: one TTL queue per distinct delay
    if (delayMs > 0) exchange = await this.assertDelay(channel, delayMs);
    await new Promise<void>((resolve, reject) => {
      channel.publish(exchange, routingKey(route), body, {
        persistent: true,
        contentType: 'application/json',
        messageId: meta.messageId,
        headers: { TaskType: route.taskType, Environment: route.environment, [ATTEMPT_HEADER]: meta.attempt, ...traceFields(meta.trace) },
      }, (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()));
    });
  }

  /** The message goes to its route's dead-letter queue with its reason; confirmed before the caller acks the original. */
  async sendDead(route: Route, message: Message, reason: string): Promise<void> {
    const channel = await this.link.publishChannel();
    await this.assertRoute(channel, route);
    await new Promise<void>((resolve, reject) => {
      channel.publish(this.deadExchange, routingKey(route), message.content, {
        persistent: true,
        contentType: 'application/json',
        messageId: message.properties.messageId, // none on a foreign message: amqplib leaves it out
        headers: { ...headersOf(message), [REASON_HEADER]: reason.slice(0, 2000) },
      }, (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()));
    });
  }

  private remember(route: Route): Route {
    // Queue names join prefix, environment and task type with dots: a dot inside one (or an environment named
    // like the delay queues) would give two routes one queue, each consumer taking the other's messages.
    for (const part of [route.environment, route.taskType]) {
      if (!ROUTE_PART.test(part)) throw new Error(`RabbitMQ route part ${JSON.stringify(part)}: letters, digits, _ and - only (queue names are joined with dots)`);
    }
    if (route.environment === 'delay') throw new Error('RabbitMQ route: the environment "delay" is taken by the retry delay queues');
    const name = this.queueName(route);
    if (!this.known.has(name)) this.known.set(name, route);
    return route;
  }

  private delayName(ms: number): string {
    return `${this.prefix}.delay.${ms}`;
  }

  /**
   * A fanout exchange and a classic queue whose messages expire after `ms` into the work exchange, keeping their
   * routing key. Declared again on every use: that keeps the queue's `x-expires` (an unused delay queue goes away)
   * from ever catching a message inside it.
   */
  private async assertDelay(channel: Channel, ms: number): Promise<string> {
    const name = this.delayName(ms);
    await channel.assertExchange(name, 'fanout', { durable: true });
    await channel.assertQueue(name, {
      durable: true,
      arguments: { 'x-message-ttl': ms, 'x-dead-letter-exchange': this.prefix, 'x-expires': ms + 3_600_000 },
    });
    await channel.bindQueue(name, name, '');
    this.delays.add(ms);
    return name;
  }

  /**
   * Reads up to `max` messages of these queues without consuming them: got without ack, then all returned at once
   * (RabbitMQ has no browse). A returned message counts as a delivery on a quorum queue, so a peek adds one to the
   * attempt number its next consumer sees; use it for diagnostics.
   */
  private async browse(queues: string[], max: number): Promise<PeekedMessage[]> {
    const model: ChannelModel = await this.link.connection();
    let channel = await quietChannel(model);
    const taken: GetMessage[] = [];
    const peeked: PeekedMessage[] = [];
    try {
      for (const queue of queues) {
        while (peeked.length < max) {
          const message = await channel.get(queue, { noAck: false }).catch(async (error: unknown) => {
            if (!/NOT_FOUND/.test(String(error))) throw error;
            // A queue nobody declared yet holds nothing. The broker closed the channel over it (handing back what it
            // had got, already listed): the next queue is read on another.
            channel = await quietChannel(model);
            return false as const;
          });
          if (!message) break;
          taken.push(message);
          peeked.push(toPeeked(message));
        }
      }
    } finally {
      // Closing the channel returns every unacked message to its queue, in order.
      await channel.close().catch(() => undefined);
    }
    return peeked;
  }
}

/** What an environment or a task type may be made of: no dot, the separator of queue names. */
const ROUTE_PART = /^[A-Za-z0-9_-]+$/;

const routingKey = (route: Route): string => `${route.environment}.${route.taskType}`;

/** A channel whose errors are seen by the call that caused them (a get, a passive declare; the close follows). */
async function quietChannel(model: ChannelModel): Promise<Channel> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  return channel;
}

const headersOf = (message: Message): Record<string, unknown> => ({ ...(message.properties.headers ?? {}) });

function toPeeked(message: Message): PeekedMessage {
  const headers = headersOf(message);
  const reason = headers[REASON_HEADER];
  return {
    id: String(message.properties.messageId ?? ''),
    body: parseBody(message),
    attributes: { TaskType: String(headers['TaskType'] ?? ''), Environment: String(headers['Environment'] ?? '') },
    ...(reason !== undefined ? { reason: String(reason) } : {}),
  };
}

function parseBody(message: Message): unknown {
  try {
    return JSON.parse(message.content.toString('utf8')) as unknown;
  } catch {
    return message.content.toString('utf8');
  }
}

/** Our retries so far plus the broker's count of unsettled returns (crashed or stalled consumers), plus this one. */
function attemptOf(message: Message): number {
  const headers = headersOf(message);
  const retried = Number(headers[ATTEMPT_HEADER] ?? 0);
  const returned = Number(headers['x-delivery-count'] ?? 0);
  return (Number.isFinite(retried) ? retried : 0) + (Number.isFinite(returned) ? returned : 0) + 1;
}

interface Delivery {
  message: ConsumeMessage;
  channel: Channel;
  route: Route;
  attempt: number;
  /** Its visibility ran out: returned to the queue; the handler's outcome no longer counts. */
  expired: boolean;
  timer: NodeJS.Timeout | null;
}

/**
 * One consume() call: a channel (rebuilt on every reconnection) with a consumer per route and a prefetch of the
 * free handler slots. A handler slot stays taken by a handler whose visibility ran out until it returns, so a
 * stalled job never lets more than `concurrency` handlers run; meanwhile the consumer asks for fewer messages.
 */
class RabbitConsumer implements Consumer {
  private channel: Channel | null = null;
  private tags: string[] = [];
  private stopped = false;
  private running = 0;
  private stale = 0;
  private readonly waiting: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private unregister: (() => void) | null = null;
  private recycling: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: RabbitMessageQueue,
    private readonly routes: Route[],
    private readonly options: ConsumeOptions,
    private readonly handler: (message: DeliveredMessage) => Promise<HandlerOutcome>,
    private readonly backoff: BackoffPolicy,
    private readonly logger: Logger,
    private readonly onStopped: (consumer: RabbitConsumer) => void,
  ) {}

  async start(): Promise<void> {
    const model = await this.queue.link.connection();
    await this.open(model);
    this.unregister = this.queue.link.onConnect(async (next) => {
      if (next !== model || !this.channel) await this.open(next);
    });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unregister?.();
    // Through the recycle chain: a resubscription in flight (after an expiry) must not outlive the cancel.
    await this.recycle();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    // Taken but never started: put back with their attempt unchanged (a plain return would count as a delivery).
    for (const delivery of this.waiting.splice(0)) await this.requeueUnchanged(delivery);
    await this.channel?.close().catch(() => undefined);
    this.channel = null;
    this.onStopped(this);
  }

  private get capacity(): number {
    return this.options.concurrency - this.stale;
  }

  private async open(model: ChannelModel): Promise<void> {
    if (this.stopped) return;
    // Unsettled deliveries of a dead channel went back to the queue with it: forget them.
    this.waiting.splice(0);
    const channel = await model.createChannel();
    let consuming = false; // a channel that failed on the way (a queue declared with other arguments) is not retried
    channel.on('error', (error: Error) => this.logger.warn('AMQP consumer channel error', { error: error.message }));
    channel.on('close', () => {
      if (this.channel === channel) {
        this.channel = null;
        this.tags = [];
        if (consuming) setImmediate(() => void this.reopen(model));
      }
    });
    this.channel = channel;
    for (const route of this.routes) await this.queue.assertRoute(channel, route);
    await this.subscribe();
    consuming = true;
  }

  /**
   * The broker closed the channel on its own (a channel error, such as its `consumer_timeout` on a long job) while
   * the connection lives on: consume again on a new one. A lost connection is reopened by onConnect instead.
   */
  private async reopen(model: ChannelModel): Promise<void> {
    if (this.stopped || this.channel || this.queue.link.live !== model) return;
    this.logger.warn('AMQP consumer channel closed; consuming again on a new one', {});
    await this.open(model).catch((error: unknown) => this.logger.warn('AMQP consumer could not reopen its channel', { error: String(error) }));
  }

  private async subscribe(): Promise<void> {
    const channel = this.channel;
    if (!channel || this.stopped || this.capacity <= 0 || this.tags.length > 0) return;
    await channel.prefetch(this.capacity);
    for (const route of this.routes) {
      const { consumerTag } = await channel.consume(this.queue.queueName(route), (message) => {
        if (message) this.received(channel, route, message);
      }, { noAck: false });
      this.tags.push(consumerTag);
    }
  }

  private async cancelAll(): Promise<void> {
    const channel = this.channel;
    const tags = this.tags;
    this.tags = [];
    if (!channel) return;
    for (const tag of tags) await channel.cancel(tag).catch(() => undefined);
  }

  /** Stops taking messages and starts again with the prefetch of the slots free now (serialised). */
  private recycle(): Promise<void> {
    this.recycling = this.recycling.then(async () => {
      await this.cancelAll();
      await this.subscribe();
    }).catch((error: unknown) => this.logger.warn('AMQP consumer could not resubscribe', { error: String(error) }));
    return this.recycling;
  }

  private received(channel: Channel, route: Route, message: ConsumeMessage): void {
    const delivery: Delivery = { message, channel, route, attempt: attemptOf(message), expired: false, timer: null };
    this.waiting.push(delivery);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running + this.stale < this.options.concurrency && this.waiting.length > 0) {
      const delivery = this.waiting.shift()!;
      this.running += 1;
      const work = this.handle(delivery).finally(() => {
        this.inFlight.delete(work);
        if (delivery.expired) {
          this.stale -= 1;
          void this.recycle();
        } else {
          this.running -= 1;
        }
        this.pump();
      });
      this.inFlight.add(work);
    }
  }

  private async handle(delivery: Delivery): Promise<void> {
    const { options } = this;
    if (delivery.attempt > options.maxAttempts) {
      // Delivered maxAttempts times and never settled (its consumers died or stalled): no further handler run.
      await this.deadLetter(delivery, expiredReason(options.maxAttempts), { ...this.delivered(delivery), attempt: options.maxAttempts });
      return;
    }
    this.arm(delivery, options.visibilitySeconds);
    let result: { outcome: HandlerOutcome } | { error: unknown };
    try {
      result = { outcome: await this.handler(this.delivered(delivery)) };
    } catch (error) {
      result = { error };
    }
    if (delivery.timer) clearTimeout(delivery.timer);
    if (delivery.expired || delivery.channel !== this.channel) {
      this.logger.info('late outcome ignored: the message went back to the queue', { messageId: delivery.message.properties.messageId });
      return;
    }
    if ('error' in result) {
      this.logger.warn('queue handler failed', { messageId: delivery.message.properties.messageId, attempt: delivery.attempt, error: describeError(result.error) });
    }
    await this.settle(delivery, settlementOf(result, delivery.attempt, options.maxAttempts, this.backoff));
  }

  private delivered(delivery: Delivery): DeliveredMessage {
    const { message, route, attempt } = delivery;
    return {
      id: String(message.properties.messageId ?? ''),
      taskType: route.taskType,
      environment: route.environment,
      body: parseBody(message),
      attempt,
      ...withTrace(traceCarrierOf(headersOf(message))),
      extendVisibility: async (seconds: number) => {
        if (delivery.expired || delivery.channel !== this.channel) {
          throw new Error('the message is no longer held by this consumer (its visibility ran out or its connection closed)');
        }
        this.arm(delivery, seconds);
      },
    };
  }

  private arm(delivery: Delivery, seconds: number): void {
    if (delivery.timer) clearTimeout(delivery.timer);
    delivery.timer = setTimeout(() => void this.expire(delivery), Math.max(1, seconds * 1000));
  }

  /** The handler outlived its visibility: hand the message to another consumer, keep its slot taken until it returns. */
  private async expire(delivery: Delivery): Promise<void> {
    if (delivery.expired || this.stopped) return;
    delivery.expired = true;
    this.running -= 1;
    this.stale += 1;
    // Fewer slots now: stop taking messages first, so the broker does not hand this one straight back to us.
    await this.recycle();
    if (delivery.channel === this.channel) delivery.channel.nack(delivery.message, false, true);
    this.logger.warn('queue message visibility expired; returned to the queue', { messageId: delivery.message.properties.messageId, attempt: delivery.attempt });
  }

  private async settle(delivery: Delivery, settlement: Settlement): Promise<void> {
    const { message, channel, route, attempt } = delivery;
    const messageId = String(message.properties.messageId ?? '');
    try {
      if (settlement.kind === 'delete') {
        channel.ack(message);
      } else if (settlement.kind === 'delay') {
        await this.queue.send(route, message.content, { messageId, attempt, trace: traceCarrierOf(headersOf(message)) }, settlement.seconds);
        channel.ack(message);
      } else {
        await this.deadLetter(delivery, settlement.reason, this.delivered(delivery));
      }
    } catch (error) {
      // Not settled: the message stays unacked and returns to the queue when this channel closes.
      this.logger.warn('queue message not settled; it will be delivered again', { messageId, error: describeError(error) });
    }
  }

  private async deadLetter(delivery: Delivery, reason: string, message: DeliveredMessage): Promise<void> {
    if (this.options.onDeadLetter) {
      try {
        await this.options.onDeadLetter(message, reason);
      } catch (error) {
        this.logger.warn('onDeadLetter failed; the message stays', { messageId: message.id, error: describeError(error) });
        if (delivery.channel === this.channel) delivery.channel.nack(delivery.message, false, true);
        return;
      }
    }
    await this.queue.sendDead(delivery.route, delivery.message, reason);
    delivery.channel.ack(delivery.message);
  }

  private async requeueUnchanged(delivery: Delivery): Promise<void> {
    const { message, channel, route } = delivery;
    try {
      await this.queue.send(route, message.content, { messageId: String(message.properties.messageId ?? ''), attempt: delivery.attempt - 1, trace: traceCarrierOf(headersOf(message)) });
      channel.ack(message);
    } catch {
      // The channel closes next and returns it anyway.
    }
  }
}
