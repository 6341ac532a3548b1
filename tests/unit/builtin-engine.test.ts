import test from 'ava';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { BuiltinEngine } from '../../adapters/builtin-engine/builtin-engine.ts';
import type { EngineEvent, EngineRunRequest } from '../../core/ports/workflow-engine.port.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

const makeEngine = () => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'builtin-engine-'));
  return { engine: new BuiltinEngine({ workDir }), workDir };
};

const request = (runId: string, workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}) => {
  const events: EngineEvent[] = [];
  const req: EngineRunRequest = { runId, workflow, inputs: [], onEvent: (e) => events.push(e), ...extra };
  return { req, events };
};

const readAll = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

const pngOf = (w: number, h: number, rgb: [number, number, number]) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();

test('run: input file → LoadImage → ImageInvert → SaveImage + PreviewImage + PreviewAny', async (t) => {
  const { engine } = makeEngine();
  const { req, events } = request('run-1', {
    '1': { class_type: 'LoadImage', inputs: { image: 'upload.png' } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'out/result' } },
    '4': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
    '5': { class_type: 'PreviewAny', inputs: { source: 'done' } },
  });
  req.inputs = [{ name: 'upload.png', mimeType: 'image/png', data: await pngOf(30, 20, [10, 20, 30]) }];
  const r = await engine.run(req);
  t.true(r.ok, JSON.stringify(r));
  if (!r.ok) return;
  t.is(r.files.length, 2);
  const [saved, preview] = r.files;
  t.like(saved, { nodeId: '3', fileName: 'result_00001_.png', mimeType: 'image/png', kind: 'output', width: 30, height: 20 });
  t.like(preview, { nodeId: '4', mimeType: 'image/png', kind: 'temp', width: 30, height: 20 });
  t.true(saved!.sizeBytes! > 0);
  const { data } = await sharp(await readAll(await saved!.open())).raw().toBuffer({ resolveWithObject: true });
  t.deepEqual([...data.subarray(0, 3)], [245, 235, 225]);
  t.deepEqual(r.texts, [{ nodeId: '5', text: 'done' }]);
  t.deepEqual(
    events.filter((e) => e.type === 'executing'),
    [
      { type: 'executing', nodeId: '1', classType: 'LoadImage' },
      { type: 'executing', nodeId: '2', classType: 'ImageInvert' },
      { type: 'executing', nodeId: '3', classType: 'SaveImage' },
      { type: 'executing', nodeId: '4', classType: 'PreviewImage' },
      { type: 'executing', nodeId: '5', classType: 'PreviewAny' },
    ],
  );
  t.true(events.some((e) => e.type === 'progress' && e.nodeId === '3' && e.value === 1 && e.max === 1));
});

test('run: validation failure names the node and input', async (t) => {
  const { engine } = makeEngine();
  const { req } = request('run-2', {
    '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 99999, batch_size: 1, color: 0 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
  });
  const r = await engine.run(req);
  t.false(r.ok);
  if (r.ok) return;
  t.is(r.error.code, 'ENGINE.VALIDATION');
  t.false(r.transient);
  t.regex(r.error.message, /EmptyImage #1: Value 99999 bigger than max of 16384: height/);
  t.deepEqual(r.error.nodeErrors, {
    '1': { classType: 'EmptyImage', errors: [{ type: 'value_bigger_than_max', message: 'Value 99999 bigger than max of 16384', details: 'height' }] },
  });
});

test('run: a missing input file is a validation error; numeric link ids are accepted', async (t) => {
  const { engine } = makeEngine();
  const missing = await engine.run(
    request('run-3', {
      '1': { class_type: 'LoadImage', inputs: { image: 'nope.png' } },
      '2': { class_type: 'PreviewImage', inputs: { images: [1 as unknown as string, 0] } },
    }).req,
  );
  t.false(missing.ok);
  if (!missing.ok) t.regex(missing.error.message, /LoadImage #1: Custom validation failed for node: image - Invalid image file: nope\.png/);
  const numeric = await engine.run(
    request('run-3b', {
      '1': { class_type: 'PrimitiveString', inputs: { value: 'n' } },
      '2': { class_type: 'PreviewAny', inputs: { source: [1 as unknown as string, 0] } },
    }).req,
  );
  t.like(numeric, { ok: true, texts: [{ nodeId: '2', text: 'n' }] });
});

test('run: runtime failure is ENGINE.EXECUTION with the node id', async (t) => {
  const { engine } = makeEngine();
  const r = await engine.run(
    request('run-4', {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'alpha' } },
      '3': { class_type: 'PreviewAny', inputs: { source: ['2', 0] } },
    }).req,
  );
  t.false(r.ok);
  if (r.ok) return;
  t.is(r.error.code, 'ENGINE.EXECUTION');
  t.is(r.error.nodeId, '2');
  t.regex(r.error.message, /ImageToMask #2 failed: IndexError: index 3 is out of bounds/);
});

test('run: aborting the signal interrupts a long blur', async (t) => {
  const { engine } = makeEngine();
  const controller = new AbortController();
  const { req } = request(
    'run-5',
    {
      '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 16, color: 0x808080 } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 1 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'never' } },
    },
    {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'progress') controller.abort();
      },
    },
  );
  const r = await engine.run(req);
  t.false(r.ok);
  if (!r.ok) t.like(r.error, { code: 'ENGINE.INTERRUPTED', nodeId: '2' });
});

test('concurrent runs with the same prefix do not collide; release removes a run\'s files', async (t) => {
  const { engine, workDir } = makeEngine();
  const graph = (color: number): WorkflowGraph => ({
    '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'ComfyUI' } },
  });
  const [a, b] = await Promise.all([engine.run(request('job/a', graph(0xff0000)).req), engine.run(request('job/b', graph(0x0000ff)).req)]);
  t.true(a.ok && b.ok);
  if (!a.ok || !b.ok) return;
  t.is(a.files[0]!.fileName, 'ComfyUI_00001_.png');
  t.is(b.files[0]!.fileName, 'ComfyUI_00001_.png');
  const pixel = async (f: (typeof a.files)[number]) =>
    [...(await sharp(await readAll(await f.open())).raw().toBuffer()).subarray(0, 3)];
  t.deepEqual(await pixel(a.files[0]!), [255, 0, 0]);
  t.deepEqual(await pixel(b.files[0]!), [0, 0, 255]);
  await engine.release('job/a');
  await t.throwsAsync(async () => readAll(await a.files[0]!.open()));
  t.deepEqual(await pixel(b.files[0]!), [0, 0, 255], 'the other run keeps its files');
  t.true(existsSync(workDir));
});

test('run: video and animated outputs carry mime type, size and duration', async (t) => {
  const { engine } = makeEngine();
  const r = await engine.run(
    request('run-7', {
      '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 16, batch_size: 1, color: 0xff0000 } },
      '2': { class_type: 'EmptyImage', inputs: { width: 32, height: 16, batch_size: 1, color: 0x00ff00 } },
      '3': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } },
      '4': { class_type: 'RepeatImageBatch', inputs: { image: ['3', 0], amount: 5 } },
      '5': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 10 } },
      '6': { class_type: 'SaveVideo', inputs: { video: ['5', 0], filename_prefix: 'video/ComfyUI', format: 'auto', codec: 'auto' } },
      '7': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['4', 0], filename_prefix: 'w', fps: 10, lossless: true, quality: 80, method: 'fastest' } },
      '8': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'm', codec: 'vp9', fps: 10, crf: 32 } },
      '9': { class_type: 'EmptyAudio', inputs: { duration: 2, sample_rate: 8000, channels: 1 } },
      '10': { class_type: 'SaveAudio', inputs: { audio: ['9', 0], filename_prefix: 'audio/ComfyUI' } },
    }).req,
  );
  t.true(r.ok, JSON.stringify(r));
  if (!r.ok) return;
  const byNode = Object.fromEntries(r.files.map((f) => [f.nodeId, f]));
  t.like(byNode['6'], { fileName: 'ComfyUI_00001_.mp4', mimeType: 'video/mp4', kind: 'output', width: 32, height: 16, durationSeconds: 1 });
  t.like(byNode['7'], { fileName: 'w_00001_.webp', mimeType: 'image/webp', width: 32, height: 16, durationSeconds: 1 });
  t.like(byNode['8'], { fileName: 'm_00001_.webm', mimeType: 'video/webm' });
  t.true(Math.abs(byNode['8']!.durationSeconds! - 1) < 0.05);
  t.like(byNode['10'], { fileName: 'ComfyUI_00001_.flac', mimeType: 'audio/flac', kind: 'output', durationSeconds: 2 });
});

test('check resolves and close is a no-op', async (t) => {
  const { engine } = makeEngine();
  await t.notThrowsAsync(engine.check());
  await t.notThrowsAsync(engine.close());
});
