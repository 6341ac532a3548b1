import type { Channel, ChannelModel } from 'amqplib';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { EventBus } from '../../core/ports/user-events.port.ts';
import { AmqpLink } from './amqp-link.ts';

export interface RabbitEventBusOptions {
  url: string;
  logger: Logger;
  /** The exchange is `<prefix>.events`. Default `media-gen`. */
  prefix?: string;
  /** A handler that throws or rejects is reported here; the other handlers still get the message. */
  onHandlerError?: (error: unknown, channel: string) => void;
  /** Shown in the broker's connection list. */
  name?: string;
}

interface Subscriber {
  channel: Channel;
  queue: string;
}

/**
 * EVENT_BUS_DRIVER=rabbitmq: the bus between API and worker processes on the broker the queue already uses, so a
 * RabbitMQ deployment needs no Redis for live events. One durable direct exchange (`<prefix>.events`), the bus
 * channel name as routing key; each process listens on an exclusive, server-named queue bound to the channels it
 * has handlers for. Messages are transient and delivery is at most once, as with Redis pub/sub: a process that is
 * away misses what was published meanwhile (user events are stored first, and clients replay them with `sync`).
 * After a reconnection the queue is declared again with every binding; so it is when only the listening channel closes
 * (a channel-level error, such as a bind to an exchange deleted under it).
 */
export class RabbitEventBus implements EventBus {
  private readonly link: AmqpLink;
  private readonly exchange: string;
  private readonly handlers = new Map<string, Set<(payload: unknown) => void>>();
  private subscriber: Promise<Subscriber> | null = null;
  /** Publish channels on which the exchange was declared (one per connection). */
  private readonly declaredOn = new WeakSet<Channel>();
  private readonly reconnectListeners = new Set<() => void>();
  private closed = false;

  constructor(private readonly options: RabbitEventBusOptions) {
    this.link = new AmqpLink({ url: options.url, logger: options.logger, name: options.name ?? 'media-gen events' });
    this.exchange = `${options.prefix ?? 'media-gen'}.events`;
  }

  async open(): Promise<void> {
    await this.link.open();
    let first = true;
    this.link.onConnect(async (model) => {
      // A new connection: the old queue went with the old one, and whatever was published meanwhile is lost.
      if (this.handlers.size > 0) this.subscriber = this.listen(model);
      else this.subscriber = null;
      if (first) {
        first = false;
        return;
      }
      await this.subscriber?.catch(() => null);
      for (const listener of this.reconnectListeners) listener();
    });
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async publish(channel: string, payload: unknown): Promise<void> {
    if (this.closed) throw new Error('the event bus is closed');
    const text = JSON.stringify(payload);
    if (text === undefined) throw new TypeError(`the payload for ${channel} has no JSON form`);
    const publisher = await this.link.publishChannel(5000);
    if (!this.declaredOn.has(publisher)) {
      await publisher.assertExchange(this.exchange, 'direct', { durable: true });
      this.declaredOn.add(publisher);
    }
    await new Promise<void>((resolve, reject) => {
      publisher.publish(this.exchange, channel, Buffer.from(text), { persistent: false, contentType: 'application/json' }, (error: unknown) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      );
    });
  }

  async subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the event bus is closed');
    // A wrapper per subscription: the same function subscribed twice is called twice.
    const entry = (payload: unknown) => handler(payload);
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(entry);
    try {
      const listening = await this.listening();
      if (first) await listening.channel.bindQueue(listening.queue, this.exchange, channel);
    } catch (error) {
      await this.remove(channel, entry).catch(() => undefined);
      throw error;
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      await this.remove(channel, entry);
    };
  }

  /** Health check: the connection is up and the exchange exists. */
  async ping(): Promise<void> {
    const publisher = await this.link.publishChannel(3000);
    await publisher.assertExchange(this.exchange, 'direct', { durable: true });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handlers.clear();
    const subscriber = await this.subscriber?.catch(() => null);
    await subscriber?.channel.close().catch(() => undefined);
    await this.link.close();
  }

  private async remove(channel: string, entry: (payload: unknown) => void): Promise<void> {
    const set = this.handlers.get(channel);
    if (!set?.delete(entry) || set.size > 0) return;
    this.handlers.delete(channel);
    if (this.closed || !this.subscriber) return;
    const listening = await this.subscriber.catch(() => null);
    await listening?.channel.unbindQueue(listening.queue, this.exchange, channel).catch(() => undefined);
  }

  private async listening(): Promise<Subscriber> {
    if (!this.subscriber) this.subscriber = this.listen(await this.link.connection(5000));
    const pending = this.subscriber;
    try {
      return await pending;
    } catch (error) {
      if (this.subscriber === pending) this.subscriber = null;
      throw error;
    }
  }

  private async listen(model: ChannelModel): Promise<Subscriber> {
    const channel = await model.createChannel();
    channel.on('error', (error: Error) => this.options.logger.warn('event bus channel error', { error: error.message }));
    // After the handlers of the connection's own 'close' (which a dropped connection fires too) have run.
    channel.on('close', () => setImmediate(() => void this.channelLost(model, channel)));
    await channel.assertExchange(this.exchange, 'direct', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const name of this.handlers.keys()) await channel.bindQueue(queue, this.exchange, name);
    await channel.consume(queue, (message) => {
      if (!message) return;
      this.dispatch(message.fields.routingKey, message.content.toString('utf8'));
    }, { noAck: true });
    return { channel, queue };
  }

  /**
   * The listening channel closed while its connection stays up (a channel-level error): its queue went with it, so
   * listen again on a new channel with every binding, then tell the reconnect listeners (messages were missed). A
   * dropped connection is left to onConnect; a channel already replaced, or our own close, changes nothing.
   */
  private async channelLost(model: ChannelModel, channel: Channel): Promise<void> {
    if (this.closed || this.link.live !== model) return;
    const pending = this.subscriber;
    const current = await pending?.catch(() => null);
    if (!current || current.channel !== channel || this.subscriber !== pending) return;
    this.options.logger.warn('event bus channel closed; listening again on a new one', {});
    this.subscriber = this.handlers.size > 0 ? this.listen(model) : null;
    await this.subscriber?.catch(() => null);
    for (const listener of this.reconnectListeners) listener();
  }

  private dispatch(channel: string, text: string): void {
    const set = this.handlers.get(channel);
    if (!set) return;
    const report = this.options.onHandlerError ?? (() => undefined);
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (error) {
      report(new Error(`not JSON: ${(error as Error).message}`), channel);
      return;
    }
    for (const handler of [...set]) {
      try {
        const returned: unknown = handler(payload);
        if (returned instanceof Promise) returned.catch((error: unknown) => report(error, channel));
      } catch (error) {
        report(error, channel);
      }
    }
  }
}
