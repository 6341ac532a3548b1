import { Redis, type RedisOptions } from 'ioredis';
import type { EventBus } from '../../core/ports/user-events.port.ts';

export type HandlerErrorReporter = (error: unknown, channel: string) => void;
export type ConnectionErrorReporter = (error: unknown, connection: 'publisher' | 'subscriber') => void;

export interface RedisEventBusOptions {
  /** Put in front of every channel name, so other applications on the same Redis are left alone. Default `mgs:`. */
  prefix?: string;
  /** A handler that throws or rejects is reported here; the other handlers still get the message. */
  onHandlerError?: HandlerErrorReporter;
  /** The first error after each (re)connection of either connection; ioredis keeps reconnecting meanwhile. */
  onConnectionError?: ConnectionErrorReporter;
  /** `CLIENT SETNAME` of the two connections (`<name>:pub`, `<name>:sub`), as seen in `CLIENT LIST`. Default `mgs-event-bus`. */
  connectionName?: string;
}

interface Subscription {
  handler: (payload: unknown) => void;
}

/**
 * The event bus between processes (API and workers apart), on Redis pub/sub. One connection
 * publishes; another one, in subscriber mode (where Redis refuses PUBLISH), receives. Each channel
 * has one Redis SUBSCRIBE however many handlers it has; the last handler to leave unsubscribes.
 * Payloads travel as JSON text, exactly as the in-process bus hands them over.
 *
 * Delivery is at most once: Redis pub/sub keeps nothing, so a process that is disconnected (or not
 * yet subscribed) when a message is published never gets it. That is acceptable for what travels
 * here. User events are appended to the user's event log before they are published
 * (PublishUserEvent), so a client that missed one replays it with `sync`; a lost cancel request
 * leaves the job marked cancelled and refunded, and the worker discards its outputs when it finishes.
 *
 * After a lost connection ioredis reconnects and, with `autoResubscribe` (its default, set here
 * explicitly), subscribes again to every channel the connection had, so handlers keep receiving.
 */
export class RedisEventBus implements EventBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly onHandlerError: HandlerErrorReporter;
  /** Keyed by the Redis channel name (prefixed). A channel is here exactly while it has handlers. */
  private readonly channels = new Map<string, { subscriptions: Set<Subscription>; subscribed: Promise<unknown> }>();
  private closed = false;
  private readonly reconnectListeners = new Set<() => void>();

  constructor(url: string, options: RedisEventBusOptions = {}) {
    this.prefix = options.prefix ?? 'mgs:';
    this.onHandlerError = options.onHandlerError ?? (() => undefined);
    const name = options.connectionName ?? 'mgs-event-bus';
    // A publish or subscribe during an outage fails after two reconnection attempts instead of
    // waiting for Redis: the event is already stored, and a worker must not stall on live delivery.
    const common: RedisOptions = { maxRetriesPerRequest: 2, enableOfflineQueue: true, autoResubscribe: true, lazyConnect: false };
    this.publisher = new Redis(url, { ...common, connectionName: `${name}:pub` });
    this.subscriber = new Redis(url, { ...common, connectionName: `${name}:sub` });
    reportErrors(this.publisher, (error) => options.onConnectionError?.(error, 'publisher'));
    reportErrors(this.subscriber, (error) => options.onConnectionError?.(error, 'subscriber'));
    this.subscriber.on('message', this.dispatch);
    // ioredis resubscribes on its own; whatever was published while it was away is gone: tell the listeners.
    let first = true;
    this.subscriber.on('ready', () => {
      if (first) {
        first = false;
        return;
      }
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
    await this.publisher.publish(this.prefix + channel, text);
  }

  async subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the event bus is closed');
    const key = this.prefix + channel;
    let entry = this.channels.get(key);
    if (!entry) {
      // Commands on one connection run in order, so a SUBSCRIBE issued after an UNSUBSCRIBE of the
      // same channel (last handler gone, a new one arriving) is never overtaken by it.
      entry = { subscriptions: new Set(), subscribed: this.subscriber.subscribe(key) };
      this.channels.set(key, entry);
    }
    const subscription: Subscription = { handler };
    entry.subscriptions.add(subscription);
    const remove = async (): Promise<void> => {
      const current = this.channels.get(key);
      if (!current?.subscriptions.delete(subscription) || current.subscriptions.size > 0) return;
      this.channels.delete(key);
      if (!this.closed) await this.subscriber.unsubscribe(key);
    };
    try {
      await entry.subscribed;
    } catch (error) {
      await remove().catch(() => undefined);
      throw error;
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      await remove();
    };
  }

  /** PING on the publishing connection (the health check). */
  async ping(): Promise<void> {
    const answer = await this.publisher.ping();
    if (answer !== 'PONG') throw new Error(`redis answered ${answer} to PING`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    this.subscriber.off('message', this.dispatch);
    await Promise.all([quit(this.publisher), quit(this.subscriber)]);
  }

  private readonly dispatch = (key: string, text: string): void => {
    const entry = this.channels.get(key);
    if (!entry) return; // an UNSUBSCRIBE was in flight
    const channel = key.slice(this.prefix.length);
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (error) {
      // Someone else published on our channel; drop the message, keep the bus running.
      this.onHandlerError(new Error(`not JSON: ${(error as Error).message}`), channel);
      return;
    }
    for (const { handler } of [...entry.subscriptions]) {
      try {
        const returned: unknown = handler(payload);
        if (returned instanceof Promise) returned.catch((error: unknown) => this.onHandlerError(error, channel));
      } catch (error) {
        this.onHandlerError(error, channel);
      }
    }
  };
}

/** ioredis emits an error at every failed reconnection attempt: report the first of each outage only. */
function reportErrors(redis: Redis, report: (error: unknown) => void): void {
  let connected = true;
  redis.on('ready', () => {
    connected = true;
  });
  redis.on('error', (error: unknown) => {
    if (!connected) return;
    connected = false;
    report(error);
  });
}

/** QUIT when connected (lets pending replies arrive); otherwise stop reconnecting at once. */
async function quit(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => redis.disconnect());
}
