import amqp, { type ChannelModel, type ConfirmChannel, type RecoveringChannelModel } from 'amqplib';
import type { Logger } from '../../core/ports/logger.port.ts';

export interface AmqpLinkOptions {
  url: string;
  logger: Logger;
  /** Reconnect back-off after a broker restart or a dropped connection. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts before the first connection gives up (start-up fails fast against a wrong URL). */
  initialMaxRetries?: number;
  /** Shown in the broker's connection list. */
  name?: string;
}

type ConnectListener = (model: ChannelModel) => Promise<void> | void;

/**
 * One AMQP connection that comes back by itself (amqplib's recovery: exponential back-off with jitter) after a
 * broker restart or a dropped socket. Channels do not survive a reconnection: whoever holds one registers with
 * `onConnect` and rebuilds it there. Publishing goes through one confirm channel, rebuilt the same way; a publish
 * made while the broker is away waits for the reconnection (bounded by `publishTimeoutMs`) instead of failing at once.
 */
export class AmqpLink {
  private model: RecoveringChannelModel | null = null;
  private current: ChannelModel | null = null;
  private publisher: Promise<ConfirmChannel> | null = null;
  private readonly listeners = new Set<ConnectListener>();
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: AmqpLinkOptions) {}

  async open(): Promise<void> {
    if (this.model) return;
    const { url, logger } = this.options;
    this.model = await amqp.connect(url, {
      clientProperties: { connection_name: this.options.name ?? 'media-gen' },
      // Small frames go out at once: with Nagle's algorithm each publish and ack waited ~40 ms for a delayed TCP ack.
      noDelay: true,
      recovery: {
        initialDelay: this.options.initialDelayMs ?? 200,
        maxDelay: this.options.maxDelayMs ?? 10_000,
        maxRetries: Infinity,
        initialMaxRetries: this.options.initialMaxRetries ?? 5,
        setup: async (model: ChannelModel) => this.connected(model),
      },
    });
    this.model.on('disconnect', (error: Error) => {
      this.current = null;
      this.publisher = null;
      // Not after close(): amqplib's recovery unbinds the connection before closing it, so no disconnect follows.
      logger.warn('AMQP connection lost; reconnecting', { error: error?.message });
    });
    this.model.on('reconnect-failed', (error: Error) => logger.error('AMQP reconnection given up', { error: error?.message }));
    this.model.on('error', (error: Error) => logger.warn('AMQP connection error', { error: error?.message }));
  }

  /** Runs now if connected, and again after every reconnection. Returns the unregister function. */
  onConnect(listener: ConnectListener): () => void {
    this.listeners.add(listener);
    if (this.current) void this.setUp(listener, this.current);
    return () => this.listeners.delete(listener);
  }

  /** The connection now, or null while reconnecting (or closed). */
  get live(): ChannelModel | null {
    return this.current;
  }

  /** The live connection, waiting up to `timeoutMs` for a reconnection. */
  async connection(timeoutMs = 15_000): Promise<ChannelModel> {
    if (this.closed) throw new Error('the AMQP link is closed');
    if (this.current) return this.current;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        reject(new Error(`RabbitMQ is not reachable (waited ${timeoutMs} ms for a connection)`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
    if (!this.current) throw new Error('the AMQP link is closed');
    return this.current;
  }

  /** The confirm channel for publishing (one per connection). */
  async publishChannel(timeoutMs?: number): Promise<ConfirmChannel> {
    const model = await this.connection(timeoutMs);
    if (!this.publisher) {
      const created = model.createConfirmChannel();
      this.publisher = created;
      created.then(
        (channel) => {
          channel.on('error', () => undefined); // its close follows; the next publish opens another
          channel.on('close', () => {
            if (this.publisher === created) this.publisher = null;
          });
        },
        () => {
          if (this.publisher === created) this.publisher = null;
        },
      );
    }
    return this.publisher;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters) waiter();
    this.waiters = [];
    const model = this.model;
    this.model = null;
    this.current = null;
    // The recovering model's close() does not reject (it swallows the connection's own close errors).
    await model?.close();
  }

  private async connected(model: ChannelModel): Promise<void> {
    this.current = model;
    this.publisher = null;
    for (const listener of this.listeners) {
      await this.setUp(listener, model);
    }
    for (const waiter of this.waiters) waiter();
    this.waiters = [];
  }

  /** Runs one listener now; its failure, a throw as much as a rejection, is logged (it must not fail the connection). */
  private async setUp(listener: ConnectListener, model: ChannelModel): Promise<void> {
    try {
      await listener(model);
    } catch (error) {
      this.options.logger.warn('AMQP setup failed', { error: String(error) });
    }
  }
}
