import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
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

test('the service runs under Deno on the embedded default: register, log in, read the profile', async (t) => {
  t.timeout(240_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mgs-deno-'));
  const port = await freePort();
  // The binary itself, not the npm wrapper (bin.cjs), whose child would outlive a kill.
  const deno = spawn(
    path.join(root, 'node_modules/deno/deno'),
    ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-write', '--allow-sys', '--allow-ffi', 'bootstrap/main.ts'],
    {
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
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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

  // The first run compiles every module into DENO_DIR: be generous.
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  let health: Response | null = null;
  while (performance.now() - started < 180_000 && running) {
    health = await fetch(`${baseUrl}/api/v1/health`).catch(() => null);
    if (health) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  t.log(`Deno answered after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (!health) t.fail(`Deno never answered on port ${port}${running ? '' : ' (it exited)'}:\n${output.slice(-4000)}`);
  t.is(health!.status, 200, output.slice(-4000));
  t.like(await health!.json(), { status: 'ok', checks: { database: 'ok' } });

  const client = new TestClient(baseUrl);
  const user = await client.signUp({ email: 'deno@example.com', displayName: 'Deno' });
  const profile = await client.get('/auth/profile');
  t.is(profile.status, 200);
  t.like(profile.body, { id: user.id, email: 'deno@example.com', displayName: 'Deno', role: 'user', coinBalance: 100 });

  deno.kill('SIGTERM');
  t.is(await exited, 0, `a clean shutdown on SIGTERM:\n${output.slice(-2000)}`);
});
