import test from 'ava';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinEngine, type BuiltinEngineOptions } from '../../adapters/builtin-engine/builtin-engine.ts';
import { DEFAULT_RESOURCE_LIMITS } from '../../core/domain/resource-limits.ts';
import type { EngineEvent, EngineRunRequest } from '../../core/ports/workflow-engine.port.ts';
import type { WorkflowGraph } from '../../core/domain/workflow-graph.types.ts';

// The builtin engine's remaining guards (audit): the validation summary, the output size cap at its boundary,
// release() of all three run folders, check() and the catalogue.

const makeEngine = (options: Partial<BuiltinEngineOptions> = {}) => {
  const workDir = mkdtempSync(path.join(tmpdir(), 'builtin-engine-audit-'));
  return { engine: new BuiltinEngine({ workDir, ...options }), workDir };
};

const request = (runId: string, workflow: WorkflowGraph, extra: Partial<EngineRunRequest> = {}): EngineRunRequest => {
  const events: EngineEvent[] = [];
  return { runId, workflow, inputs: [], onEvent: (e) => events.push(e), ...extra };
};

const solid: WorkflowGraph = {
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'ComfyUI' } },
};

// Pins: the message of a validation failure: the prompt error alone, with its details, or with every node's errors
// (joined by "; " within a node and " | " between nodes).
test('a validation failure is summed up in one message', async (t) => {
  const { engine } = makeEngine();
  const noOutputs = await engine.run(request('v-1', { '1': solid['1']! }));
  t.deepEqual(noOutputs, { ok: false, transient: false, error: { code: 'ENGINE.VALIDATION', message: 'Prompt has no outputs', nodeErrors: {} } });
  const unknown = await engine.run(request('v-2', { '1': { class_type: 'Nope', inputs: {} } }));
  t.deepEqual(unknown, {
    ok: false,
    transient: false,
    error: { code: 'ENGINE.VALIDATION', message: "Cannot execute because node Nope does not exist.: Node ID '#1'", nodeErrors: {} },
  });
  const nodes = await engine.run(
    request('v-3', {
      '1': { class_type: 'EmptyImage', inputs: { width: 99999, height: 99999, batch_size: 1, color: 0 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
      '3': { class_type: 'PreviewImage', inputs: { images: ['9', 0] } },
    }),
  );
  t.false(nodes.ok);
  if (!nodes.ok) {
    t.is(
      nodes.error.message,
      "Prompt outputs failed validation. EmptyImage #1: Value 99999 bigger than max of 16384: width; Value 99999 bigger than max of 16384: height | PreviewImage #3: Exception when validating node: '9'",
    );
    t.deepEqual(nodes.error.nodeErrors, {
      '1': {
        classType: 'EmptyImage',
        errors: [
          { type: 'value_bigger_than_max', message: 'Value 99999 bigger than max of 16384', details: 'width' },
          { type: 'value_bigger_than_max', message: 'Value 99999 bigger than max of 16384', details: 'height' },
        ],
      },
      '3': { classType: 'PreviewImage', errors: [{ type: 'exception_during_validation', message: 'Exception when validating node', details: "'9'" }] },
    });
  }
});

// Pins: the output cap is "more than": outputs of exactly the limit pass, one byte under it they fail, with the
// sizes in MB.
test('outputs of exactly the output limit pass; one byte over fails', async (t) => {
  const free = await makeEngine().engine.run(request('o-1', solid));
  if (!free.ok) throw new Error(JSON.stringify(free.error));
  const total = free.files.reduce((sum, f) => sum + (f.sizeBytes ?? 0), 0);
  t.true(total > 0);
  const at = await makeEngine({ limits: { ...DEFAULT_RESOURCE_LIMITS, maxOutputBytes: total } }).engine.run(request('o-2', solid));
  t.true(at.ok);
  const over = await makeEngine({ limits: { ...DEFAULT_RESOURCE_LIMITS, maxOutputBytes: total - 1 } }).engine.run(request('o-3', solid));
  t.deepEqual(over, {
    ok: false,
    transient: false,
    error: { code: 'ENGINE.EXECUTION', message: 'The outputs are 0 MB, above the output size limit per job (0 MB)' },
  });
});

// Pins: release() removes the run's input, output and temp folders, and only this run's.
test('release removes the input, output and temp folders of the run', async (t) => {
  const { engine, workDir } = makeEngine();
  const png = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#fff' } }).png().toBuffer();
  const graph: WorkflowGraph = {
    '1': { class_type: 'LoadImage', inputs: { image: 'up.png' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
    '3': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
  };
  for (const id of ['r1', 'r2']) {
    const r = await engine.run(request(id, graph, { inputs: [{ name: 'up.png', mimeType: 'image/png', data: png }] }));
    t.like(r, { ok: true, files: [{ kind: 'output' }, { kind: 'temp' }] });
  }
  const folders = (id: string) => ['input', 'output', 'temp'].map((kind) => path.join(workDir, kind, id));
  t.deepEqual([...folders('r1'), ...folders('r2')].map(existsSync), [true, true, true, true, true, true]);
  await engine.release('r1');
  t.deepEqual(folders('r1').map(existsSync), [false, false, false]);
  t.deepEqual(folders('r2').map(existsSync), [true, true, true]);
});

// Pins: check() makes the work folder when it is missing.
test('check creates a missing work folder', async (t) => {
  const workDir = path.join(mkdtempSync(path.join(tmpdir(), 'builtin-engine-audit-')), 'deep', 'work');
  await new BuiltinEngine({ workDir }).check();
  t.true(existsSync(workDir));
});

// Pins: the catalogue is one server, number 1, with the builtin nodes, built once.
test('the catalogue is server 1 with the builtin nodes, built once', async (t) => {
  const { engine } = makeEngine();
  const [first, ...rest] = await engine.catalogues();
  t.deepEqual(rest, []);
  t.is(first!.server, 1);
  t.true(['EmptyImage', 'SaveImage', 'LoadImage', 'PreviewAny'].every((name) => name in (first!.objectInfo ?? {})));
  t.is((await engine.catalogues())[0]!.objectInfo, first!.objectInfo);
});

// Pins: a relative work folder is resolved once, so an input file inside it is not taken for one outside it.
test('a relative work folder takes input files', async (t) => {
  const absolute = mkdtempSync(path.join(tmpdir(), 'builtin-engine-audit-'));
  const engine = new BuiltinEngine({ workDir: path.relative(process.cwd(), absolute) });
  const png = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#fff' } }).png().toBuffer();
  const r = await engine.run(
    request('rel', { '1': { class_type: 'LoadImage', inputs: { image: 'up.png' } }, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } } }, {
      inputs: [{ name: 'up.png', mimeType: 'image/png', data: png }],
    }),
  );
  t.like(r, { ok: true, files: [{ fileName: 'x_00001_.png', width: 3, height: 2 }] });
  t.true(existsSync(path.join(absolute, 'input', 'rel', 'up.png')));
});

// Pins: numeric link ids are made strings in a copy: the caller's workflow is left as it was given.
test('the caller\'s workflow is not changed by the run', async (t) => {
  const { engine } = makeEngine();
  const workflow = {
    '1': { class_type: 'PrimitiveString', inputs: { value: 'n' } },
    '2': { class_type: 'PreviewAny', inputs: { source: [1, 0] } },
  } as unknown as WorkflowGraph;
  const before = structuredClone(workflow);
  t.like(await engine.run(request('copy', workflow)), { ok: true, texts: [{ nodeId: '2', text: 'n' }] });
  t.deepEqual(workflow, before);
});

// Pins: an aborted signal interrupts the run before its first node finishes, as ENGINE.INTERRUPTED naming the
// node; a node that fails is ENGINE.EXECUTION naming the node and the exception; the events of a run: executing per
// node with its class, progress as the nodes report it.
test('interrupted, failed and successful runs report as the port says', async (t) => {
  const { engine } = makeEngine();
  const controller = new AbortController();
  controller.abort();
  t.deepEqual(await engine.run(request('i-1', solid, { signal: controller.signal })), {
    ok: false,
    transient: false,
    error: { code: 'ENGINE.INTERRUPTED', message: 'Interrupted before EmptyImage #1 finished', nodeId: '1' },
  });
  t.deepEqual(
    await engine.run(
      request('i-2', {
        '1': solid['1']!,
        '2': { class_type: 'ImageToMask', inputs: { image: ['1', 0], channel: 'alpha' } },
        '3': { class_type: 'PreviewAny', inputs: { source: ['2', 0] } },
      }),
    ),
    {
      ok: false,
      transient: false,
      error: { code: 'ENGINE.EXECUTION', message: 'ImageToMask #2 failed: IndexError: index 3 is out of bounds for dimension 3 with size 3', nodeId: '2' },
    },
  );
  const events: EngineEvent[] = [];
  const ok = await engine.run(request('i-3', { ...solid, '3': { class_type: 'PreviewAny', inputs: { source: 'hi' } } }, { onEvent: (e) => events.push(e) }));
  t.like(ok, { ok: true, texts: [{ nodeId: '3', text: 'hi' }], files: [{ nodeId: '2', fileName: 'ComfyUI_00001_.png', mimeType: 'image/png', kind: 'output', width: 8, height: 8 }] });
  t.deepEqual(events, [
    { type: 'executing', nodeId: '1', classType: 'EmptyImage' },
    { type: 'executing', nodeId: '2', classType: 'SaveImage' },
    { type: 'progress', value: 1, max: 1, nodeId: '2' },
    { type: 'executing', nodeId: '3', classType: 'PreviewAny' },
  ]);
});

// Pins (fault fixed): an animated PNG output carries its duration, the sum of its frame delays, as an animated WEBP
// does (libvips reads only the default image of an APNG, so the engine read none); a one-frame APNG and a still PNG
// have none.
test('an animated PNG output has its duration; a still PNG and a one-frame APNG have none', async (t) => {
  const { engine } = makeEngine();
  const r = await engine.run(
    request('apng', {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 6, batch_size: 3, color: 0xff0000 } },
      '2': { class_type: 'SaveAnimatedPNG', inputs: { images: ['1', 0], filename_prefix: 'three', fps: 3, compress_level: 4 } },
      '3': { class_type: 'EmptyImage', inputs: { width: 8, height: 6, batch_size: 1, color: 0 } },
      '4': { class_type: 'SaveAnimatedPNG', inputs: { images: ['3', 0], filename_prefix: 'one', fps: 2, compress_level: 4 } },
      '5': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'still' } },
    }),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  const byName = Object.fromEntries(r.files.map((f) => [f.fileName, f]));
  t.like(byName['three_00001_.png'], { mimeType: 'image/png', width: 8, height: 6, durationSeconds: 0.999 });
  t.like(byName['one_00001_.png'], { mimeType: 'image/png', width: 8, height: 6 });
  t.is(byName['one_00001_.png']!.durationSeconds, undefined);
  t.is(byName['still_00001_.png']!.durationSeconds, undefined);
  t.is(byName['still_00002_.png']!.durationSeconds, undefined);
});

// Pins: inputs whose names need one path as a file and as a folder (`a` then `a/b` or `a/b/c`, or `a/b` then `a`) end the run
// with a validation error naming the input, not an exception; the same names one level apart run.
test('inputs whose names clash as file and folder are a validation error', async (t) => {
  const { engine } = makeEngine();
  const data = Buffer.from('x');
  for (const [runId, names] of [['clash-1', ['a.png', 'a.png/b.png']], ['clash-2', ['c/d.png', 'c']], ['clash-4', ['g.png', 'g.png/h/i.png']]] as const) {
    const r = await engine.run(request(runId, solid, { inputs: names.map((name) => ({ name, data, mimeType: 'image/png' })) }));
    t.deepEqual(r, { ok: false, transient: false, error: { code: 'ENGINE.VALIDATION', message: `Input file name clashes with another input: ${names[1]}` } }, runId);
  }
  const fine = await engine.run(request('clash-3', solid, { inputs: [{ name: 'e.png', data, mimeType: 'image/png' }, { name: 'f/e.png', data, mimeType: 'image/png' }] }));
  t.true(fine.ok);
});
