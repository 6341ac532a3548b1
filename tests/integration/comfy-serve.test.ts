import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_BIN, PROJECT_ROOT, runCommand } from '../support/run-command.ts';

// `npm run comfy-serve` as an operator starts it: what its flags and environment turn into (the address it listens
// on, its folders, upload limit, checkpoints and costs), what it refuses before starting (exit 64, the reason, no
// stack trace), a start that fails (exit 1) and a stop on SIGTERM (exit 0).

const SCRIPT = 'bootstrap/comfy-serve.ts';
// The project's Node with tsx's loader: one process, so a kill reaches the server itself.
const node = path.join(PROJECT_BIN, 'node');
const serve = (args: string[]) => ['--import', 'tsx', SCRIPT, ...args];

/** Runs comfy-serve to its exit (for flags it refuses before listening). */
const refused = (args: string[], env: Record<string, string> = {}) => runCommand(node, serve(args), { COMFY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'comfy-serve-')), ...env }, { timeoutMs: 45_000 });

interface Running {
  child: ChildProcess;
  /** The log line it wrote once listening. */
  listening: { url: string; inputDir: string; outputDir: string; tempDir: string };
  /** Its origin on the loopback address, whatever it listens on. */
  origin: string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** Starts comfy-serve on an ephemeral port and waits for its "listening" log line. */
const start = async (t: ExecutionContext, args: string[], env: Record<string, string> = {}): Promise<Running> => {
  const child = spawn(node, serve(['--port', '0', ...args]), {
    cwd: PROJECT_ROOT,
    env: { PATH: `${PROJECT_BIN}:${process.env.PATH}`, HOME: process.env.HOME ?? '/tmp', COMFY_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'comfy-serve-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let stderr = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = await new Promise<Running['listening']>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const line = stderr.split('\n').find((l) => l.includes('"ComfyUI protocol server listening"'));
      if (line) resolve(JSON.parse(line) as Running['listening']);
    });
    void exit.then((code) => reject(new Error(`comfy-serve exited with ${code}: ${stderr}`)));
  });
  const port = new URL(listening.url).port;
  return { child, listening, origin: `http://127.0.0.1:${port}`, stderr: () => stderr, exit };
};

test('a port, upload size or cost it cannot use stops it before it starts, with exit 64 and the reason', async (t) => {
  const cases: [string[], Record<string, string>, string][] = [
    [['--port', '70000'], {}, 'invalid port "70000"'],
    [['--port', '8188.5'], {}, 'invalid port "8188.5"'],
    [[], { COMFY_PORT: '-1' }, 'invalid port "-1"'],
    [['--max-upload-size', '0'], {}, 'invalid --max-upload-size "0"'],
    [['--max-upload-size', 'lots'], {}, 'invalid --max-upload-size "lots"'],
    [['--model-load-ms=-5'], {}, 'invalid --model-load-ms "-5"'],
    [['--node-ms', 'slow'], {}, 'invalid --node-ms "slow"'],
  ];
  for (const [args, env, reason] of cases) {
    const result = await refused(args, env);
    t.is(result.code, 64, reason);
    t.is(result.stderr, `comfy-serve: ${reason}\n`);
  }
});

test('flags win over the environment; it listens on 127.0.0.1 by default, on :: for a bare --listen or a list holding ::', async (t) => {
  // COMFY_PORT is not a port, --port 0 (given by start) is: the flag wins.
  const plain = await start(t, [], { COMFY_PORT: 'not-a-port', COMFY_HOST: '127.0.0.2' });
  t.is(new URL(plain.listening.url).hostname, '127.0.0.2');
  const flagged = await start(t, ['--listen', '127.0.0.1'], { COMFY_HOST: '127.0.0.2' });
  t.is(new URL(flagged.listening.url).hostname, '127.0.0.1');
  const bare = await start(t, ['--listen', '--node-ms', '0']);
  t.is(new URL(bare.listening.url).hostname, '[::]');
  const both = await start(t, ['--listen', '0.0.0.0,::']);
  t.is(new URL(both.listening.url).hostname, '[::]');
  const first = await start(t, ['--listen', ' 127.0.0.1 ,0.0.0.0']);
  t.is(new URL(first.listening.url).hostname, '127.0.0.1');
  const blank = await start(t, ['--listen', ' , ']);
  t.is(new URL(blank.listening.url).hostname, '127.0.0.1');
});

test('folders come from the flags, else from COMFY_DATA_DIR; the upload limit from --max-upload-size', async (t) => {
  const data = mkdtempSync(path.join(tmpdir(), 'comfy-serve-data-'));
  const input = mkdtempSync(path.join(tmpdir(), 'comfy-serve-in-'));
  const server = await start(t, ['--input-directory', input, '--max-upload-size', '0.01'], { COMFY_DATA_DIR: data });
  t.deepEqual([server.listening.inputDir, server.listening.outputDir, server.listening.tempDir], [input, path.join(data, 'output'), path.join(data, 'temp')]);
  const upload = (bytes: number) => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'upload.png');
    return fetch(`${server.origin}/upload/image`, { method: 'POST', body: form });
  };
  // 0.01 MB is 10,486 bytes: a 20 kB body is refused, a small one lands in the input folder.
  t.is((await upload(20_000)).status, 413);
  t.is((await upload(100)).status, 200);
  t.true(existsSync(path.join(input, 'upload.png')));
  t.deepEqual(readdirSync(data).filter((name) => name === 'input'), [], 'the default input folder is not used');
});

test('--checkpoints offers a loader with those files, trimmed; without it there is no loader; --node-ms is paid per node', async (t) => {
  const loaded = await start(t, ['--checkpoints', ' a.safetensors , ,b.ckpt ', '--node-ms', '400']);
  const info = (await (await fetch(`${loaded.origin}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, { input: { required: Record<string, unknown[]> } }>;
  t.deepEqual(info['CheckpointLoaderSimple']?.input.required['ckpt_name']?.[0], ['a.safetensors', 'b.ckpt']);
  const none = await start(t, []);
  t.deepEqual(await (await fetch(`${none.origin}/object_info/CheckpointLoaderSimple`)).json(), {});
  // One node at 400 ms: the prompt is still running at 200 ms.
  const started = Date.now();
  const posted = await fetch(`${loaded.origin}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: { '1': { class_type: 'PreviewAny', inputs: { source: 'x' } } } }) });
  const { prompt_id: id } = (await posted.json()) as { prompt_id: string };
  let done = false;
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    done = Object.hasOwn((await (await fetch(`${loaded.origin}/history/${id}`)).json()) as object, id);
  }
  t.true(Date.now() - started >= 400, `${Date.now() - started} ms`);
});

test('a port already taken fails the start with exit 1; SIGTERM stops it with exit 0', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => void taken.close());
  const port = (taken.address() as { port: number }).port;
  const busy = await refused(['--port', String(port)]);
  t.is(busy.code, 1);
  t.regex(busy.stderr, /"msg":"start-up failed"/);
  const server = await start(t, []);
  server.child.kill('SIGTERM');
  t.is(await server.exit, 0);
  t.regex(server.stderr(), /"msg":"shutting down","signal":"SIGTERM"/);
});
