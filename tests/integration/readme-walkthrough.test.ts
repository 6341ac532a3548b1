import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { startComfyProtocolServer } from '../support/comfy-protocol-server.ts';
import { PROJECT_ROOT, runCommand } from '../support/run-command.ts';
import { startTestApp } from '../support/test-app.ts';

/** The first ```sh block under a README heading, exactly as a reader would copy it. */
const readmeBlock = (heading: string): string => {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`## ${heading}\n`));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error(`no sh block under "## ${heading}"`);
  return match[1]!;
};

const ENGINES: { name: string; env(t: { teardown(fn: () => Promise<void>): void }): Promise<Record<string, string>> }[] = [
  { name: 'builtin engine', env: async () => ({}) },
  {
    // ComfyUI reports no duration or size for a video: the stored file is probed, so the walkthrough prints seconds.
    name: 'ENGINE_DRIVER=comfyui',
    env: async (t) => {
      const comfy = await startComfyProtocolServer();
      t.teardown(() => comfy.close());
      return { ENGINE_DRIVER: 'comfyui', COMFYUI_URLS: comfy.url };
    },
  },
];

for (const engine of ENGINES) test.serial(`[${engine.name}] the README walkthrough, pasted as one block into bash, makes an image, a resize of an upload and a video`, async (t) => {
  t.timeout(180_000);
  const app = await startTestApp('sqlite', await engine.env(t));
  t.teardown(() => app.close());
  const scratch = mkdtempSync(path.join(tmpdir(), 'mgs-readme-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

  // As pasted into bash. Only PORT differs (the service under test is not on 3000).
  const block = readmeBlock('Your first generation');
  const result = await runCommand('bash', ['-c', `${block}`], { PORT: String(app.port) }, { cwd: scratch, timeoutMs: 150_000 });
  t.log(result.stdout);
  t.is(result.code, 0, result.stderr);
  t.is(result.stderr, '');
  const lines = result.stdout.trim().split('\n');
  t.like(JSON.parse(lines[0]!), { email: 'me@example.com', displayName: 'Me', coinBalance: 100 });
  t.regex(result.stdout, /^image: succeeded http:\/\/\S+$/m);
  t.regex(result.stdout, /^resized: succeeded 128x128$/m);
  t.regex(result.stdout, /^video: succeeded video\/mp4 3 s$/m);
  t.is(lines.filter((line) => /^(image|video)\/\S+ http:\/\/\S+$/.test(line)).length, 3);
  t.is(lines.at(-1), 'coins left: 94');
});
