import type { Logger } from '../../core/ports/logger.port.ts';
import type { LifecycleBinding } from '../tokens.ts';

/** A lifecycle that runs `work` every `intervalMs` (never two at once) until stopped. */
export function periodic(name: string, roles: ('api' | 'worker')[], intervalMs: number, logger: Logger, work: () => Promise<void>): LifecycleBinding {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = work()
      .catch((error: unknown) => logger.error(`${name} failed`, { error }))
      .finally(() => {
        running = null;
      });
  };
  return {
    name,
    roles,
    async start() {
      timer = setInterval(tick, intervalMs);
      timer.unref();
      tick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
