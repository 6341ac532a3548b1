import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import test from 'ava';
import sharp from 'sharp';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';
import type { EngineEvent, EngineOutputFile, EngineRunRequest, EngineRunResult, WorkflowEngine } from '../../core/ports/workflow-engine.port.ts';

export interface EngineFixture {
  engine: WorkflowEngine;
  dispose(): Promise<void>;
}

const readAll = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

export const imageAndText = (color: number, prefix = 'contract'): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 40, height: 24, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: prefix } },
  '3': { class_type: 'PrimitiveString', inputs: { value: 'hello engine' } },
  '4': { class_type: 'PreviewAny', inputs: { source: ['3', 0] } },
});

/** About 20 s of CPU unless interrupted. */
export const longBlur = (): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 512, height: 512, batch_size: 64, color: 0 } },
  '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 31, sigma: 10 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blur' } },
});

export const runOnce = async (engine: WorkflowEngine, workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}): Promise<{ result: EngineRunResult; events: EngineEvent[] }> => {
  const events: EngineEvent[] = [];
  const result = await engine.run({ runId: randomUUID(), workflow, inputs: [], onEvent: (e) => events.push(e), ...extra });
  return { result, events };
};

export const fileBytes = async (file: EngineOutputFile): Promise<Buffer> => readAll(await file.open());

/** Registers the WorkflowEngine contract for one engine; `make()` returns a ready engine. */
export function workflowEngineContract(name: string, make: () => Promise<EngineFixture>): void {
  const open = async (t: { teardown(fn: () => Promise<void>): void }): Promise<WorkflowEngine> => {
    const fixture = await make();
    t.teardown(() => fixture.dispose());
    return fixture.engine;
  };

  test(`${name}: runs a workflow, reports the node being run and progress, and streams its image and text outputs`, async (t) => {
    const engine = await open(t);
    const { result, events } = await runOnce(engine, imageAndText(0xff0000));
    if (!result.ok) return t.fail(JSON.stringify(result.error));
    t.deepEqual(result.texts, [{ nodeId: '4', text: 'hello engine' }]);
    t.is(result.files.length, 1);
    const [file] = result.files;
    t.like(file, { nodeId: '2', mimeType: 'image/png', kind: 'output' });
    t.regex(file!.fileName, /^contract_\d+_\.png$/);
    const png = await fileBytes(file!);
    const meta = await sharp(png).metadata();
    t.deepEqual([meta.width, meta.height], [40, 24]);
    t.deepEqual([...(await sharp(png).raw().toBuffer()).subarray(0, 3)], [255, 0, 0]);
    t.is(file!.width, 40, 'the width is known once the file was read');
    t.is(file!.height, 24);
    const executing = events.filter((e) => e.type === 'executing');
    t.true(executing.some((e) => e.type === 'executing' && e.nodeId === '2' && e.classType === 'SaveImage'), JSON.stringify(events));
    const progress = events.filter((e) => e.type === 'progress');
    t.true(progress.length > 0, 'progress reported');
    for (const p of progress) if (p.type === 'progress') t.true(p.value <= p.max && p.max > 0);
  });

  test(`${name}: an uploaded input image reaches LoadImage under the name the workflow gave it`, async (t) => {
    const engine = await open(t);
    const data = await sharp({ create: { width: 10, height: 6, channels: 3, background: { r: 0, g: 0, b: 255 } } }).png().toBuffer();
    const workflow: WorkflowGraph = {
      '1': { class_type: 'LoadImage', inputs: { image: 'upload-1.png' } },
      '2': { class_type: 'ImageScaleBy', inputs: { image: ['1', 0], upscale_method: 'nearest-exact', scale_by: 2 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'scaled' } },
    };
    const { result } = await runOnce(engine, workflow, { inputs: [{ name: 'upload-1.png', mimeType: 'image/png', data }] });
    if (!result.ok) return t.fail(JSON.stringify(result.error));
    const meta = await sharp(await fileBytes(result.files[0]!)).metadata();
    t.deepEqual([meta.width, meta.height], [20, 12]);
  });

  test(`${name}: video and audio outputs are files with their media types`, async (t) => {
    const engine = await open(t);
    const workflow: WorkflowGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 2, color: 0x00ff00 } },
      '2': { class_type: 'CreateVideo', inputs: { images: ['1', 0], fps: 2 } },
      '3': { class_type: 'SaveVideo', inputs: { video: ['2', 0], filename_prefix: 'video/clip', format: 'auto', codec: 'auto' } },
      '4': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['1', 0], filename_prefix: 'anim', fps: 2, lossless: false, quality: 80, method: 'default' } },
      '5': { class_type: 'EmptyAudio', inputs: { duration: 0.5, sample_rate: 8000, channels: 1 } },
      '6': { class_type: 'SaveAudio', inputs: { audio: ['5', 0], filename_prefix: 'audio/sound' } },
    };
    const { result } = await runOnce(engine, workflow);
    if (!result.ok) return t.fail(JSON.stringify(result.error));
    const byNode = Object.fromEntries(result.files.map((f) => [f.nodeId, f]));
    t.is(byNode['3']?.mimeType, 'video/mp4');
    t.is(byNode['4']?.mimeType, 'image/webp');
    t.is(byNode['6']?.mimeType, 'audio/flac');
    const mp4 = await fileBytes(byNode['3']!);
    t.is(mp4.subarray(4, 8).toString('latin1'), 'ftyp');
    t.is((await fileBytes(byNode['6']!)).subarray(0, 4).toString('latin1'), 'fLaC');
  });

  test(`${name}: a graph the engine rejects is ENGINE.VALIDATION, not transient, naming every node error`, async (t) => {
    const engine = await open(t);
    const workflow: WorkflowGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'EmptyImage', inputs: { width: 99999, height: 8, batch_size: 1, color: 0 } },
      '3': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } },
      '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'bad' } },
    };
    const { result } = await runOnce(engine, workflow);
    if (result.ok) return t.fail('a rejected graph succeeded');
    t.is(result.error.code, 'ENGINE.VALIDATION');
    t.false(result.transient);
    t.regex(result.error.message, /EmptyImage #1: Required input is missing: height/);
    t.regex(result.error.message, /EmptyImage #2: Value 99999 bigger than max/);
    t.deepEqual(Object.keys(result.error.nodeErrors ?? {}).sort(), ['1', '2']);
  });

  test(`${name}: a node failing at run time is ENGINE.EXECUTION naming the node id and class`, async (t) => {
    const engine = await open(t);
    const workflow: WorkflowGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'SolidMask', inputs: { value: 1, width: 8, height: 8 } },
      '3': { class_type: 'JoinImageWithAlpha', inputs: { image: ['1', 0], alpha: ['2', 0] } },
      '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['3', 0] } },
      '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'fail' } },
    };
    const { result } = await runOnce(engine, workflow);
    if (result.ok) return t.fail('a failing graph succeeded');
    t.is(result.error.code, 'ENGINE.EXECUTION');
    t.false(result.transient);
    t.is(result.error.nodeId, '4');
    t.regex(result.error.message, /^ImageBatch #4 failed: /);
  });

  test(`${name}: aborting the signal interrupts a running prompt`, async (t) => {
    const engine = await open(t);
    const controller = new AbortController();
    const { result } = await runOnce(engine, longBlur(), {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'executing' && e.nodeId === '2') setTimeout(() => controller.abort(), 50);
      },
    });
    if (result.ok) return t.fail('an interrupted run succeeded');
    t.is(result.error.code, 'ENGINE.INTERRUPTED');
    // Only an interrupt ends this run so: uninterrupted, it succeeds (after about 20 s of CPU).
    t.false(result.transient);
  });

  // A job cancelled while its inputs were loading reaches the engine with its signal already aborted.
  test(`${name}: a signal aborted before the run ends it as ENGINE.INTERRUPTED, with no outputs`, async (t) => {
    const engine = await open(t);
    const controller = new AbortController();
    controller.abort();
    const { result } = await runOnce(engine, imageAndText(0x0000ff, 'aborted'), { signal: controller.signal });
    if (result.ok) return t.fail(`an aborted run succeeded with ${result.files.length} file(s)`);
    t.is(result.error.code, 'ENGINE.INTERRUPTED');
    t.false(result.transient);
  });

  test(`${name}: an identical re-run (ComfyUI answers from its cache) still yields readable files, also after the first run was released`, async (t) => {
    const engine = await open(t);
    const firstRunId = randomUUID();
    const first = await engine.run({ runId: firstRunId, workflow: imageAndText(0x00ff00, 'cached'), inputs: [], onEvent: () => undefined });
    if (!first.ok) return t.fail(JSON.stringify(first.error));
    const firstBytes = await fileBytes(first.files[0]!);
    await engine.release?.(firstRunId);
    const second = await engine.run({ runId: randomUUID(), workflow: imageAndText(0x00ff00, 'cached'), inputs: [], onEvent: () => undefined });
    if (!second.ok) return t.fail(JSON.stringify(second.error));
    t.deepEqual(await fileBytes(second.files[0]!), firstBytes);
    t.deepEqual(second.texts.map((x) => x.text), ['hello engine']);
  });

  test(`${name}: check() passes while the engine is up`, async (t) => {
    const engine = await open(t);
    await t.notThrowsAsync(engine.check());
  });
}
