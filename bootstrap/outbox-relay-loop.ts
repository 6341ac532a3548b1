import { describeError } from '../core/domain/message-delivery.ts';
import type { Clock } from '../core/ports/clock.port.ts';
import type { Logger } from '../core/ports/logger.port.ts';
import type { Outbox } from '../core/ports/outbox.port.ts';
import type { RelayOutbox } from '../core/use-cases/queue/relay-outbox.use-case.ts';
import type { LifecycleBinding } from './tokens.ts';

export interface OutboxRelayLoopDeps {
  relay: RelayOutbox;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}

export interface OutboxRelayLoopOptions {
  /** Fallback poll, for entries added by another process or whose notification was lost. */
  intervalMs?: number;
  /** Published entries older than this are deleted. */
  retainPublishedMs?: number;
  purgeEveryMs?: number;
}

/**
 * Runs the relay when the outbox is notified and every `intervalMs` as a fallback. Runs never
 * overlap in one process; several processes may relay at once (at worst a message goes out twice).
 */
export class OutboxRelayLoop implements LifecycleBinding {
  readonly name = 'outbox-relay';
  readonly roles: LifecycleBinding['roles'] = ['api', 'worker'];
  private readonly intervalMs: number;
  private readonly retainPublishedMs: number;
  private readonly purgeEveryMs: number;
  private tail: Promise<unknown> = Promise.resolve();
  private queued = false;
  private stopped = true;
  private timer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private lastPurge = -Infinity;

  constructor(
    private readonly deps: OutboxRelayLoopDeps,
    options: OutboxRelayLoopOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.retainPublishedMs = options.retainPublishedMs ?? 86_400_000;
    this.purgeEveryMs = options.purgeEveryMs ?? 3_600_000;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.unsubscribe = this.deps.outbox.onNotify(() => this.trigger());
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    // Entries left behind by a previous run of the process go out now, not after the first tick.
    this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tail;
  }

  /** Asks for a run; runs asked for while one is waiting to start merge into it. */
  trigger(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    void this.exclusive(async () => {
      this.queued = false;
      await this.runOnce();
    });
  }

  /** Relays now (after any run in progress) and returns how many entries went out. For tests and shutdown paths. */
  flush(): Promise<number> {
    return this.exclusive(() => this.deps.relay.execute());
  }

  private async runOnce(): Promise<void> {
    try {
      const published = await this.deps.relay.execute();
      if (published > 0) this.deps.logger.debug('outbox relayed', { published });
    } catch (error) {
      this.deps.logger.error('outbox relay failed', { error: describeError(error) });
    }
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPurge < this.purgeEveryMs) return;
    this.lastPurge = now;
    try {
      const purged = await this.deps.outbox.purgePublished(new Date(now - this.retainPublishedMs));
      if (purged > 0) this.deps.logger.debug('outbox purged', { purged });
    } catch (error) {
      this.deps.logger.error('outbox purge failed', { error: describeError(error) });
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
