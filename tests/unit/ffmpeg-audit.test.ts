import test from 'ava';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFrames } from '../../adapters/builtin-engine/ffmpeg.ts';
import { NodeError } from '../../adapters/builtin-engine/types.ts';
import type { Frame } from '../../adapters/builtin-engine/types.ts';

/** Guards of encodeFrames that ffmpeg.test.ts leaves undefended, against a stand-in ffmpeg that refuses its arguments at once. */

/** An "ffmpeg" that reads none of its stdin: it writes an error and exits 1, as ffmpeg does with an unknown option. */
const refusingFfmpeg = (): string => {
  const bin = path.join(mkdtempSync(path.join(tmpdir(), 'refusing-ffmpeg-')), 'ffmpeg');
  writeFileSync(bin, ['#!/bin/sh', 'echo "Unrecognized option" >&2', 'exit 1'].join('\n'));
  chmodSync(bin, 0o755);
  return bin;
};

// Frames larger than a pipe's buffer, so the first write waits for ffmpeg (which never reads).
const bigFrames = (n: number): Frame[] => Array.from({ length: n }, () => ({ width: 256, height: 256, channels: 4, data: Buffer.alloc(256 * 256 * 4, 7) }));

// Pins an ffmpeg that exits without reading its frames: the encode fails with ffmpeg's error (no EPIPE crash of the process),
// and no frame after its exit is reported as encoded.
test('an ffmpeg that exits before reading its frames fails the encode with its error, and no further frame is reported', async (t) => {
  const reported: number[] = [];
  const error = await t.throwsAsync(encodeFrames(refusingFfmpeg(), bigFrames(20), 5, ['o.mp4'], async (n) => void reported.push(n)));
  t.true(error instanceof NodeError);
  t.like(error, { pyType: 'av.error.FFmpegError', message: 'ffmpeg exited with code 1: Unrecognized option' });
  t.true(reported.length <= 1, JSON.stringify(reported));
});
