import test from 'ava';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinEngine, type BuiltinEngineOptions } from '../../adapters/builtin-engine/builtin-engine.ts';
import type { EngineEvent, EngineRunRequest, EngineRunResult } from '../../core/ports/workflow-engine.port.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

// The builtin engine around the runtime: per-run folders, input files, the workflow as the domain gives it, and the
// files and events a run reports.

const makeEngine = (options: Partial<BuiltinEngineOptions> = {}) => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'builtin-engine-guards-'));
  return { engine: new BuiltinEngine({ workDir, ...options }), workDir };
};

const request = (runId: string, workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}) => {
  const events: EngineEvent[] = [];
  const req: EngineRunRequest = { runId, workflow, inputs: [], onEvent: (e) => events.push(e), ...extra };
  return { req, events };
};

const solid = (color = 0): WorkflowGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'ComfyUI' } },
});

const filesOf = (r: EngineRunResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.files;
};

const link = (id: unknown, slot: unknown): [string, number] => [id, slot] as unknown as [string, number];

// Pins: a run id never names a folder outside the run's own: "..", "." or one made safe ("a/b") cannot reach the
// work folder or another run's files, and release() of it removes exactly that run.
test('odd run ids get folders of their own, and releasing one leaves the others', async (t) => {
  const { engine, workDir } = makeEngine();
  const ids = ['..', '.', 'a/b', 'a_b', 'x'.repeat(300)];
  const runs = await Promise.all(ids.map((id) => engine.runToPaths(request(id, solid()).req)));
  const files = runs.map((r) => {
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.files[0]!;
  });
  t.deepEqual(files.map((f) => f.fileName), ids.map(() => 'ComfyUI_00001_.png'), 'no two runs share a folder');
  for (const [index, id] of ids.entries()) {
    await engine.release(id);
    t.false(existsSync(files[index]!.path), `release(${id.slice(0, 8)}) removed its run`);
    t.true(
      files.slice(index + 1).every((f) => existsSync(f.path)),
      `release(${id.slice(0, 8)}) kept the other runs`,
    );
  }
  t.true(existsSync(workDir));
  t.deepEqual(readdirSync(path.join(workDir, 'output')), [], 'every run released');
});

// Pins: an input file name cannot climb out of the run's input folder (a template input named "../x" would write
// anywhere); a name in a subfolder is fine.
test('an input file named outside the input folder is refused, and nothing is written', async (t) => {
  const { engine, workDir } = makeEngine();
  const png = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#fff' } }).png().toBuffer();
  for (const name of ['../evil.png', '../../evil.png', '.', '']) {
    const { req } = request('in-1', solid());
    req.inputs = [{ name, mimeType: 'image/png', data: png }];
    const r = await engine.run(req);
    t.false(r.ok, name);
    if (!r.ok) t.deepEqual(r.error, { code: 'ENGINE.VALIDATION', message: `Input file name not allowed: ${name}` });
  }
  t.false(existsSync(path.join(workDir, 'input', 'evil.png')));
  t.false(existsSync(path.join(workDir, 'evil.png')));
  const { req } = request('in-2', {
    '1': { class_type: 'LoadImage', inputs: { image: 'sub/up.png' } },
    '2': { class_type: 'GetImageSize', inputs: { image: ['1', 0] } },
    '3': { class_type: 'PreviewAny', inputs: { source: ['2', 0] } },
  });
  req.inputs = [{ name: 'sub/up.png', mimeType: 'image/png', data: png }];
  t.like(await engine.run(req), { ok: true, texts: [{ nodeId: '3', text: '3' }] });
});

// Pins: only a [number, slot] pair is a numeric link made a string; a longer list or a list id stays what it is, so
// ComfyUI's own checks refuse it, and a node without inputs is a validation error rather than a crash.
test('links are normalized only when they are [number, slot] pairs; malformed nodes fail validation', async (t) => {
  const { engine } = makeEngine();
  const withImages = (images: [string, number]): WorkflowGraph => ({ ...solid(), '2': { class_type: 'SaveImage', inputs: { images, filename_prefix: 'x' } } });
  const long = await engine.run(request('n-1', withImages(link(1, 0) .concat(5) as unknown as [string, number])).req);
  t.like(long, { ok: false, error: { code: 'ENGINE.VALIDATION' } });
  if (!long.ok) t.regex(long.error.message, /SaveImage #2: Bad linked input, must be a length-2 list of \[node_id, slot_index\]: images/);
  const listId = await engine.run(request('n-2', withImages(link([1], 0))).req);
  if (!listId.ok) t.regex(listId.error.message, /SaveImage #2: Exception when validating node: unhashable type: 'list'/);
  t.false(listId.ok);
  const noInputs = await engine.run(request('n-3', { ...solid(), '2': { class_type: 'SaveImage' } as unknown as WorkflowGraph[string] }).req);
  t.false(noInputs.ok);
  if (!noInputs.ok) t.regex(noInputs.error.message, /SaveImage #2: Exception when validating node: 'inputs'/);
});

// Pins: when some outputs are invalid the valid ones still run (as ComfyUI does), and the user is told which nodes
// were skipped; a fully valid run says nothing of the kind.
test('a run with an invalid branch runs the rest and says which nodes were skipped', async (t) => {
  const { engine } = makeEngine();
  const partial = request('p-1', { ...solid(), '3': { class_type: 'PreviewImage', inputs: { images: ['9', 0] } } });
  const r = await engine.run(partial.req);
  t.is(filesOf(r).length, 1);
  t.deepEqual(partial.events.filter((e) => e.type === 'status'), [{ type: 'status', text: 'Skipping invalid nodes 3: their outputs are not produced' }]);
  const whole = request('p-2', solid());
  filesOf(await engine.run(whole.req));
  t.deepEqual(whole.events.filter((e) => e.type === 'status'), []);
});

// Pins: the worker thread's memory budget reaches the nodes: a run over it fails as an execution error.
test('a run over the memory budget fails with MemoryError', async (t) => {
  const { engine } = makeEngine({ overBudget: () => 'the run is over its memory budget' });
  const r = await engine.run(request('m-1', solid()).req);
  t.like(r, { ok: false, transient: false, error: { code: 'ENGINE.EXECUTION', message: 'EmptyImage #1 failed: MemoryError: the run is over its memory budget', nodeId: '1' } });
});

// Pins: a still image has no duration; an animation's is the sum of its frame delays.
test('a still image output has no duration, an animated one has', async (t) => {
  const { engine } = makeEngine();
  const files = filesOf(
    await engine.run(
      request('d-1', {
        ...solid(),
        '3': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['1', 0], filename_prefix: 'one', fps: 2, lossless: true, quality: 80, method: 'fastest' } },
        '6': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0xffffff } },
        '4': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['6', 0] } },
        '5': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['4', 0], filename_prefix: 'three', fps: 2, lossless: true, quality: 80, method: 'fastest' } },
      }).req,
    ),
  );
  const byNode = Object.fromEntries(files.map((f) => [f.nodeId, f]));
  t.is(byNode['2']!.durationSeconds, undefined);
  t.is(byNode['3']!.durationSeconds, undefined);
  t.like(byNode['5'], { width: 8, height: 8, durationSeconds: 1 });
});
