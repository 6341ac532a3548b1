import { EventEmitter } from 'node:events';
import type { EventBus } from '../../core/ports/user-events.port.ts';

export type HandlerErrorReporter = (error: unknown, channel: string) => void;

/**
 * The event bus of a single process (the embedded default, API and worker together). Delivery is
 * asynchronous, in publish order, and each payload goes through a JSON round trip so subscribers
 * see exactly what a cross-process bus would hand them. A handler that throws (or rejects) is
 * reported and does not stop delivery to the others.
 */
export class InProcessEventBus implements EventBus {
  private readonly emitter = new EventEmitter();
  private closed = false;

  constructor(private readonly onHandlerError: HandlerErrorReporter = () => undefined) {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, payload: unknown): Promise<void> {
    if (this.closed) throw new Error('the event bus is closed');
    const text = JSON.stringify(payload);
    // As the other buses: refused here, not thrown later where nobody can catch it (JSON.parse of undefined).
    if (text === undefined) throw new TypeError(`the payload for ${channel} has no JSON form`);
    setImmediate(() => {
      if (this.emitter.listenerCount(channel) > 0) this.emitter.emit(channel, JSON.parse(text));
    });
  }

  async subscribe(channel: string, handler: (payload: unknown) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the event bus is closed');
    const listener = (payload: unknown): void => {
      try {
        const returned: unknown = handler(payload);
        if (returned instanceof Promise) returned.catch((error: unknown) => this.onHandlerError(error, channel));
      } catch (error) {
        this.onHandlerError(error, channel);
      }
    };
    this.emitter.on(channel, listener);
    return async () => {
      this.emitter.off(channel, listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.emitter.removeAllListeners();
  }
}
