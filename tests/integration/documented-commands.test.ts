/**
 * Every command README.md and docs/operations.md show, run as written (ADR 030). The commands are extracted from
 * the markdown (```sh blocks, and inline code that starts with a command); the table below must name each one,
 * so a changed or added command fails here until it is run (or, where it cannot run on this machine, the reason
 * is written down). docker-compose.yml is checked without Docker: its structure, and the image's file set
 * (exactly the COPY lines of its inline Dockerfile) assembled in a scratch folder and started with its CMD.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { createMariaDatabase } from '../support/databases.ts';
import { PROJECT_BIN, PROJECT_ROOT, runCommand } from '../support/run-command.ts';
import { freePort } from '../support/test-app.ts';
import { TestClient } from '../support/test-client.ts';

const DOCS = ['README.md', 'docs/operations.md'];
const COMMAND = /^(?:[A-Z][A-Z0-9_]*=\S+\s+)*(?:npm|node|node_modules\/\.bin\/\S+|curl|openssl|find|sqlite3|mariadb|mariadb-dump|deno|docker|ava|tsx)\s+\S/;

/** The commands of a markdown text: each ```sh block whole, and inline code spans that start with a command. */
function commandsOf(text: string): string[] {
  const found: string[] = [];
  const prose = text.replace(/^[ \t]*```(\w*)\n([\s\S]*?)^[ \t]*```$/gm, (_block, lang: string, body: string) => {
    if (lang === 'sh') found.push(body.split('\n').map((line) => line.trim()).join('\n').trim());
    return '';
  });
  for (const match of prose.matchAll(/`([^`]+)`/g)) {
    const span = match[1]!.replace(/\s+/g, ' ').trim();
    if (COMMAND.test(span)) found.push(span);
  }
  return found;
}

const documented = (): Map<string, string[]> => {
  const where = new Map<string, string[]>();
  for (const doc of DOCS) {
    for (const command of commandsOf(readFileSync(path.join(PROJECT_ROOT, doc), 'utf8'))) where.set(command, [...(where.get(command) ?? []), doc]);
  }
  return where;
};

/** Multi-line blocks are named by their first line. */
const keyOf = (command: string) => command.split('\n')[0]!;

const SUPERVISOR = 'node_modules/.bin/node --import tsx bootstrap/main.ts';
const WALKTHROUGH = "B=http://localhost:${PORT:-3000}/api/v1; CT='content-type: application/json'";
const DENO = 'deno run --allow-net --allow-env --allow-read --allow-write --allow-sys --allow-ffi --allow-run bootstrap/main.ts';

/** Each documented command: run by the test of that name below, or not run here, and why. */
const PLAN: Record<string, { run: string } | { notRun: string }> = {
  'npm install && npm start': { notRun: '`npm install` would rewrite the node_modules this checkout shares; `npm start` is run on its own' },
  'npm install && npm test': { notRun: '`npm install` as above; `npm test` is the whole suite, this file included' },
  'npm install': { notRun: 'it would rewrite the shared node_modules (the checkout is installed)' },
  'npm warn EBADENGINE': { notRun: 'not a command: the warning `npm install` prints on an older Node' },
  'npm test': { notRun: 'the whole suite, this file included' },
  'TEST_DATABASES=sqlite npm test': { notRun: 'the whole suite, this file included' },
  'npm run bench': { notRun: 'every benchmark takes minutes of load; --list and --quick are run' },
  [WALKTHROUGH]: { notRun: 'run verbatim by tests/integration/readme-walkthrough.test.ts' },
  [DENO]: { run: 'the Deno command has the flags the Deno smoke test runs with' },
  'npm start': { run: 'npm start serves; the README curl answers; npm run admin promotes' },
  'curl http://localhost:3000/api/v1/health': { run: 'npm start serves; the README curl answers; npm run admin promotes' },
  'npm run admin -- promote <email>': { run: 'npm start serves; the README curl answers; npm run admin promotes' },
  'npm run admin -- reset-link <email>': { run: 'npm start serves; the README curl answers; npm run admin promotes' },
  'npm run admin -- delete-user <email>': { run: 'npm start serves; the README curl answers; npm run admin promotes' },
  [SUPERVISOR]: { run: 'the supervisor command on a bare PATH runs a job on the engine thread, stops on SIGTERM with 0; the sqlite3 backup reads its database' },
  'sqlite3 data/app.db ".backup \'app-backup.db\'"': { run: 'the supervisor command on a bare PATH runs a job on the engine thread, stops on SIGTERM with 0; the sqlite3 backup reads its database' },
  'npm run': { run: 'small commands' },
  'npm run bench -- --quick': { run: 'small commands' },
  'npm run bench -- --list': { run: 'small commands' },
  'openssl rand -base64 48': { run: 'small commands' },
  'openssl rand -hex 32': { run: 'small commands' },
  'find /path/to/ComfyUI/output/mgs /path/to/ComfyUI/input/mgs -mindepth 1 -maxdepth 1 -type d -mmin +1440 -exec rm -rf {} +': { run: 'small commands' },
  'PATH=$PWD/node_modules/.bin:$PATH ava tests/unit/config.test.ts': { run: 'small commands' },
  'npm run build:web': { run: 'npm run build:web, in a copy, writes exactly the committed web/dist' },
  'npm run comfy-serve': { run: 'npm run comfy-serve answers the ComfyUI protocol' },
  'npm run comfy-serve -- --checkpoints a,b --model-load-ms 400 --node-ms 50': { run: 'npm run comfy-serve with model files and costs offers those checkpoints' },
  'npm run bench -- dispatch': { notRun: 'a simulation of about a minute on three stand-ins; --list names it, and the policy it measures is tested in comfyui-dispatch.test.ts' },
  'mariadb-dump --single-transaction --routines --databases <db> > backup.sql': { run: 'the MariaDB backup and restore commands' },
  'mariadb < backup.sql': { run: 'the MariaDB backup and restore commands' },
};

test('every command of README.md and docs/operations.md is in the plan, and every planned command is still documented', (t) => {
  const found = [...documented().keys()].map(keyOf);
  t.deepEqual([...new Set(found)].sort(), Object.keys(PLAN).sort());
  const tests = new Set(Object.values(PLAN).flatMap((entry) => ('run' in entry ? [entry.run] : [])));
  t.is(tests.size, 8, 'each runner below is named by at least one command');
});

/** The command exactly as documented (the plan says it is). */
function documentedCommand(key: string): string {
  const command = [...documented().keys()].find((candidate) => keyOf(candidate) === key);
  if (!command) throw new Error(`"${key}" is no longer documented`);
  return command;
}

interface Running {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
}

/** A long-running documented command through bash, in its own process group (npm does not pass signals on). */
function startShell(command: string, env: Record<string, string>, cwd = PROJECT_ROOT): Running {
  const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function stopGroup(running: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (running.child.exitCode === null && running.child.signalCode === null) {
    try {
      process.kill(-running.child.pid!, signal);
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-running.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 25_000);
  const code = await running.exited;
  clearTimeout(timer);
  return code;
}

async function waitFor(url: string, running: Running, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`exited with ${running.child.exitCode}: ${running.output().slice(-2000)}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5000) })).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${url} did not answer 200: ${running.output().slice(-2000)}`);
}

const scratch = (t: ExecutionContext, name: string): string => {
  const dir = mkdtempSync(path.join(tmpdir(), `mgs-doc-${name}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const SECRET = 'documented-commands-secret-long-enough-000000';
const projectPath = `${PROJECT_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`;

test('npm start serves; the README curl answers; npm run admin promotes', async (t) => {
  const dir = scratch(t, 'start');
  const port = await freePort();
  const env = { PATH: projectPath, HOME: process.env.HOME ?? '/tmp', DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', JWT_SECRET: SECRET };
  const service = startShell(documentedCommand('npm start'), env);
  t.teardown(() => void stopGroup(service, 'SIGKILL'));
  await waitFor(`http://127.0.0.1:${port}/api/v1/health/ready`, service);

  const curl = await runCommand('bash', ['-c', documentedCommand('curl http://localhost:3000/api/v1/health').replace(':3000/', `:${port}/`)], {});
  t.is(curl.code, 0, curl.stderr);
  t.like(JSON.parse(curl.stdout), { status: 'ok', checks: { database: 'ok', queue: 'ok' } });

  const client = new TestClient(`http://127.0.0.1:${port}/api/v1`.replace('/api/v1', ''));
  const user = await client.signUp();
  t.is(user.role, 'user');
  const promote = documentedCommand('npm run admin -- promote <email>').replace('<email>', user.email);
  const promoted = await runCommand('bash', ['-c', promote], { DATA_DIR: dir, JWT_SECRET: SECRET });
  t.is(promoted.code, 0, promoted.stderr + promoted.stdout);
  t.is((await client.get('/auth/profile')).body.role, 'admin');
  // The reset link the operator guide's command prints sets the password (ADR 062).
  const resetLink = await runCommand('bash', ['-c', documentedCommand('npm run admin -- reset-link <email>').replace('<email>', user.email)], { DATA_DIR: dir, JWT_SECRET: SECRET });
  t.is(resetLink.code, 0, resetLink.stderr);
  const token = resetLink.stdout.trim().split('#token=')[1];
  t.is((await client.post('/auth/password-reset', { token, newPassword: 'a brand new passphrase 9' })).status, 200);
  t.is((await new TestClient(client.baseUrl).post('/auth/login', { email: user.email, password: 'a brand new passphrase 9' })).status, 200);
  // The operator guide's deletion ends another account for good (ADR 063).
  const spam = new TestClient(client.baseUrl);
  const spammer = await spam.signUp();
  const deleted = await runCommand('bash', ['-c', documentedCommand('npm run admin -- delete-user <email>').replace('<email>', spammer.email)], { DATA_DIR: dir, JWT_SECRET: SECRET });
  t.is(deleted.code, 0, deleted.stderr);
  t.regex(deleted.stdout, /is deleted: 0 job\(s\) cancelled, 100 coin\(s\) forfeited\.\nIts outputs and uploads are deleted\.\n$/);
  t.is((await spam.get('/auth/profile')).status, 401);
  // npm does not pass SIGTERM on (hence the supervisor command): the group is stopped here.
  await stopGroup(service);
});

test('the supervisor command on a bare PATH runs a job on the engine thread, stops on SIGTERM with 0; the sqlite3 backup reads its database', async (t) => {
  const dir = scratch(t, 'supervisor');
  const port = await freePort();
  // A supervisor's environment: the machine's own PATH (its Node may be older), no npm, nothing of the project's.
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', DATA_DIR: path.join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', JWT_SECRET: SECRET };
  const service = startShell(`exec ${documentedCommand(SUPERVISOR)}`, env);
  t.teardown(() => void stopGroup(service, 'SIGKILL'));
  await waitFor(`http://127.0.0.1:${port}/api/v1/health/ready`, service);

  const client = new TestClient(`http://127.0.0.1:${port}`);
  await client.signUp();
  const image = (await client.get('/templates')).body.find((tpl: { name: string }) => tpl.name === 'Solid colour image');
  const submitted = await client.post('/generate', { templateId: image.id, parameters: { prompt: 'supervised', width: 64, height: 64 } });
  t.is(submitted.status, 202, JSON.stringify(submitted.body));
  let status = 'queued';
  for (const deadline = Date.now() + 60_000; (status === 'queued' || status === 'running') && Date.now() < deadline; await sleep(250)) {
    status = (await client.get(`/generate/${submitted.body.id}`)).body.status;
  }
  t.is(status, 'succeeded', service.output().slice(-2000));

  // While it runs, as the backup section says (in the folder that holds data/).
  const backup = await runCommand('bash', ['-c', documentedCommand('sqlite3 data/app.db ".backup \'app-backup.db\'"')], {}, { cwd: dir });
  t.is(backup.code, 0, backup.stderr);
  const users = await runCommand('sqlite3', [path.join(dir, 'app-backup.db'), 'SELECT count(*) FROM users'], {});
  t.is(users.stdout.trim(), '1');

  // SIGTERM reaches node itself (exec: bash is replaced, as under a supervisor that starts the command).
  service.child.kill('SIGTERM');
  t.is(await service.exited, 0, service.output().slice(-2000));
  t.regex(service.output(), /"msg":"shutting down","service":"media-gen"[^\n]*"signal":"SIGTERM"/);
});

test('small commands', async (t) => {
  const run = (key: string, cwd = PROJECT_ROOT, env: Record<string, string> = {}) =>
    runCommand('bash', ['-c', documentedCommand(key)], { CI: 'true', ...env }, { cwd, timeoutMs: 120_000 });

  const scripts = await run('npm run');
  t.is(scripts.code, 0, scripts.stderr);
  t.regex(scripts.stdout, /\bbench\b[\s\S]*\bmutation\b/);

  const list = await run('npm run bench -- --list');
  t.is(list.code, 0, list.stderr);
  // npm prints its own "> media-gen-service@… bench" header on stdout; the benches' results are the JSON lines.
  const jsonLines = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  const benches = jsonLines(list.stdout) as { bench: string; quick: boolean }[];
  t.deepEqual(benches.map((entry) => entry.bench), readdirSync(path.join(PROJECT_ROOT, 'bench')).filter((file) => file.endsWith('.bench.ts')).map((file) => file.replace('.bench.ts', '')).sort());
  const quick = await run('npm run bench -- --quick');
  t.is(quick.code, 0, quick.stderr);
  const results = jsonLines(quick.stdout);
  t.is(results.length, 1, quick.stdout);
  t.like(results[0], { bench: 'render-template', renders: 10_000 });

  t.regex((await run('openssl rand -base64 48')).stdout.trim(), /^[A-Za-z0-9+/]{64}$/);
  t.regex((await run('openssl rand -hex 32')).stdout.trim(), /^[0-9a-f]{64}$/);

  // The ComfyUI prune (ADR 034): run folders older than a day go, in output/mgs and input/mgs; younger ones stay.
  // The command as documented, with the placeholder for the ComfyUI directory filled in.
  const comfy = scratch(t, 'prune');
  for (const dir of ['output/mgs/old-run', 'output/mgs/new-run', 'input/mgs/old-run', 'input/mgs/new-run']) {
    mkdirSync(path.join(comfy, dir), { recursive: true });
    writeFileSync(path.join(comfy, dir, 'file.png'), 'x');
  }
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
  for (const dir of ['output/mgs/old-run', 'input/mgs/old-run']) utimesSync(path.join(comfy, dir), twoDaysAgo, twoDaysAgo);
  const prune = documentedCommand('find /path/to/ComfyUI/output/mgs /path/to/ComfyUI/input/mgs -mindepth 1 -maxdepth 1 -type d -mmin +1440 -exec rm -rf {} +').replaceAll('/path/to/ComfyUI', comfy);
  t.is((await runCommand('bash', ['-c', prune], {}, { cwd: comfy, timeoutMs: 30_000 })).code, 0);
  t.deepEqual(readdirSync(path.join(comfy, 'output/mgs')), ['new-run']);
  t.deepEqual(readdirSync(path.join(comfy, 'input/mgs')), ['new-run']);

  const unit = await run('PATH=$PWD/node_modules/.bin:$PATH ava tests/unit/config.test.ts', PROJECT_ROOT, { PATH: process.env.PATH ?? '/usr/bin:/bin' });
  t.is(unit.code, 0, unit.stdout + unit.stderr);
  t.regex(unit.stdout + unit.stderr, /\d+ tests? passed/);
});

test('npm run build:web, in a copy, writes exactly the committed web/dist', async (t) => {
  const copy = scratch(t, 'web');
  cpSync(path.join(PROJECT_ROOT, 'package.json'), path.join(copy, 'package.json'));
  cpSync(path.join(PROJECT_ROOT, 'web'), path.join(copy, 'web'), { recursive: true, filter: (source) => !source.includes(`${path.sep}dist`) });
  symlinkSync(realpathSync(path.join(PROJECT_ROOT, 'node_modules')), path.join(copy, 'node_modules'));
  const built = await runCommand('bash', ['-c', documentedCommand('npm run build:web')], {}, { cwd: copy });
  t.is(built.code, 0, built.stderr);
  const committed = path.join(PROJECT_ROOT, 'web/dist');
  t.deepEqual(readdirSync(path.join(copy, 'web/dist')).sort(), readdirSync(committed).sort());
  for (const file of readdirSync(committed)) {
    t.true(readFileSync(path.join(copy, 'web/dist', file)).equals(readFileSync(path.join(committed, file))), `web/dist/${file} is what the source builds`);
  }
});

test('npm run comfy-serve answers the ComfyUI protocol', async (t) => {
  const dir = scratch(t, 'comfy');
  const port = await freePort();
  const env = { PATH: projectPath, HOME: process.env.HOME ?? '/tmp', COMFY_PORT: String(port), COMFY_DATA_DIR: dir };
  const server = startShell(documentedCommand('npm run comfy-serve'), env);
  t.teardown(() => void stopGroup(server, 'SIGKILL'));
  await waitFor(`http://127.0.0.1:${port}/system_stats`, server);
  const stats = (await (await fetch(`http://127.0.0.1:${port}/system_stats`)).json()) as { system?: unknown; devices?: unknown };
  t.truthy(stats.system);
  t.true(Array.isArray(stats.devices));
  await stopGroup(server);
});

test('npm run comfy-serve with model files and costs offers those checkpoints', async (t) => {
  const dir = scratch(t, 'comfy-costs');
  const port = await freePort();
  const env = { PATH: projectPath, HOME: process.env.HOME ?? '/tmp', COMFY_PORT: String(port), COMFY_DATA_DIR: dir };
  const server = startShell(documentedCommand('npm run comfy-serve -- --checkpoints a,b --model-load-ms 400 --node-ms 50'), env);
  t.teardown(() => void stopGroup(server, 'SIGKILL'));
  await waitFor(`http://127.0.0.1:${port}/system_stats`, server);
  const info = (await (await fetch(`http://127.0.0.1:${port}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, { input: { required: Record<string, unknown[]> } }>;
  t.deepEqual(info['CheckpointLoaderSimple']?.input.required['ckpt_name']?.[0], ['a', 'b']);
  await stopGroup(server);
});

test('the MariaDB backup and restore commands', async (t) => {
  const database = await createMariaDatabase();
  t.teardown(() => database.drop());
  const name = new URL(database.url).pathname.slice(1);
  const sql = (statement: string) => runCommand('mariadb', [name, '-N', '-e', statement], {});
  t.is((await sql('CREATE TABLE kept (n INT); INSERT INTO kept VALUES (42)')).code, 0);
  const dir = scratch(t, 'maria');
  const dump = await runCommand('bash', ['-c', documentedCommand('mariadb-dump --single-transaction --routines --databases <db> > backup.sql').replace('<db>', name)], {}, { cwd: dir });
  t.is(dump.code, 0, dump.stderr);
  t.is((await sql('DROP TABLE kept')).code, 0);
  const restore = await runCommand('bash', ['-c', documentedCommand('mariadb < backup.sql')], {}, { cwd: dir });
  t.is(restore.code, 0, restore.stderr);
  t.is((await sql('SELECT n FROM kept')).stdout.trim(), '42');
});

test('the Deno command has the flags the Deno smoke test runs with', (t) => {
  // Running Deno is that test's job (tests/integration/deno-smoke.test.ts); this keeps the README's flags and its the same.
  const smoke = readFileSync(path.join(PROJECT_ROOT, 'tests/integration/deno-smoke.test.ts'), 'utf8');
  const permissions = /const PERMISSIONS = \[([^\]]*)\]/.exec(smoke)?.[1]?.match(/'[^']+'/g)?.map((flag) => flag.slice(1, -1));
  const flags = documentedCommand(DENO).split(' ').filter((word) => word.startsWith('--'));
  t.deepEqual(flags, permissions);
  t.true(smoke.includes("'bootstrap/main.ts'") && smoke.includes("'run'"), 'the smoke test runs bootstrap/main.ts with deno run');
});

// ---- docker-compose.yml, without Docker ----

interface ComposeService {
  build?: { context: string; dockerfile_inline: string };
  image?: string;
  environment?: Record<string, string | number>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, unknown>;
}

const compose = () => parse(readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };

/** The inline Dockerfile's instructions, each with its arguments. */
function dockerfile(service: ComposeService): { copies: { sources: string[]; dest: string }[]; cmd: string[]; env: Record<string, string>; workdir: string } {
  const lines = service.build!.dockerfile_inline.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const copies = lines.filter((line) => line.startsWith('COPY ')).map((line) => {
    const words = line.slice(5).trim().split(/\s+/);
    return { sources: words.slice(0, -1), dest: words.at(-1)! };
  });
  const cmd = JSON.parse(lines.find((line) => line.startsWith('CMD '))!.slice(4)) as string[];
  const env = Object.fromEntries(lines.filter((line) => line.startsWith('ENV ')).flatMap((line) => line.slice(4).trim().split(/\s+/).map((pair) => pair.split('=') as [string, string])));
  const workdir = lines.find((line) => line.startsWith('WORKDIR '))!.slice(8).trim();
  return { copies, cmd, env, workdir };
}

const documentedVariables = () =>
  new Set([...readFileSync(path.join(PROJECT_ROOT, '.env.example'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!));

/** `${NAME:-default}` → default, `${NAME:?message}` → what the operator must give (here: `required`). */
const resolveCompose = (value: string | number, required: Record<string, string>): string =>
  String(value).replace(/\$\{([A-Z_]+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_match, name: string, fallback?: string) => fallback ?? required[name] ?? '');

test('docker-compose.yml: every built service copies what exists, runs a file it copied, sets only documented variables; workers are probed on HEALTH_PORT', (t) => {
  const { services } = compose();
  const built = Object.entries(services).filter(([, service]) => service.build);
  t.deepEqual(built.map(([name]) => name), ['api', 'api-2', 'worker']);
  const known = documentedVariables();
  for (const [name, service] of built) {
    t.is(service.build!.context, '.', name);
    const file = dockerfile(service);
    for (const copy of file.copies) for (const source of copy.sources) t.true(existsSync(path.join(PROJECT_ROOT, source)), `${name}: COPY ${source} exists`);
    t.deepEqual(file.cmd, ['node', '--import', 'tsx', 'bootstrap/main.ts'], `${name}: node itself gets the signals`);
    t.true(file.copies.some((copy) => copy.sources.includes('bootstrap') && copy.dest === './bootstrap'), `${name}: the CMD's file is copied`);
    t.true(file.copies.some((copy) => copy.sources.includes('web/dist')), `${name}: the web client is copied`);
    const variables = [...Object.keys(service.environment ?? {}), ...Object.keys(file.env).filter((variable) => variable !== 'NODE_ENV')];
    t.deepEqual(variables.filter((variable) => !known.has(variable)), [], `${name}: variables missing from .env.example`);
    for (const dependency of Object.keys(service.depends_on ?? {})) t.truthy(services[dependency], `${name} depends on ${dependency}`);
  }
  const worker = services.worker!;
  t.is(worker.environment?.ROLES, 'worker');
  t.truthy(worker.environment?.HEALTH_PORT);
  t.true(worker.healthcheck!.test.join(' ').includes(`http://127.0.0.1:${worker.environment!.HEALTH_PORT}/api/v1/health/ready`));
  t.true(services.api!.healthcheck!.test.join(' ').includes(`http://127.0.0.1:${services.api!.environment!.PORT}/api/v1/health/ready`));
});

test('the image the compose file builds serves the web client: its COPY lines assembled, its CMD run with the compose environment on local services', async (t) => {
  const service = compose().services.api!;
  const file = dockerfile(service);
  const image = scratch(t, 'image');
  const app = path.join(image, file.workdir);
  mkdirSync(app, { recursive: true });
  for (const copy of file.copies) {
    for (const source of copy.sources) {
      const target = copy.dest.endsWith('/') ? path.join(app, copy.dest, path.basename(source)) : path.join(app, copy.dest);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(PROJECT_ROOT, source), target, { recursive: true });
    }
  }
  // RUN npm install: the installed packages of this checkout stand in.
  symlinkSync(realpathSync(path.join(PROJECT_ROOT, 'node_modules')), path.join(app, 'node_modules'));

  const port = await freePort();
  const data = path.join(image, 'data');
  const composeEnv = Object.fromEntries(Object.entries(service.environment!).map(([name, value]) => [name, resolveCompose(value, { JWT_SECRET: SECRET })]));
  // The compose environment with the servers this machine has instead of the compose network's: SQLite, the
  // database queue, local storage and memory cache and bus.
  const outside = ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL', 'S3_BUCKET', 'S3_ENDPOINT', 'S3_PUBLIC_ENDPOINT', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.entries(composeEnv).filter(([name]) => !outside.includes(name))),
    ...file.env,
    CACHE_DRIVER: 'memory',
    EVENT_BUS_DRIVER: 'memory',
    QUEUE_DRIVER: 'db',
    STORAGE_DRIVER: 'local',
    DATA_DIR: data,
    STORAGE_DIR: path.join(data, 'storage'),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The image's Node is 22: so is the project's.
    PATH: projectPath,
    HOME: process.env.HOME ?? '/tmp',
  };
  t.is(env.APP_ENV, 'production');
  const [command, ...args] = file.cmd;
  const running = startShell(`exec ${[command, ...args].join(' ')}`, env, app);
  t.teardown(() => void stopGroup(running, 'SIGKILL'));
  await waitFor(`http://127.0.0.1:${port}/api/v1/health/ready`, running);

  const html = { accept: 'text/html,application/xhtml+xml' };
  for (const route of ['/', '/history', '/login']) {
    const res = await fetch(`http://127.0.0.1:${port}${route}`, { headers: html });
    t.is(res.status, 200, route);
    t.regex(await res.text(), /<div id="app">[\s\S]*<script type="module" src="\/app.js">|<script type="module" src="\/app.js">[\s\S]*<div id="app">/, route);
  }
  t.is((await fetch(`http://127.0.0.1:${port}/app.js`)).status, 200);
  const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: html });
  t.is(metrics.status, 404);
  t.is(((await metrics.json()) as { statusCode: number }).statusCode, 404);
  running.child.kill('SIGTERM');
  t.is(await running.exited, 0, running.output().slice(-2000));
});
