import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { HistoryStore, type HistoryEntry } from '../../adapters/comfyui-protocol-server/history-store.ts';
import { renderViewVariant } from '../../adapters/comfyui-protocol-server/view-variants.ts';

const entry = (promptId: string, filename = `${promptId}_00001_.png`): HistoryEntry => ({
  prompt: [0, promptId, {}, {}, ['9']],
  outputs: { '9': { images: [{ filename, subfolder: '', type: 'output' }] } },
  status: { status_str: 'success', completed: true, messages: [] },
  meta: {},
});

// Pins ComfyUI's cap, off by one as there: the oldest entry goes only once the history is already over the cap.
test('the history keeps one entry over its cap and drops the oldest first', (t) => {
  const history = new HistoryStore(2);
  for (const id of ['a', 'b', 'c', 'd']) history.add(id, entry(id));
  t.deepEqual(Object.keys(history.list(null, 0)), ['b', 'c', 'd']);
  t.deepEqual(history.get('a'), {});
  t.deepEqual(history.get('d'), { d: entry('d') });
});

// Pins: what /history serves for a prompt is what the executor recorded when the prompt ended; later edits of the
// executor's objects do not reach it (another prompt's files must not appear under this prompt).
test('a recorded entry is a copy: later edits of the recorded objects do not change it', (t) => {
  const history = new HistoryStore();
  const recorded = entry('p1');
  history.add('p1', recorded);
  (recorded.outputs['9']!['images'] as { filename: string }[])[0]!.filename = 'someone_else_00001_.png';
  recorded.outputs['10'] = { images: [{ filename: 'late.png', subfolder: '', type: 'output' }] };
  t.deepEqual(history.get('p1'), { p1: entry('p1') });
});

// Pins ComfyUI's window of GET /history: a negative offset counts back from the end only with max_items.
test('the /history window: all, the newest max_items, an offset, and max_items=0 with an offset', (t) => {
  const history = new HistoryStore();
  for (const id of ['h1', 'h2', 'h3', 'h4']) history.add(id, entry(id));
  t.deepEqual(Object.keys(history.list(null, -1)), ['h1', 'h2', 'h3', 'h4']);
  t.deepEqual(Object.keys(history.list(2, -1)), ['h3', 'h4']);
  t.deepEqual(Object.keys(history.list(2, 1)), ['h2', 'h3']);
  t.deepEqual(Object.keys(history.list(null, 3)), ['h4']);
  t.deepEqual(Object.keys(history.list(0, 1)), ['h2']);
  history.delete('h2');
  t.deepEqual(Object.keys(history.list(null, -1)), ['h1', 'h3', 'h4']);
});

const semiTransparent = async (t: { teardown(fn: () => void): void }): Promise<string> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'view-variants-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'out_00001_.png');
  writeFileSync(file, await sharp({ create: { width: 4, height: 3, channels: 4, background: { r: 200, g: 100, b: 50, alpha: 0.5 } } }).png().toBuffer());
  return file;
};

// Pins GET /view's re-encodings (server.py with PIL): the stored file by default, channel=rgb without alpha,
// channel=a as a black image carrying the alpha.
test('/view channels: the stored file by default, rgb drops the alpha, a keeps only the alpha', async (t) => {
  const file = await semiTransparent(t);
  t.is(await renderViewVariant(file, null, null), null);
  const rgb = await renderViewVariant(file, null, 'rgb');
  t.is(rgb!.contentType, 'image/png');
  t.like(await sharp(rgb!.data).metadata(), { format: 'png', channels: 3, hasAlpha: false });
  const alpha = await renderViewVariant(file, null, 'a');
  t.is(alpha!.contentType, 'image/png');
  const { data, info } = await sharp(alpha!.data).raw().toBuffer({ resolveWithObject: true });
  t.is(info.channels, 4);
  t.deepEqual([...data.subarray(0, 4)], [0, 0, 0, 128]);
});

// Pins GET /view's previews: jpeg only when no alpha is asked for (else webp), webp with channel=rgb without alpha,
// the quality clamped to 1..100.
test('/view previews: format by channel, alpha dropped for rgb, quality clamped', async (t) => {
  const file = await semiTransparent(t);
  const jpeg = await renderViewVariant(file, 'jpeg;80', null);
  t.is(jpeg!.contentType, 'image/jpeg');
  t.like(await sharp(jpeg!.data).metadata(), { format: 'jpeg' });
  const withAlpha = await renderViewVariant(file, 'jpeg;80', 'rgba');
  t.is(withAlpha!.contentType, 'image/webp');
  t.like(await sharp(withAlpha!.data).metadata(), { format: 'webp', hasAlpha: true });
  const rgb = await renderViewVariant(file, 'webp;90', 'rgb');
  t.like(await sharp(rgb!.data).metadata(), { format: 'webp', hasAlpha: false });
  for (const preview of ['jpeg;500', 'jpeg;0', 'webp;1000']) {
    const clamped = await renderViewVariant(file, preview, null);
    t.truthy(clamped && clamped.data.length > 0, preview);
  }
});
