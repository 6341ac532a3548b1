import type { EventBus } from '../../core/ports/user-events.port.ts';

/** An event bus that delivers synchronously, in publish order (each handler gets its own copy), and can announce a reconnect. */
export class SyncEventBus implements EventBus {
  readonly handlers = new Map<string, Set<(payload: unknown) => void>>();
  readonly reconnectListeners = new Set<() => void>();

  async publish(channel: string, payload: unknown): Promise<void> {
    for (const handler of this.handlers.get(channel) ?? []) handler(JSON.parse(JSON.stringify(payload)));
  }

  async subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>> {
    const set = this.handlers.get(channel) ?? new Set();
    set.add(handler);
    this.handlers.set(channel, set);
    return async () => void set.delete(handler);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Calls every reconnect listener, as a bus does when its connection comes back. */
  reconnected(): void {
    for (const listener of this.reconnectListeners) listener();
  }

  /** Handlers subscribed, over all channels. */
  handlerCount(): number {
    let count = 0;
    for (const set of this.handlers.values()) count += set.size;
    return count;
  }

  async close(): Promise<void> {}
}
