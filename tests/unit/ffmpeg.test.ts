import test from 'ava';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFrames, findFfmpeg, probeMedia, requireEncoder, runWithInput } from '../../adapters/builtin-engine/ffmpeg.ts';
import { NodeError } from '../../adapters/builtin-engine/types.ts';
import type { Frame } from '../../adapters/builtin-engine/types.ts';

// How the builtin engine finds and drives ffmpeg, against stand-in ffmpeg scripts: each answers `-encoders` with
// the list it is given, `-i file` with the media lines it is given (on stderr, as ffmpeg does), and otherwise records
// its arguments and stdin, writes "fake failure" to stderr and exits with the given code.

interface Fake {
  encoders?: string[];
  encodersExit?: number;
  media?: string[];
  exit?: number;
}

const HAS_ALL = ['libx264', 'libvpx-vp9', 'libaom-av1', 'flac'];

const fakeFfmpeg = ({ encoders = HAS_ALL, encodersExit = 0, media = [], exit = 0 }: Fake): string => {
  const bin = path.join(mkdtempSync(path.join(tmpdir(), 'fake-ffmpeg-')), 'ffmpeg');
  const list = ['Encoders:', ' V..... = Video', ' A..... = Audio', ' ------', ...encoders.map((e) => ` ${e === 'flac' ? 'A' : 'V'}....D ${e.padEnd(20)} ${e} encoder`)];
  writeFileSync(
    bin,
    [
      '#!/bin/sh',
      `if [ "$2" = "-encoders" ]; then printf '%s\\n' ${list.map((l) => `'${l}'`).join(' ')}; exit ${encodersExit}; fi`,
      `if [ "$2" = "-i" ]; then printf '%s\\n' ${media.map((l) => `'${l}'`).join(' ')} >&2; exit 1; fi`,
      'echo "$@" > "$0.args"',
      'cat > "$0.stdin"',
      'echo "fake failure" >&2',
      `exit ${exit}`,
    ].join('\n'),
  );
  chmodSync(bin, 0o755);
  return bin;
};

const frames = (n: number, channels: 3 | 4): Frame[] => Array.from({ length: n }, (_, k) => ({ width: 2, height: 2, channels, data: Buffer.alloc(4 * channels, k) }));

const pyError = async (promise: Promise<unknown>): Promise<{ type: string; message: string }> => {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof NodeError)) throw error;
  return { type: error.pyType, message: error.message };
};

// Pins: the configured ffmpeg is used when it has the encoders the video nodes need; its encoder list is read from
// `ffmpeg -encoders` (the legend and header lines are not encoders of the ones asked for).
test('a configured ffmpeg with the needed encoders is used, with the encoders it lists', async (t) => {
  const bin = fakeFfmpeg({});
  const info = await findFfmpeg(bin);
  t.is(info?.path, bin);
  t.true(HAS_ALL.every((e) => info!.encoders.has(e)));
  t.false(info!.encoders.has('Encoders:'));
});

// Pins: an ffmpeg that cannot run, whose -encoders fails, or that lacks libx264/libvpx-vp9 is passed over for one
// that has them (the bundled or system ffmpeg), so a bad configured path does not break video nodes.
test('a configured ffmpeg that fails or lacks an encoder is passed over for a complete one', async (t) => {
  const failing = fakeFfmpeg({ encodersExit: 1 });
  const partial = fakeFfmpeg({ encoders: ['libx264', 'flac'] });
  for (const configured of [failing, partial, path.join(tmpdir(), 'no-such-ffmpeg')]) {
    const info = await findFfmpeg(configured);
    t.truthy(info, configured);
    t.not(info!.path, configured);
    t.true(info!.encoders.has('libx264') && info!.encoders.has('libvpx-vp9'));
  }
});

// Pins: a node asking for one of several encoders (AV1: libsvtav1 or libaom-av1) gets the first the ffmpeg has; one
// it lacks fails the node as PyAV fails (UnknownCodecError), naming the encoder.
test('requireEncoder picks the first encoder available and names a missing one', async (t) => {
  const bin = fakeFfmpeg({});
  t.deepEqual(await requireEncoder(bin, 'libsvtav1', 'libaom-av1'), { path: bin, encoder: 'libaom-av1' });
  t.deepEqual(await pyError(requireEncoder(bin, 'nope', 'nope2')), { type: 'av.codec.codec.UnknownCodecError', message: "Unknown encoder 'nope'" });
});

// Pins: frames reach ffmpeg raw, as rgba or rgb24 by their channel count, with their size and rate, one callback per
// frame; a non-zero exit fails with ffmpeg's own message.
test('encodeFrames pipes raw frames with their pixel format and reports ffmpeg\'s failure', async (t) => {
  const bin = fakeFfmpeg({});
  const seen: number[] = [];
  await encodeFrames(bin, frames(3, 4), 5, ['-c:v', 'x', 'out.mp4'], async (n) => {
    seen.push(n);
  });
  t.deepEqual(seen, [0, 1, 2]);
  t.is(readFileSync(`${bin}.args`, 'utf8').trim(), '-hide_banner -loglevel error -y -f rawvideo -pix_fmt rgba -s 2x2 -r 5 -i pipe:0 -c:v x out.mp4');
  t.deepEqual([...readFileSync(`${bin}.stdin`)], [...Buffer.alloc(16, 0), ...Buffer.alloc(16, 1), ...Buffer.alloc(16, 2)]);
  await encodeFrames(bin, frames(1, 3), 24, ['o.mp4'], async () => undefined);
  t.regex(readFileSync(`${bin}.args`, 'utf8'), /-pix_fmt rgb24 -s 2x2 -r 24 /);
  const failing = fakeFfmpeg({ exit: 3 });
  t.deepEqual(await pyError(encodeFrames(failing, frames(2, 3), 5, ['o.mp4'], async () => undefined)), { type: 'av.error.FFmpegError', message: 'ffmpeg exited with code 3: fake failure' });
});

// Pins: an interrupt raised between frames stops the encode (ffmpeg is killed) and is what the node fails with.
test('encodeFrames stops at the frame whose callback throws and fails with that error', async (t) => {
  const bin = fakeFfmpeg({});
  const seen: number[] = [];
  const stop = new Error('interrupted');
  const error = await t.throwsAsync(
    encodeFrames(bin, frames(5, 3), 5, ['o.mp4'], async (n) => {
      seen.push(n);
      if (n === 1) throw stop;
    }),
  );
  t.is(error, stop);
  t.deepEqual(seen, [0, 1]);
});

// Pins: ffmpeg missing or unable to start fails the node with OSError rather than crashing the process.
test('encodeFrames and runWithInput fail with OSError when ffmpeg cannot start', async (t) => {
  const missing = path.join(tmpdir(), 'no-such-ffmpeg');
  t.deepEqual(await pyError(encodeFrames(missing, frames(1, 3), 5, ['o.mp4'], async () => undefined)), { type: 'OSError', message: `ffmpeg could not start: spawn ${missing} ENOENT` });
  t.deepEqual(await pyError(runWithInput(missing, ['o.flac'], Buffer.alloc(8))), { type: 'OSError', message: `ffmpeg could not start: spawn ${missing} ENOENT` });
});

// Pins: audio goes to ffmpeg on stdin; a non-zero exit fails with ffmpeg's own message.
test('runWithInput feeds stdin and reports ffmpeg\'s failure', async (t) => {
  const bin = fakeFfmpeg({});
  await runWithInput(bin, ['-f', 'f32le', 'o.flac'], Buffer.from('abc'));
  t.is(readFileSync(`${bin}.stdin`, 'utf8'), 'abc');
  t.is(readFileSync(`${bin}.args`, 'utf8').trim(), '-hide_banner -loglevel error -y -f f32le o.flac');
  t.deepEqual(await pyError(runWithInput(fakeFfmpeg({ exit: 2 }), ['o.flac'], Buffer.from('abc'))), { type: 'av.error.FFmpegError', message: 'ffmpeg exited with code 2: fake failure' });
});

// Pins: an output's duration and frame size are read from `ffmpeg -i`; audio has a duration but no size, and a
// file ffmpeg cannot read has neither.
test('probeMedia reads duration and frame size from ffmpeg -i', async (t) => {
  const video = fakeFfmpeg({ media: ['  Duration: 00:01:02.50, start: 0.000000, bitrate: 10 kb/s', '  Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p(progressive), 320x240, 9 kb/s, 25 fps'] });
  t.deepEqual(await probeMedia(video, 'v.mp4'), { durationSeconds: 62.5, width: 320, height: 240 });
  const audio = fakeFfmpeg({ media: ['  Duration: 01:00:02.00, start: 0.000000, bitrate: 80 kb/s', '  Stream #0:0: Audio: flac, 8000 Hz, mono, s16'] });
  t.deepEqual(await probeMedia(audio, 'a.flac'), { durationSeconds: 3602 });
  const unreadable = fakeFfmpeg({ media: ['x.bin: Invalid data found when processing input'] });
  t.deepEqual(await probeMedia(unreadable, 'x.bin'), {});
});
