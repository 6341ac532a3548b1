import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { TestClient } from '../support/test-client.ts';
import { PROJECT_ROOT as root } from '../support/run-command.ts';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * What a silent Deno was doing (Linux): its CPU seconds (compiling or looping) against a blocked state and the kernel
 * function it waits in, and how many threads it has. A first start once printed nothing and refused connections for
 * 300 s under a full CI run, while a second one started in 4 s.
 */
function processState(pid: number | undefined): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
    const wchan = readFileSync(`/proc/${pid}/wchan`, 'utf8');
    return `process state ${fields[0]}, ${cpuSeconds} s of CPU, ${fields[17]} threads, waiting in ${wchan || '-'}`;
  } catch (error) {
    return `process state unknown (${(error as Error).message})`;
  }
}

/** The README's Deno permissions; `--allow-run` lets the builtin engine start the bundled ffmpeg for videos. */
const PERMISSIONS = ['--allow-net', '--allow-env', '--allow-read', '--allow-write', '--allow-sys', '--allow-ffi', '--allow-run'];

interface DenoService {
  client: TestClient;
  /** Everything the process printed so far (JSON log lines). */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `logLevel` info shows how far a start-up got (migrations, templates, listening) when Deno does not answer. */
async function startDeno(t: ExecutionContext, permissions: string[], logLevel: 'info' | 'warn'): Promise<DenoService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-deno-'));
  const port = await freePort();
  // The binary itself, not the npm wrapper (bin.cjs), whose child would outlive a kill.
  const deno = spawn(path.join(root, 'node_modules/deno/deno'), ['run', ...permissions, 'bootstrap/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME ?? '/tmp',
      DENO_DIR: path.join(root, '.deno'),
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: logLevel,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  deno.stdout.on('data', (chunk) => (output += chunk));
  deno.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => deno.on('close', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  t.teardown(async () => {
    if (running) {
      deno.kill('SIGTERM');
      const timer = setTimeout(() => deno.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The first run compiles every module into DENO_DIR: be generous (up to 50 s here with other tests running).
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  let health: Response | null = null;
  let lastFailure = '';
  while (performance.now() - started < 300_000 && running) {
    // Each try has its own short limit: a connection that is accepted and never answered (another process on a
    // port taken in the meantime, or a stalled start) must not use up the whole wait, as undici's 300 s header
    // limit once did, with nothing to say why.
    health = await fetch(`${baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(3_000) }).catch((error: Error) => {
      const cause = (error.cause as Error | undefined)?.message;
      lastFailure = `${error.name}: ${error.message}${cause ? ` (${cause})` : ''}`;
      return null;
    });
    if (health) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  t.log(`Deno answered after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (!health) {
    throw new Error(`Deno never answered on port ${port}${running ? '' : ' (it exited)'}; last try: ${lastFailure}; ${processState(deno.pid)}\n${output.slice(-4000)}`);
  }
  t.is(health.status, 200, output.slice(-4000));
  t.like(await health.json(), { status: 'ok', checks: { database: 'ok' } });
  return {
    client: new TestClient(baseUrl),
    output: () => output,
    stop: async () => {
      deno.kill('SIGTERM');
      return exited;
    },
  };
}

type Job = { id: string; status: string; error?: { code: string; message: string }; outputs?: { mimeType: string; viewUrl: string }[] };

/** Submits the ready video template and polls the job until it ends. */
async function generateVideo(client: TestClient): Promise<Job> {
  const templates = await client.get('/templates');
  const video = (templates.body as { id: string; name: string }[]).find((template) => template.name === 'Solid colour video');
  if (!video) throw new Error(`no video template: ${JSON.stringify(templates.body)}`);
  const submitted = await client.post('/generate', { templateId: video.id, parameters: { prompt: 'deno', duration: 2 } });
  if (submitted.status !== 202) throw new Error(`submit answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
  let job = submitted.body as Job;
  for (let waited = 0; !['succeeded', 'failed', 'cancelled'].includes(job.status) && waited < 60_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    job = (await client.get(`/generate/${job.id}`)).body as Job;
  }
  return job;
}

// Pins the cause of the first start that never answered (ADR 054): a package whose "exports" has a "module-sync" entry
// is an ES module that CommonJS code require()s. Deno 2.9 loads such a module by blocking its only runtime thread on the
// load, and on a cold DENO_DIR the load waits for that same thread (the CommonJS analysis of the module's own CommonJS
// import): the process hangs, silent, before the service logs anything. get-intrinsic 1.3 require()d three of them for
// every start (Express's qs), so package.json pins 1.2.7, which has none. Read from what npm installed for production.
test('no package the service loads at run time has a "module-sync" export (Deno deadlocks on its require() at a cold start)', (t) => {
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const folders = listed.stdout.split('\n').filter((line) => line.includes('node_modules'));
  t.true(folders.length > 100, `npm ls listed ${folders.length} packages: ${listed.stderr}`);
  const withModuleSync = folders.filter((folder) => readFileSync(path.join(folder, 'package.json'), 'utf8').includes('"module-sync"'));
  t.deepEqual(withModuleSync.map((folder) => path.relative(root, folder)), []);
});

test.serial('the service runs under Deno on the embedded default: register, read the profile, generate a video', async (t) => {
  t.timeout(360_000);
  const deno = await startDeno(t, PERMISSIONS, 'info');
  const user = await deno.client.signUp({ email: 'deno@example.com', displayName: 'Deno' });
  const profile = await deno.client.get('/auth/profile');
  t.is(profile.status, 200);
  t.like(profile.body, { id: user.id, email: 'deno@example.com', displayName: 'Deno', role: 'user', coinBalance: 100 });

  // A video: the builtin engine runs the bundled ffmpeg, which Deno allows only with --allow-run.
  const job = await generateVideo(deno.client);
  t.is(job.status, 'succeeded', `${JSON.stringify(job)}\n${deno.output().slice(-2000)}`);
  const mp4 = job.outputs!.find((file) => file.mimeType === 'video/mp4');
  t.truthy(mp4, JSON.stringify(job.outputs));
  const file = Buffer.from(await (await fetch(mp4!.viewUrl)).arrayBuffer());
  t.is(file.toString('latin1', 4, 8), 'ftyp', 'an MP4 file');
  t.notRegex(deno.output(), /"level":"(warn|error)"/, 'nothing went wrong on the way');

  t.is(await deno.stop(), 0, `a clean shutdown on SIGTERM:\n${deno.output().slice(-2000)}`);
});

test.serial('a job that fails is logged with its code and cause (here: Deno without --allow-run cannot start ffmpeg)', async (t) => {
  t.timeout(360_000);
  const deno = await startDeno(t, PERMISSIONS.filter((flag) => flag !== '--allow-run'), 'warn');
  await deno.client.signUp({ email: 'deno-fail@example.com' });
  const job = await generateVideo(deno.client);
  t.is(job.status, 'failed');
  t.is(job.error?.code, 'ENGINE.EXECUTION');
  const line = deno.output().split('\n').find((text) => text.includes('"msg":"job failed"'));
  t.truthy(line, `no "job failed" line at LOG_LEVEL=warn:\n${deno.output().slice(-2000)}`);
  t.like(JSON.parse(line!), { level: 'warn', jobId: job.id, code: 'ENGINE.EXECUTION', refunded: 3 });
  t.regex(JSON.parse(line!).error, /ffmpeg was not found/);
});
