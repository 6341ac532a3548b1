import { Readable } from 'node:stream';
import test from 'ava';
import sharp from 'sharp';
import type { ComfyClient, ComfyFileRef, ComfyHistoryEntry } from '../../adapters/comfyui/comfy-client.ts';
import { executionError, failureOf, interruptedError, mimeOf, readOutputs } from '../../adapters/comfyui/comfy-outputs.ts';
import { waitFor } from '../contract/fixtures.ts';

/** readOutputs only touches the client when a file is opened. */
const noClient = {} as ComfyClient;

// Pins: a prompt ComfyUI marks as failed is a failure even when its history entry carries no execution_error message.
test('a history entry with status_str error and no messages is a failure, not a success', (t) => {
  const entry: ComfyHistoryEntry = { outputs: {}, status: { status_str: 'error', completed: false, messages: [] } };
  t.deepEqual(failureOf(entry), { code: 'ENGINE.EXECUTION', message: 'ComfyUI reported the prompt as failed' });
  t.is(failureOf({ outputs: {}, status: { status_str: 'success', completed: true, messages: [] } }), null);
});

// Pins: only output and temp file items are the run's results; an input file a node lists (its source image) is not.
test('file items of type input are not taken as outputs; output and temp items are', (t) => {
  const entry: ComfyHistoryEntry = {
    outputs: {
      '1': { images: [{ filename: 'source.png', subfolder: 'mgs/run', type: 'input' }] },
      '2': { images: [{ filename: 'out_00001_.png', subfolder: 'mgs/run', type: 'output' }] },
      '3': { images: [{ filename: 'preview_00001_.png', subfolder: '', type: 'temp' }] },
    },
    status: { status_str: 'success', completed: true, messages: [] },
  };
  const { files } = readOutputs(noClient, entry);
  t.deepEqual(
    files.map((f) => [f.nodeId, f.fileName, f.kind]),
    [
      ['2', 'out_00001_.png', 'output'],
      ['3', 'preview_00001_.png', 'temp'],
    ],
  );
});

/** A client whose /view serves `serve(ref)` and remembers the file refs it was asked for. */
const viewing = (serve: (ref: ComfyFileRef) => Readable) => {
  const asked: ComfyFileRef[] = [];
  const client = {
    view: async (ref: ComfyFileRef) => {
      asked.push(ref);
      return serve(ref);
    },
  } as unknown as ComfyClient;
  return { client, asked };
};

const consume = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

const success = { status_str: 'success', completed: true, messages: [] } as ComfyHistoryEntry['status'];

// Pins: an item without a file name is no file (there is nothing to fetch); a value that is not a list (a custom node's
// dict) is skipped, and the files beside it are still read; an item without a subfolder is fetched from the top folder.
test('only named file items are outputs; a non-list value is skipped; a missing subfolder is the top folder', async (t) => {
  const entry = {
    outputs: {
      '1': { images: [{ filename: '', subfolder: '', type: 'output' }, { filename: 'kept_00001_.png', type: 'output' }], extra: { note: 'not a list' } },
    },
    status: success,
  } as unknown as ComfyHistoryEntry;
  const { client, asked } = viewing(() => Readable.from([Buffer.from('bytes')]));
  const { files } = readOutputs(client, entry);
  t.deepEqual(files.map((f) => f.fileName), ['kept_00001_.png']);
  await consume(await files[0]!.open());
  t.deepEqual(asked, [{ filename: 'kept_00001_.png', subfolder: '', type: 'output' }]);
});

// Pins: the content type of a signed link comes from the extension, else from the media type the node announced
// (without its parameters), else it is octet-stream.
test('the content type comes from the extension, else the announced format without parameters', (t) => {
  t.is(mimeOf('clip.MP4'), 'video/mp4');
  t.is(mimeOf('clip.h264', 'video/h264;codecs=avc1'), 'video/h264');
  t.is(mimeOf('clip.bin', 'h264'), 'application/octet-stream');
  t.is(mimeOf('clip.bin'), 'application/octet-stream');
});

// Pins: width and height are known when the stream has ended (the caller reads them right after storing the body),
// and an animated image is as high as one frame.
test('an image output knows its size once its stream ended; an animated one is sized by one frame', async (t) => {
  const still = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#f00' } }).png().toBuffer();
  const animated = await sharp({ create: { width: 5, height: 12, channels: 4, background: '#0f0', pageHeight: 4 } }).webp({ loop: 0 }).toBuffer();
  const entry = {
    outputs: { '9': { images: [{ filename: 'still_00001_.png', subfolder: '', type: 'output' }, { filename: 'anim_00001_.webp', subfolder: '', type: 'output' }] } },
    status: success,
  } as ComfyHistoryEntry;
  const { client } = viewing((ref) => Readable.from([ref.filename.endsWith('.png') ? still : animated]));
  const [png, webp] = readOutputs(client, entry).files;
  t.deepEqual(await consume(await png!.open()), still);
  t.deepEqual([png!.width, png!.height], [8, 6]);
  await consume(await webp!.open());
  t.deepEqual([webp!.width, webp!.height], [5, 4]);
});

// Pins: the size is read from the first 64 KiB as they pass, not from the whole file held until its end (a long
// animation would otherwise sit in memory whole): it is known while the rest of the file is still coming.
test('an image output knows its size from its first bytes, before its stream ends', async (t) => {
  const still = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#f00' } }).png().toBuffer();
  const entry = { outputs: { '9': { images: [{ filename: 'long_00001_.png', subfolder: '', type: 'output' }] } }, status: success } as ComfyHistoryEntry;
  let release!: () => void;
  const rest = new Promise<void>((resolve) => (release = resolve));
  const { client } = viewing(() =>
    Readable.from(
      (async function* () {
        yield Buffer.concat([still, Buffer.alloc(70 * 1024)]);
        await rest;
        yield Buffer.alloc(1024);
      })(),
    ),
  );
  const [png] = readOutputs(client, entry).files;
  const stream = await png!.open();
  let ended = false;
  stream.on('data', () => undefined);
  const done = new Promise((resolve) => stream.on('end', () => resolve((ended = true))));
  await waitFor(() => png!.width !== undefined, 'the size, while the file is still coming');
  t.deepEqual([png!.width, png!.height, ended], [8, 6, false]);
  release();
  await done;
});

// Pins: a /view download that fails mid-file fails the output stream; it must not end as if the file were whole
// (the store would keep a truncated image as the output the user paid for).
test('an image download failing mid-file fails the output stream instead of ending it', async (t) => {
  const entry = { outputs: { '9': { images: [{ filename: 'cut_00001_.png', subfolder: '', type: 'output' }] } }, status: success } as ComfyHistoryEntry;
  const { client } = viewing(() => {
    async function* cut() {
      yield Buffer.from('\x89PNG first bytes');
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error('connection reset by the ComfyUI server');
    }
    const body = Readable.from(cut());
    // The client watches its own body too (so a lost error shows here as a stream that never ends, not as a crash).
    body.on('error', () => undefined);
    return body;
  });
  const stream = await readOutputs(client, entry).files[0]!.open();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    consume(stream).then(
      () => 'ended as if whole',
      (error: Error) => error.message,
    ),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('neither ended nor failed in 10 s'), 10_000))),
  ]);
  clearTimeout(timer);
  t.is(outcome, 'connection reset by the ComfyUI server');
});

// Pins: the execution_error and execution_interrupted messages decide the failure and name the node.
test('execution_error and execution_interrupted messages are failures naming their node', (t) => {
  const ended = (type: string): ComfyHistoryEntry => ({
    outputs: {},
    status: {
      status_str: 'error',
      completed: false,
      messages: [
        ['execution_start', { prompt_id: 'p' }],
        [type, { prompt_id: 'p', node_id: '5', node_type: 'KSampler', exception_type: 'RuntimeError', exception_message: ' out of memory\n' }],
      ],
    },
  } as ComfyHistoryEntry);
  t.deepEqual(failureOf(ended('execution_error')), { code: 'ENGINE.EXECUTION', message: 'KSampler #5 failed: RuntimeError: out of memory', nodeId: '5' });
  t.deepEqual(failureOf(ended('execution_interrupted')), { code: 'ENGINE.INTERRUPTED', message: 'Interrupted before KSampler #5 finished', nodeId: '5' });
});

// Pins: a history entry is JSON from the server; whatever shape a node's part of it has, the files beside it are read and
// nothing throws: an entry without outputs, a node whose output is null, null items, a file name that is no string, a
// `text` value that is no list (not read as characters), a file-like item under `text` (text, not a file).
test('odd history shapes are skipped without throwing, and the well-formed files beside them are read', (t) => {
  t.deepEqual(readOutputs(noClient, { status: success } as ComfyHistoryEntry), { files: [], texts: [] });
  const entry = {
    outputs: {
      '1': null,
      '2': { images: [null, { filename: 5, type: 'output' }, { filename: 'kept_00001_.png', subfolder: '', type: 'output' }], text: 'hello' },
      '3': { text: [{ filename: 'said_00001_.png', subfolder: '', type: 'output' }] },
    },
    status: success,
  } as unknown as ComfyHistoryEntry;
  const { files, texts } = readOutputs(noClient, entry);
  t.deepEqual(files.map((f) => [f.nodeId, f.fileName, f.mimeType]), [['2', 'kept_00001_.png', 'image/png']]);
  t.deepEqual(texts.map((x) => x.nodeId), ['3'], 'a text that is no list is not read character by character');
});

// Pins: a history entry without status (older ComfyUI) or without messages is no failure.
test('an entry without status or without messages is a success; messages that are no pairs are skipped', (t) => {
  t.is(failureOf({ outputs: {} } as ComfyHistoryEntry), null);
  t.is(failureOf({ outputs: {}, status: { status_str: 'success', completed: true } } as ComfyHistoryEntry), null);
  // Messages that are no [type, data] lists are skipped (a fault fixed: a null message threw).
  t.is(failureOf({ outputs: {}, status: { status_str: 'success', completed: true, messages: [null, ['execution_start', {}]] } } as unknown as ComfyHistoryEntry), null);
  t.like(failureOf({ outputs: {}, status: { status_str: 'error', completed: false, messages: { oops: 1 } } } as unknown as ComfyHistoryEntry), { code: 'ENGINE.EXECUTION' });
});

// Pins: an error or interrupt message missing its fields still reads as a sentence, and names no node it does not know
// (never a node "undefined" or "null").
test('execution_error and execution_interrupted without their fields name no node', (t) => {
  t.deepEqual(executionError({}), { code: 'ENGINE.EXECUTION', message: 'node # failed: Error: ' });
  t.deepEqual(interruptedError({ node_id: null }), { code: 'ENGINE.INTERRUPTED', message: 'Interrupted' });
  t.deepEqual(interruptedError({}), { code: 'ENGINE.INTERRUPTED', message: 'Interrupted' });
  t.deepEqual(interruptedError({ node_id: 3 }), { code: 'ENGINE.INTERRUPTED', message: 'Interrupted before node #3 finished', nodeId: '3' });
});

// Pins (a fault fixed): an extension that names a member of Object.prototype is no known extension; a format that is
// no string is ignored.
test('an extension such as .constructor or .__proto__ is unknown; a format that is no string is ignored', (t) => {
  t.is(mimeOf('notes.constructor'), 'application/octet-stream');
  t.is(mimeOf('notes.__proto__', 'text/plain'), 'text/plain');
  t.is(mimeOf('clip.bin', 5), 'application/octet-stream');
});

// Pins: an "image" whose bytes are no image (or none) still streams whole and ends, without a size.
test('an image output whose bytes are no image, or empty, ends whole without a size', async (t) => {
  const entry = {
    outputs: { '9': { images: [{ filename: 'junk_00001_.png', subfolder: '', type: 'output' }, { filename: 'empty_00001_.png', subfolder: '', type: 'output' }] } },
    status: success,
  } as ComfyHistoryEntry;
  const { client } = viewing((ref) => Readable.from(ref.filename.startsWith('junk') ? [Buffer.from('not a png at all')] : []));
  for (const [file, bytes] of readOutputs(client, entry).files.map((f, i) => [f, i === 0 ? 'not a png at all' : ''] as const)) {
    let timer: NodeJS.Timeout | undefined;
    const body = await Promise.race([
      consume(await file.open()).then((b) => b.toString()),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('never ended'), 5_000))),
    ]);
    clearTimeout(timer);
    t.is(body, bytes, file.fileName);
    t.deepEqual([file.width, file.height], [undefined, undefined]);
  }
});
