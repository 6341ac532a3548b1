import type { Logger } from '../core/ports/logger.port.ts';
import type { Role } from './config.ts';
import type { LifecycleBinding } from './tokens.ts';

export interface ScheduledTask {
  name: string;
  /** The roles whose processes run it. */
  roles: Role[];
  everyMs: number;
  /** What it returns is logged at debug level. */
  run(): Promise<unknown>;
}

/**
 * The one periodic scheduler of a process. The features' tasks are added when it is resolved (features.ts);
 * it starts them (first run right after start) when the process has one of their roles, never runs one task
 * twice at once, and stop() waits for runs in flight. Every task is safe in several processes at once (guarded writes).
 */
export class Scheduler implements LifecycleBinding {
  readonly name = 'scheduler';
  readonly roles: LifecycleBinding['roles'] = ['api', 'worker'];
  private readonly tasks: ScheduledTask[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private started = false;

  constructor(
    private readonly processRoles: readonly Role[],
    private readonly logger: Logger,
  ) {}

  add(task: ScheduledTask): void {
    if (this.started) throw new Error(`scheduler: ${task.name} added after start`);
    this.tasks.push(task);
  }

  /** Runs one task now (after a run in flight): for tests and operators. */
  async runNow(name: string): Promise<void> {
    const task = this.tasks.find((candidate) => candidate.name === name);
    if (!task) throw new Error(`scheduler: no task named ${name}`);
    await this.running.get(name);
    await this.tick(task);
  }

  async start(): Promise<void> {
    this.started = true;
    for (const task of this.tasks) {
      if (!task.roles.some((role) => this.processRoles.includes(role))) continue;
      const timer = setInterval(() => void this.tick(task), task.everyMs);
      timer.unref();
      this.timers.push(timer);
      setImmediate(() => void this.tick(task));
    }
  }

  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.started = false;
    await Promise.all(this.running.values());
  }

  private tick(task: ScheduledTask): Promise<void> {
    const inFlight = this.running.get(task.name);
    if (inFlight) return inFlight;
    if (!this.started) return Promise.resolve();
    const run = task
      .run()
      .then((result) => this.logger.debug(`${task.name} done`, { result }))
      .catch((error: unknown) => this.logger.error(`${task.name} failed`, { error: String(error) }))
      .finally(() => this.running.delete(task.name));
    this.running.set(task.name, run);
    return run;
  }
}
