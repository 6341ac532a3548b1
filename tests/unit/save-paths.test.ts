import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { counterName, getSavePath } from '../../adapters/builtin-engine/save-paths.ts';

/** A fresh folder holding `output/` (the engine's output folder), removed after the test. */
const scratch = (t: { teardown(fn: () => void): void }): { root: string; output: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'save-paths-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const output = path.join(root, 'output');
  mkdirSync(output);
  return { root, output };
};

// Pins: a filename_prefix cannot place a file outside the output folder: not with .., not as an absolute path, and
// not in a sibling folder whose name starts with the output folder's (`output-evil` is not inside `output`).
test('a prefix that leaves the output folder is refused, and nothing is created outside it', async (t) => {
  const { root, output } = scratch(t);
  for (const prefix of ['../escaped/ComfyUI', '/tmp/abs/ComfyUI', 'sub/../../escaped/ComfyUI', '../output-evil/ComfyUI', 'sub\\..\\..\\escaped\\ComfyUI', '/', '///', '/./']) {
    await t.throwsAsync(() => getSavePath(prefix, output), { message: /outside the output folder/ }, prefix);
  }
  t.deepEqual(readdirSync(root), ['output']);
  t.deepEqual(readdirSync(output), []);
});

// Pins: a prefix inside the output folder (also one whose .. stays inside) gives its subfolder, created when new.
test('a prefix inside the output folder gives its subfolder, created when new', async (t) => {
  const { output } = scratch(t);
  const nested = await getSavePath('mgs/run-1/clip', output);
  t.deepEqual(nested, { fullOutputFolder: path.join(output, 'mgs', 'run-1'), filename: 'clip', counter: 1, subfolder: 'mgs/run-1' });
  t.true(existsSync(path.join(output, 'mgs', 'run-1')));
  t.deepEqual(await getSavePath('a/../ComfyUI', output), { fullOutputFolder: output, filename: 'ComfyUI', counter: 1, subfolder: '' });
  // A trailing slash is dropped, as ComfyUI's normpath drops it: `clips/` is the stem `clips` at the top.
  t.deepEqual(await getSavePath('clips//', output), { fullOutputFolder: output, filename: 'clips', counter: 1, subfolder: '' });
});

// Pins: the counter is one more than the highest counter of this prefix's files (never a counter in use, which would
// overwrite an earlier output); files of other prefixes, of a longer prefix and without digits do not move it.
test('the counter follows the highest counter of the same prefix only', async (t) => {
  const { output } = scratch(t);
  // Created in ascending order, so the highest is neither the first nor the last listed on common file systems.
  for (let n = 1; n <= 60; n += 1) writeFileSync(path.join(output, counterName('ComfyUI', n, n % 2 ? 'png' : 'webp')), '');
  writeFileSync(path.join(output, counterName('ComfyUI', 7, 'png').replace('.png', '.flac')), '');
  for (const other of [counterName('Other', 900, 'png'), counterName('ComfyUIx', 900, 'png'), counterName('ComfyUI_v2', 800, 'png'), 'ComfyUI_final_.png', 'ComfyUI.png', 'ComfyUIx900_.png']) {
    writeFileSync(path.join(output, other), '');
  }
  t.is((await getSavePath('ComfyUI', output)).counter, 61);
  t.is((await getSavePath('Other', output)).counter, 901);
  t.is((await getSavePath('Fresh', output)).counter, 1);
  t.is(counterName('ComfyUI', 61, 'png'), 'ComfyUI_00061_.png');
});
