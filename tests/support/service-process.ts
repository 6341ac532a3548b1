import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** The real service as its own process (`node --import tsx bootstrap/main.ts`), so a test can kill it like a crash would. */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  readonly output: string[] = [];

  constructor(
    private readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 60_000): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bootstrap/main.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (chunk) => this.output.push(String(chunk)));
    child.stderr!.on('data', (chunk) => this.output.push(String(chunk)));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: ${this.output.join('').slice(-2000)}`);
      try {
        const response = await fetch(`${this.baseUrl}/api/v1/health`);
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    throw new Error(`service did not become healthy: ${this.output.join('').slice(-2000)}`);
  }

  /** SIGKILL: no shutdown hook runs, exactly like a crash or an OOM kill. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
  }
}

/**
 * A `ROLES=worker` process: the same entry point as ServiceProcess, but it serves no HTTP, so there is
 * no health route to wait for; it is up while it has not exited (jobs wait in the queue meanwhile).
 */
export class WorkerProcess {
  private child: ChildProcess | null = null;
  readonly output: string[] = [];

  constructor(private readonly env: Record<string, string>) {}

  start(): void {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bootstrap/main.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, ...this.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (chunk) => this.output.push(String(chunk)));
    child.stderr!.on('data', (chunk) => this.output.push(String(chunk)));
  }

  get exitCode(): number | null {
    return this.child?.exitCode ?? null;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
  }

  /** SIGKILL: a crash mid-job. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
