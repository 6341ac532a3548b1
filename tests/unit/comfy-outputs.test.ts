import test from 'ava';
import type { ComfyClient, ComfyHistoryEntry } from '../../adapters/comfyui/comfy-client.ts';
import { failureOf, readOutputs } from '../../adapters/comfyui/comfy-outputs.ts';

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
