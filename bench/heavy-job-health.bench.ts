/**
 * Issue 13: does a heavy builtin job hold up the API? The embedded default (api + worker in one process,
 * SQLite) runs one 8192² raw workflow (EmptyImage → ImageInvert → SaveImage) while this bench asks
 * GET /api/v1/health back to back, one request at a time; it prints the latency percentiles of those answers
 * (target: p99 under 50 ms) and how long the job took. `npx tsx bench/heavy-job-health.bench.ts`
 */
import { api, pause, signUpAndLogin, startService } from './support/harness.ts';
import { cpus, loadavg } from 'node:os';

const SIDE = Number(process.env.BENCH_SIDE ?? 8192);
const HEAVY = {
  '1': { class_type: 'EmptyImage', inputs: { width: SIDE, height: SIDE, batch_size: 1, color: 0x336699 } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'heavy' } },
};

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
};

const service = await startService('sqlite', { ADMIN_EMAILS: 'admin@bench.local' });
try {
  const admin = await signUpAndLogin(service.url, 'admin@bench.local');
  // Warm the health route and the engine's first use (sharp, the worker) with a small run of the same graph.
  const warm = await api(service.url, admin, 'POST', '/generate', { workflow: { ...HEAVY, '1': { ...HEAVY['1'], inputs: { ...HEAVY['1'].inputs, width: 64, height: 64 } } } });
  for (let i = 0; i < 100 && (await api(service.url, admin, 'GET', `/generate/${warm.body.id}`)).body.status !== 'succeeded'; i++) await pause(100);
  // The same requests with no job running: what the machine gives anyway (other work shares its CPUs).
  const idle: number[] = [];
  for (const until = performance.now() + 3000; performance.now() < until; ) {
    const t0 = performance.now();
    await (await fetch(`${service.url}/api/v1/health`)).arrayBuffer();
    idle.push(performance.now() - t0);
  }
  const submitted = await api(service.url, admin, 'POST', '/generate', { workflow: HEAVY });
  if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const jobId = submitted.body.id as string;
  const started = performance.now();
  const latencies: number[] = [];
  let status = 'queued';
  let lastCheck = 0;
  while (status === 'queued' || status === 'running') {
    const t0 = performance.now();
    const res = await fetch(`${service.url}/api/v1/health`);
    await res.arrayBuffer();
    latencies.push(performance.now() - t0);
    if (performance.now() - lastCheck > 250) {
      lastCheck = performance.now();
      status = (await api(service.url, admin, 'GET', `/generate/${jobId}`)).body.status as string;
    }
    if (performance.now() - started > 120_000) throw new Error('job did not finish within 2 minutes');
  }
  process.stdout.write(
    `${JSON.stringify({
      bench: 'heavy-job-health',
      db: 'sqlite',
      side: SIDE,
      jobStatus: status,
      jobMs: Math.round(performance.now() - started),
      healthRequests: latencies.length,
      healthP50Ms: percentile(latencies, 50),
      healthP99Ms: percentile(latencies, 99),
      healthMaxMs: Math.round(Math.max(...latencies) * 10) / 10,
      idleHealthP50Ms: percentile(idle, 50),
      idleHealthP99Ms: percentile(idle, 99),
      cpus: cpus().length,
      loadAvg1m: Math.round(loadavg()[0]! * 10) / 10,
    })}\n`,
  );
} finally {
  await service.stop();
}
