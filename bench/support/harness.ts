/**
 * Shared bench harness: the real service as a child process (`tsx bootstrap/main.ts`, SQLite or a fresh
 * MariaDB database), a bare Express "hello" baseline in another, autocannon as a library, and one JSON
 * line per scenario on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Options } from 'autocannon';
import mysql from 'mysql2/promise';

export type BenchDb = 'sqlite' | 'mariadb';
export const CONNECTIONS = 50;
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const MARIADB_URL = process.env.BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

export interface Running {
  url: string;
  /** The launcher's pid; its process tree is the server (tsx runs Node as a child). */
  pid: number;
  stop(): Promise<void>;
}

export interface Service extends Running {
  db: BenchDb;
  /** What the service was started with, so a bench can read the database afterwards. */
  databaseUrl: string;
  sqlitePath: string | null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode} before answering`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export function spawnTsx(script: string, env: Record<string, string>): ChildProcess {
  return spawn(TSX, [script], {
    cwd: ROOT,
    // node_modules/.bin first: tsx's shebang must find the project's Node 22.
    env: { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}`, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

async function createMariaDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mgs_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const connection = await mysql.createConnection(MARIADB_URL);
  await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await connection.end();
  return {
    url: `${MARIADB_URL}/${name}`,
    async drop() {
      const c = await mysql.createConnection(MARIADB_URL);
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}

/** Starts `tsx bootstrap/main.ts` on a free port with a temp DATA_DIR and LOG_LEVEL=warn. */
export async function startService(db: BenchDb, env: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-bench-'));
  const maria = db === 'mariadb' ? await createMariaDatabase() : null;
  const sqlitePath = db === 'sqlite' ? path.join(dataDir, 'app.db') : null;
  const databaseUrl = maria ? maria.url : `sqlite:${sqlitePath}`;
  const port = await freePort();
  // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there on exit (summarize it with
  // `tsx bench/support/cpu-profile-summary.ts <file>`).
  const profiling: Record<string, string> = process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {};
  const child = spawnTsx('bootstrap/main.ts', {
    ...profiling,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    APP_ENV: 'local',
    JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-0000',
    // Every bench user signs up from 127.0.0.1.
    REGISTER_MAX_PER_ADDRESS: '100000',
    DATABASE_URL: databaseUrl,
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    await maria?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`${url}/api/v1/health`, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid!, db, databaseUrl, sqlitePath, stop };
}

export async function startBareExpress(): Promise<Running> {
  const port = await freePort();
  const child = spawnTsx('bench/support/bare-express.ts', { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/hello`, child);
  return { url, pid: child.pid!, stop: () => stopChild(child) };
}

/** The second baseline (bench/support/bare-deduct.ts): bare Express doing the deduction's SQLite writes by hand, on a fresh database. */
export async function startBareDeduct(driver: 'sqlite3' | 'node:sqlite'): Promise<Running & { dataDir: string }> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-bare-deduct-'));
  const child = spawnTsx('bench/support/bare-deduct.ts', { PORT: String(port), DB_PATH: path.join(dataDir, 'bare.sqlite'), DRIVER: driver, NODE_NO_WARNINGS: '1' });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/hello`, child);
  return {
    url,
    pid: child.pid!,
    dataDir,
    stop: async () => {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** User + system CPU of a process and all its descendants, in ms (Linux /proc; 0 elsewhere). */
export function treeCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    let ms = (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, USER_HZ = 100
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children ? children.split(' ') : []) ms += treeCpuMs(Number(child));
    }
    return ms;
  } catch {
    return 0;
  }
}

export interface LoadResult {
  /** Server CPU per answered request, when the server was given: steadier than rps on a busy machine. */
  cpuMsPerReq?: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  durationS: number;
  statusCounts: Record<string, number>;
  errors: number;
}

/** One autocannon run at CONNECTIONS connections (unless given); `amount` (exact request count) overrides `durationS`. */
export async function load(options: Omit<Options, 'duration'> & { durationS?: number; server?: Running }): Promise<LoadResult> {
  const { durationS = 10, server, ...rest } = options;
  const cpuBefore = server ? treeCpuMs(server.pid) : 0;
  const started = performance.now();
  // A run of an exact request count ends at autocannon's next sample tick (every second by default), so its
  // rate counted the wait for that tick: ticks every 100 ms then, and our own clock.
  const result = await autocannon({ connections: CONNECTIONS, duration: durationS, timeout: 30, ...(rest.amount ? { sampleInt: 100 } : {}), ...rest });
  const elapsedS = (performance.now() - started) / 1000;
  const cpuMs = server ? treeCpuMs(server.pid) - cpuBefore : 0;
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, Number(count)]));
  return {
    ...(server ? { cpuMsPerReq: Math.round((cpuMs / Math.max(1, result.requests.total)) * 1000) / 1000 } : {}),
    rps: Math.round(result.requests.total / elapsedS),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    durationS: Math.round(elapsedS * 10) / 10,
    statusCounts,
    errors: result.errors,
  };
}

/** The bare-Express figure every scenario is compared with (same connections and duration). */
export async function baseline(durationS: number): Promise<LoadResult> {
  const bare = await startBareExpress();
  try {
    await load({ url: `${bare.url}/hello`, durationS: 2 });
    return await load({ url: `${bare.url}/hello`, durationS, server: bare });
  } finally {
    await bare.stop();
  }
}

export function printLine(bench: string, db: BenchDb, run: LoadResult, base: LoadResult, extra: Record<string, unknown> = {}): void {
  const line = {
    bench,
    db,
    connections: CONNECTIONS,
    durationS: run.durationS,
    rps: run.rps,
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    baselineRps: base.rps,
    ratioToBareExpress: Math.round((run.rps / base.rps) * 1000) / 1000,
    ...(run.cpuMsPerReq !== undefined && base.cpuMsPerReq
      ? {
          cpuMsPerReq: run.cpuMsPerReq,
          baselineCpuMsPerReq: base.cpuMsPerReq,
          // Bare Express's CPU per request over ours: the rps ratio if each server had a core to itself.
          cpuRatioToBareExpress: Math.round((base.cpuMsPerReq / run.cpuMsPerReq) * 1000) / 1000,
        }
      : {}),
    ...extra,
    // Context for reading the figures: other work on the machine shares these CPUs.
    cpus: cpus().length,
    loadAvg1m: Math.round(loadavg()[0]! * 10) / 10,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export interface Session {
  user: { id: string; email: string; coinBalance: number };
  password: string;
  accessToken: string;
  /** `access_token=...; XSRF-TOKEN=...` for cookie-authenticated requests. */
  cookie: string;
  xsrf: string;
}

const cookieValue = (res: Response, name: string): string | undefined =>
  res.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0]!)
    .findLast((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/** Registers (ignoring "taken") and logs in; returns the tokens a bench needs. */
export async function signUpAndLogin(baseUrl: string, email = `bench-${randomUUID()}@example.com`, password = 'bench password 123'): Promise<Session> {
  const json = { 'content-type': 'application/json' };
  const registered = await fetch(`${baseUrl}/api/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password, displayName: 'Bench' }) });
  if (registered.status !== 201 && registered.status !== 409) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const login = await fetch(`${baseUrl}/api/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
  const accessToken = cookieValue(login, 'access_token');
  const xsrf = cookieValue(login, 'XSRF-TOKEN');
  if (!accessToken || !xsrf) throw new Error('login set no access_token or XSRF-TOKEN cookie');
  const body = (await login.json()) as { user: Session['user'] };
  return { user: body.user, password, accessToken, xsrf, cookie: `access_token=${accessToken}; XSRF-TOKEN=${xsrf}` };
}

export async function api(baseUrl: string, session: Session, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${session.accessToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
