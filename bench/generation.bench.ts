/**
 * Generation benches (issue 5):
 *  1. jobs submitted per second at 20 concurrent clients (template render + coin charge + job + outbox in
 *     one transaction), API role only so the worker's CPU does not share the measurement; SQLite and MariaDB;
 *  2. submit → `job.completed` over the WebSocket for a one-node workflow (api+worker in one process), one job
 *     at a time, p50/p90/p99 on the embedded default and over RabbitMQ (RabbitMQ on 127.0.0.1:5672, or
 *     BENCH_AMQP_URL), against the builtin engine running the same workflow directly; the ratio is the overhead.
 *     The workflow is a template of cost 1 (no generation is free: ADR 016), so the measured path includes
 *     the charge, the job, its outbox entry and its events, each in its transaction.
 * Prints one JSON line per scenario. `npx tsx bench/generation.bench.ts [sqlite] [mariadb] [--latency-only]`
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import amqp from 'amqplib';
import WebSocket from 'ws';
import { BuiltinEngine } from '../adapters/builtin-engine/builtin-engine.ts';
import { api, baseline, load, printLine, signUpAndLogin, startService, type BenchDb } from './support/harness.ts';

const SUBMIT_CONNECTIONS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const LATENCY_JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? 100);
const WARM_UP_JOBS = 10;
const execFileAsync = promisify(execFile);
const AMQP_URL = process.env.BENCH_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const ONE_NODE = { '1': { class_type: 'PreviewAny', inputs: { source: 'ping' } } };

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
};

async function submitThroughput(db: BenchDb, base: Awaited<ReturnType<typeof baseline>>): Promise<void> {
  // No worker, so every job stays queued: the per-user cap on active jobs (ADR 037, 20 by default) would turn
  // all but the first 400 submits into 429s.
  const service = await startService(db, { ROLES: 'api', ADMIN_EMAILS: 'admin@bench.local', SIGNUP_BONUS_COINS: '0', MAX_ACTIVE_JOBS_PER_USER: '100000' });
  try {
    const admin = await signUpAndLogin(service.url, 'admin@bench.local');
    // Twenty clients are twenty users: one user's submits serialize on their balance row by design.
    const users = await Promise.all(Array.from({ length: SUBMIT_CONNECTIONS }, () => signUpAndLogin(service.url)));
    for (const user of users) {
      const topUp = await api(service.url, admin, 'POST', `/admin/coin/add/${user.user.id}`, { amount: 1_000_000, reason: 'admin_adjustment' });
      if (topUp.status !== 200) throw new Error(`top-up: ${topUp.status}`);
    }
    const template = ((await api(service.url, users[0]!, 'GET', '/templates')).body as { id: string; name: string }[]).find((t) => t.name === 'Solid colour image');
    if (!template) throw new Error('ready template missing');
    const body = JSON.stringify({ templateId: template.id, parameters: { prompt: 'bench', width: 64, height: 64 } });
    let next = 0;
    const run = await load({
      url: `${service.url}/api/v1/generate`,
      method: 'POST',
      connections: SUBMIT_CONNECTIONS,
      durationS: DURATION_S,
      headers: { 'content-type': 'application/json' },
      body,
      requests: [
        {
          setupRequest: (request: { headers?: Record<string, string> }) => {
            const user = users[next++ % users.length]!;
            return { ...request, headers: { ...request.headers, authorization: `Bearer ${user.accessToken}` } };
          },
        },
      ],
    } as Parameters<typeof load>[0]);
    const accepted = run.statusCounts['202'] ?? 0;
    // Requests still in flight when autocannon stops commit meanwhile: read until two reads agree.
    const totals = async () => {
      let jobs = 0;
      let charged = 0;
      for (const user of users) {
        jobs += (await api(service.url, user, 'GET', '/generate?limit=1')).body.total as number;
        charged += 1_000_000 - ((await api(service.url, user, 'GET', '/auth/profile')).body.coinBalance as number);
      }
      return { jobs, charged };
    };
    let previous = await totals();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const next = await totals();
      if (next.jobs === previous.jobs && next.charged === previous.charged) break;
      previous = next;
    }
    const { jobs, charged } = previous;
    printLine('generation-submit', db, run, base, {
      connections: SUBMIT_CONNECTIONS,
      // autocannon stops counting at the deadline while a few requests are still in flight, so the
      // server's own records are the truth: one coin charged per job, none lost, none twice.
      acceptedCounted: accepted,
      refused: Object.entries(run.statusCounts).filter(([status]) => status !== '202').reduce((sum, [, count]) => sum + count, 0),
      jobsRecorded: jobs,
      users: users.length,
      coinsCharged: charged,
      chargedExactlyOncePerJob: charged === jobs,
    });
  } finally {
    await service.stop();
  }
}

/** Deletes the queues and exchanges the RabbitMQ run declared under its prefix (needs rabbitmqctl; else they stay). */
async function deleteTopology(prefix: string): Promise<void> {
  const list = async (what: string) => (await execFileAsync('rabbitmqctl', [what, 'name', '-q', '--no-table-headers']).catch(() => ({ stdout: '' }))).stdout.split('\n').filter((name) => name.startsWith(prefix));
  const [queues, exchanges] = [await list('list_queues'), await list('list_exchanges')];
  if (queues.length === 0 && exchanges.length === 0) return;
  const connection = await amqp.connect(AMQP_URL);
  const channel = await connection.createChannel();
  for (const name of queues) await channel.deleteQueue(name).catch(() => undefined);
  for (const name of exchanges) await channel.deleteExchange(name).catch(() => undefined);
  await connection.close();
}

/** How the latency scenario's service is run: the embedded default, or over RabbitMQ (queue and event bus). */
interface LatencySetup {
  name: string;
  db: BenchDb;
  env: Record<string, string>;
}

/** Submit → `job.completed` on the owner's socket, one job at a time; ms per job after a short warm-up. */
async function completionLatency(setup: LatencySetup): Promise<number[]> {
  const service = await startService(setup.db, { QUEUE_VISIBILITY_SECONDS: '30', ADMIN_EMAILS: 'admin@bench.local', ...setup.env });
  const socketMs: number[] = [];
  try {
    const admin = await signUpAndLogin(service.url, 'admin@bench.local');
    const created = await api(service.url, admin, 'POST', '/workflow-templates', { name: 'One node', category: 'text-to-image', workflow: ONE_NODE, cost: 1, outputType: 'image' });
    if (created.status !== 201) throw new Error(`template: ${created.status} ${JSON.stringify(created.body)}`);
    const mapped = await api(service.url, admin, 'PUT', `/workflow-templates/${created.body.id}/parameter-map`, { prompt: { preset: 'prompt', node_id: '1', input_name: 'source' } });
    if (mapped.status !== 200) throw new Error(`template map: ${mapped.status} ${JSON.stringify(mapped.body)}`);
    // A new template is a draft (ADR 039): users get it once it is published.
    const published = await api(service.url, admin, 'POST', `/templates/${created.body.id}/publish`, {});
    if (published.status !== 200) throw new Error(`template publish: ${published.status} ${JSON.stringify(published.body)}`);
    const user = await signUpAndLogin(service.url);
    const topUp = await api(service.url, admin, 'POST', `/admin/coin/add/${user.user.id}`, { amount: 1_000_000, reason: 'admin_adjustment' });
    if (topUp.status !== 200) throw new Error(`top-up: ${topUp.status}`);
    const socket = new WebSocket(`${service.url.replace('http', 'ws')}/api/v1/ws`, { headers: { cookie: user.cookie } });
    await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
    const waiting = new Map<string, (at: number) => void>();
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; jobId?: string };
      if (message.type === 'job.completed' && message.jobId) waiting.get(message.jobId)?.(performance.now());
    });
    for (let i = 0; i < LATENCY_JOBS + WARM_UP_JOBS; i++) {
      const started = performance.now();
      let done!: (at: number) => void;
      const completed = new Promise<number>((resolve) => (done = resolve));
      const submitted = await api(service.url, user, 'POST', '/generate', { templateId: created.body.id, parameters: { prompt: 'ping' } });
      if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
      waiting.set(submitted.body.id, done);
      const finished = await completed;
      if (i >= WARM_UP_JOBS) socketMs.push(finished - started); // the first ones warm up the JIT and connections
    }
    socket.terminate();
  } finally {
    await service.stop();
  }
  return socketMs;
}

/** The builtin engine running the same workflow directly: the floor the service's latency is compared with. */
async function engineDirect(): Promise<number[]> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'mgs-bench-engine-'));
  const engine = new BuiltinEngine({ workDir });
  const engineMs: number[] = [];
  try {
    for (let i = 0; i < LATENCY_JOBS + WARM_UP_JOBS; i++) {
      const started = performance.now();
      const result = await engine.run({ runId: `bench-${i}`, workflow: ONE_NODE, inputs: [], onEvent: () => undefined });
      if (!result.ok) throw new Error(result.error.message);
      await engine.release(`bench-${i}`);
      if (i >= WARM_UP_JOBS) engineMs.push(performance.now() - started);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return engineMs;
}

const summary = (values: number[]) => ({ p50Ms: percentile(values, 50), p90Ms: percentile(values, 90), p99Ms: percentile(values, 99) });

/**
 * One line: submit → completed for the embedded default (SQLite, database queue, in-process event bus) and over
 * RabbitMQ (queue and event bus on the broker; SQLite as the database, so the two differ only by the broker),
 * each against the builtin engine alone.
 */
async function latencyLine(): Promise<void> {
  const rabbitPrefix = `mgs-bench-${randomUUID().slice(0, 8)}`;
  const setups: LatencySetup[] = [
    { name: 'embedded', db: 'sqlite', env: {} },
    { name: 'rabbitmq', db: 'sqlite', env: { QUEUE_DRIVER: 'rabbitmq', AMQP_URL, AMQP_PREFIX: rabbitPrefix } },
  ];
  const engine = summary(await engineDirect());
  const line: Record<string, unknown> = { bench: 'generation-submit-to-completed', workflow: 'one node (PreviewAny)', jobs: LATENCY_JOBS, engineDirect: engine };
  try {
    for (const setup of setups) {
      const measured = summary(await completionLatency(setup));
      line[setup.name] = {
        db: setup.db,
        queue: setup.env.QUEUE_DRIVER ?? 'db',
        eventBus: setup.env.QUEUE_DRIVER === 'rabbitmq' ? 'rabbitmq' : 'memory',
        ...measured,
        overheadP50Ms: Math.round((measured.p50Ms - engine.p50Ms) * 100) / 100,
        ratioToEngineDirectP50: Math.round((measured.p50Ms / engine.p50Ms) * 10) / 10,
      };
    }
  } finally {
    await deleteTopology(rabbitPrefix);
  }
  process.stdout.write(`${JSON.stringify({ ...line, baseline: 'builtin engine called directly', cpus: cpus().length, loadAvg1m: Math.round(loadavg()[0]! * 10) / 10 })}\n`);
}

// `npx tsx bench/generation.bench.ts [sqlite] [mariadb] [--latency-only]`: the throughput scenario on the databases
// named (both by default), then the latency line.
const args = process.argv.slice(2);
const latencyOnly = args.includes('--latency-only');
const named = args.filter((arg) => arg === 'sqlite' || arg === 'mariadb') as BenchDb[];
const dbs: BenchDb[] = latencyOnly ? [] : named.length > 0 ? named : ['sqlite', 'mariadb'];
if (dbs.length > 0) {
  const base = await baseline(DURATION_S);
  for (const db of dbs) await submitThroughput(db, base);
}
await latencyLine();
