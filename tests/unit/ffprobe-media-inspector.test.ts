import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { FfprobeMediaInspector } from '../../adapters/media-probe/ffprobe-media-inspector.ts';

// What an output's facts (width, height, duration) read from its bytes: images through sharp, video and audio
// through the real ffprobe, and ffprobe's answers the real one seldom gives through a stand-in script that prints
// the JSON it is given (or fails, or hangs).

const bytes = (buffer: Buffer) => async (): Promise<Readable> => Readable.from([buffer]);

/** A stand-in ffprobe printing `json` (or exiting with `exit`, or sleeping `sleep` seconds first). */
const fakeProbe = (json: unknown, { exit = 0, sleep = 0 }: { exit?: number; sleep?: number } = {}): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fake-ffprobe-'));
  writeFileSync(path.join(dir, 'out.json'), JSON.stringify(json));
  const bin = path.join(dir, 'ffprobe');
  writeFileSync(bin, ['#!/bin/sh', sleep > 0 ? `exec sleep ${sleep}` : '', `cat "${path.join(dir, 'out.json')}"`, exit ? 'echo "bad input" >&2' : '', `exit ${exit}`].join('\n'));
  chmodSync(bin, 0o755);
  return bin;
};

const probed = (json: unknown, mimeType = 'video/mp4', options: { exit?: number; sleep?: number; timeoutMs?: number } = {}) =>
  new FfprobeMediaInspector({ ffprobePath: fakeProbe(json, options), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }).inspect(bytes(Buffer.from('media')), mimeType);

/** A real file made by ffmpeg (lavfi sources), read back as bytes. */
const encoded = (name: string, args: string[]): Buffer => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'probe-src-')), name);
  const run = spawnSync(ffmpegInstaller.path, ['-v', 'error', '-y', ...args, file]);
  if (run.status !== 0) throw new Error(`ffmpeg: ${run.stderr.toString()}`);
  return readFileSync(file);
};

test('a type that is neither image, video nor audio is not read at all', async (t) => {
  let opened = false;
  const facts = await new FfprobeMediaInspector({ ffprobePath: fakeProbe({ format: { duration: '3' } }) }).inspect(async () => {
    opened = true;
    return Readable.from([Buffer.from('{}')]);
  }, 'application/json');
  t.deepEqual(facts, {});
  t.false(opened);
});

test('an image: its size; an animated one: the height of one frame and the sum of its frame delays', async (t) => {
  const inspector = new FfprobeMediaInspector();
  const png = await sharp({ create: { width: 7, height: 5, channels: 3, background: '#000' } }).png().toBuffer();
  t.deepEqual(await inspector.inspect(bytes(png), 'image/png'), { width: 7, height: 5 });
  // Three 6×4 frames stacked (each its own grey: identical frames would be merged into one), shown 100, 200 and 250 ms.
  const frames = Buffer.alloc(6 * 12 * 3);
  for (let page = 0; page < 3; page++) frames.fill(40 + page * 80, page * 6 * 4 * 3, (page + 1) * 6 * 4 * 3);
  const webp = await sharp(frames, { raw: { width: 6, height: 12, channels: 3, pageHeight: 4 } }).webp({ delay: [100, 200, 250], loop: 0, lossless: true }).toBuffer();
  t.deepEqual(await inspector.inspect(bytes(webp), 'image/webp'), { width: 6, height: 4, durationSeconds: 0.55 });
  // One frame with a delay (a GIF keeps it) is a still: no duration.
  const still = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#fff' } }).gif({ delay: [300] }).toBuffer();
  t.deepEqual((await sharp(still).metadata()).delay, [300]);
  t.deepEqual(await inspector.inspect(bytes(still), 'image/gif'), { width: 6, height: 4 });
  // Frames without any delay: no duration.
  const instant = await sharp(frames, { raw: { width: 6, height: 12, channels: 3, pageHeight: 4 } }).gif({ delay: [0, 0, 0] }).toBuffer();
  t.deepEqual(await inspector.inspect(bytes(instant), 'image/gif'), { width: 6, height: 4 });
});

test('a video and an audio file, read by the real ffprobe: a video stream gives the size, the duration is rounded to the millisecond', async (t) => {
  const inspector = new FfprobeMediaInspector();
  const mp4 = encoded('clip.mp4', ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=1.2', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-movflags', '+faststart']);
  t.deepEqual(await inspector.inspect(bytes(mp4), 'video/mp4'), { width: 64, height: 48, durationSeconds: 1.2 });
  const wav = encoded('tone.wav', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5']);
  t.deepEqual(await inspector.inspect(bytes(wav), 'audio/wav'), { durationSeconds: 0.5 });
});

test("ffprobe's answers: the format's duration first, else the first stream's that has one; a size only from a video stream with both sides", async (t) => {
  t.deepEqual(await probed({ streams: [{ codec_type: 'audio', width: 9, height: 9, duration: '4' }, { codec_type: 'video', width: 32, height: 16, duration: '5' }], format: { duration: '2.34567' } }), {
    width: 32,
    height: 16,
    durationSeconds: 2.346,
  });
  t.deepEqual(await probed({ streams: [{ codec_type: 'video', width: 32, duration: 'N/A' }, { codec_type: 'audio', duration: '0' }, { codec_type: 'audio', duration: '1.5' }], format: { duration: 'N/A' } }), {
    durationSeconds: 1.5,
  });
  t.deepEqual(await probed({ streams: [{ codec_type: 'video', height: 16 }], format: { duration: '-1' } }), {});
  t.deepEqual(await probed({ format: {} }, 'audio/mpeg'), {});
});

test('an ffprobe that fails, hangs or prints no JSON, and a body that cannot be read, give no facts, and no temporary file stays', async (t) => {
  const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('media-probe-')));
  t.deepEqual(await probed({ format: { duration: '3' } }, 'video/mp4', { exit: 1 }), {});
  const started = Date.now();
  t.deepEqual(await probed({ format: { duration: '3' } }, 'video/mp4', { sleep: 5, timeoutMs: 300 }), {});
  t.true(Date.now() - started < 3000, 'a hung ffprobe is stopped at its time limit');
  t.deepEqual(await new FfprobeMediaInspector({ ffprobePath: '/nonexistent/ffprobe' }).inspect(bytes(Buffer.from('media')), 'video/mp4'), {});
  t.deepEqual(await probed('not json {', 'video/mp4'), {});
  const failing = new FfprobeMediaInspector({ ffprobePath: fakeProbe({ format: { duration: '3' } }) });
  t.deepEqual(await failing.inspect(async () => { throw new Error('storage unavailable'); }, 'video/mp4'), {});
  const broken = new Readable({ read() { this.destroy(new Error('connection reset')); } });
  t.deepEqual(await failing.inspect(async () => broken, 'video/mp4'), {});
  const after = readdirSync(tmpdir()).filter((name) => name.startsWith('media-probe-') && !before.has(name));
  t.deepEqual(after, []);
});
