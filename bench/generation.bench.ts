/**
 * Generation benches (issue 5):
 *  1. jobs submitted per second at 20 concurrent clients (template render + coin charge + job + outbox in
 *     one transaction), API role only so the worker's CPU does not share the measurement; SQLite and MariaDB;
 *  2. submit → `job.completed` over the WebSocket for a one-node workflow (api+worker in one process),
 *     p50/p99, against the builtin engine running the same workflow directly; the ratio is the overhead.
 *     The workflow is a template of cost 1 (no generation is free: ADR 016), so the measured path includes
 *     the charge, the job, its outbox entry and its events, each in its transaction.
 * Prints one JSON line per scenario. `npx tsx bench/generation.bench.ts [sqlite|mariadb ...]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { BuiltinEngine } from '../adapters/builtin-engine/builtin-engine.ts';
import { api, baseline, load, printLine, signUpAndLogin, startService, type BenchDb } from './support/harness.ts';

const SUBMIT_CONNECTIONS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const LATENCY_JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? 60);
const ONE_NODE = { '1': { class_type: 'PreviewAny', inputs: { source: 'ping' } } };

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
};

async function submitThroughput(db: BenchDb, base: Awaited<ReturnType<typeof baseline>>): Promise<void> {
  const service = await startService(db, { ROLES: 'api', ADMIN_EMAILS: 'admin@bench.local', SIGNUP_BONUS_COINS: '0' });
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
      jobsRecorded: jobs,
      users: users.length,
      coinsCharged: charged,
      chargedExactlyOncePerJob: charged === jobs,
    });
  } finally {
    await service.stop();
  }
}

async function completionLatency(db: BenchDb): Promise<void> {
  const service = await startService(db, { QUEUE_VISIBILITY_SECONDS: '30', ADMIN_EMAILS: 'admin@bench.local' });
  const socketMs: number[] = [];
  try {
    const admin = await signUpAndLogin(service.url, 'admin@bench.local');
    const created = await api(service.url, admin, 'POST', '/workflow-templates', { name: 'One node', category: 'text-to-image', workflow: ONE_NODE, cost: 1, outputType: 'image' });
    if (created.status !== 201) throw new Error(`template: ${created.status} ${JSON.stringify(created.body)}`);
    const mapped = await api(service.url, admin, 'PUT', `/workflow-templates/${created.body.id}/parameter-map`, { prompt: { preset: 'prompt', node_id: '1', input_name: 'source' } });
    if (mapped.status !== 200) throw new Error(`template map: ${mapped.status} ${JSON.stringify(mapped.body)}`);
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
    for (let i = 0; i < LATENCY_JOBS + 5; i++) {
      const started = performance.now();
      let done!: (at: number) => void;
      const completed = new Promise<number>((resolve) => (done = resolve));
      const submitted = await api(service.url, user, 'POST', '/generate', { templateId: created.body.id, parameters: { prompt: 'ping' } });
      if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
      waiting.set(submitted.body.id, done);
      const finished = await completed;
      if (i >= 5) socketMs.push(finished - started); // the first few warm up the JIT and connections
    }
    socket.terminate();
  } finally {
    await service.stop();
  }

  const workDir = mkdtempSync(path.join(tmpdir(), 'mgs-bench-engine-'));
  const engine = new BuiltinEngine({ workDir });
  const engineMs: number[] = [];
  try {
    for (let i = 0; i < LATENCY_JOBS + 5; i++) {
      const started = performance.now();
      const result = await engine.run({ runId: `bench-${i}`, workflow: ONE_NODE, inputs: [], onEvent: () => undefined });
      if (!result.ok) throw new Error(result.error.message);
      await engine.release(`bench-${i}`);
      if (i >= 5) engineMs.push(performance.now() - started);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  const p50 = percentile(socketMs, 50);
  const engineP50 = percentile(engineMs, 50);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'generation-submit-to-completed',
      db,
      workflow: 'one node (PreviewAny)',
      jobs: socketMs.length,
      p50Ms: p50,
      p99Ms: percentile(socketMs, 99),
      engineDirectP50Ms: engineP50,
      engineDirectP99Ms: percentile(engineMs, 99),
      overheadP50Ms: Math.round((p50 - engineP50) * 100) / 100,
      baseline: 'builtin engine called directly',
      ratioToEngineDirect: Math.round((p50 / engineP50) * 10) / 10,
    })}\n`,
  );
}

const dbs = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite', 'mariadb']) as BenchDb[];
const base = await baseline(DURATION_S);
for (const db of dbs) {
  await submitThroughput(db, base);
  await completionLatency(db);
}
