import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { ExecuteResult, PromptGraph } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { findFfmpeg } from '../../adapters/builtin-engine/ffmpeg.ts';

const makeEnv = () => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-video-'));
  const dirs = { inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') };
  return { rt: new BuiltinRuntime(dirs), ...dirs };
};

type Item = { filename: string; subfolder: string; type: string };

const run = async (rt: BuiltinRuntime, prompt: PromptGraph): Promise<ExecuteResult> => {
  const v = rt.validate(prompt);
  if (!v.ok) throw new Error(JSON.stringify(v));
  return rt.execute('p', prompt);
};

/** Two differently colored frames repeated: `n` frames that alternate red/blue. */
const frames = (width: number, height: number, n: number): PromptGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width, height, batch_size: 1, color: 0xff0000 } },
  '2': { class_type: 'EmptyImage', inputs: { width, height, batch_size: 1, color: 0x0000ff } },
  '3': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } },
  '4': { class_type: 'RepeatImageBatch', inputs: { image: ['3', 0], amount: Math.max(1, n / 2) } },
});

/** `ffmpeg -i` prints stream info on stderr (the installer ships no ffprobe). */
const ffmpegInfo = async (file: string): Promise<string> => {
  const ff = await findFfmpeg();
  return spawnSync(ff!.path, ['-hide_banner', '-i', file], { encoding: 'utf8' }).stderr;
};

test('ffmpeg is found with libx264 and libvpx-vp9', async (t) => {
  const ff = await findFfmpeg();
  t.truthy(ff);
  t.true(ff!.encoders.has('libx264'));
  t.true(ff!.encoders.has('libvpx-vp9'));
});

test('CreateVideo → SaveVideo writes an H.264 yuv420p mp4 in "video/", odd sizes padded to even', async (t) => {
  const env = makeEnv();
  const r = await run(env.rt, {
    ...frames(33, 17, 10),
    '5': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 10 } },
    '6': { class_type: 'SaveVideo', inputs: { video: ['5', 0], filename_prefix: 'video/ComfyUI', format: 'auto', codec: 'auto' } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  t.deepEqual(r.outputs['6'], { images: [{ filename: 'ComfyUI_00001_.mp4', subfolder: 'video', type: 'output' }], animated: [true] });
  const file = path.join(env.outputDir, 'video', 'ComfyUI_00001_.mp4');
  t.is(readFileSync(file).toString('latin1', 4, 8), 'ftyp');
  const info = await ffmpegInfo(file);
  t.regex(info, /Video: h264/);
  t.regex(info, /yuv420p/);
  t.regex(info, /34x18/);
  t.regex(info, /Duration: 00:00:01\.00/);
});

test('SaveWEBM writes a VP9 webm', async (t) => {
  const env = makeEnv();
  const r = await run(env.rt, {
    ...frames(32, 16, 4),
    '5': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'clip', codec: 'vp9', fps: 24, crf: 32 } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  const item = (r.outputs['5']!['images'] as Item[])[0]!;
  t.is(item.filename, 'clip_00001_.webm');
  t.deepEqual(r.outputs['5']!['animated'], [true]);
  const file = path.join(env.outputDir, item.filename);
  t.is(readFileSync(file).readUInt32BE(0), 0x1a45dfa3, 'EBML header');
  t.regex(await ffmpegInfo(file), /Video: vp9/);
});

test('SaveAnimatedWEBP: animated [true] for several frames, [false] for one', async (t) => {
  const env = makeEnv();
  const r = await run(env.rt, {
    ...frames(16, 16, 4),
    '5': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['4', 0], filename_prefix: 'anim', fps: 5, lossless: true, quality: 80, method: 'fastest' } },
    '6': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['1', 0], filename_prefix: 'still', fps: 5, lossless: false, quality: 80, method: 'default' } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  t.deepEqual(r.outputs['5'], { images: [{ filename: 'anim_00001_.webp', subfolder: '', type: 'output' }], animated: [true] });
  t.deepEqual(r.outputs['6']!['animated'], [false]);
  const meta = await sharp(path.join(env.outputDir, 'anim_00001_.webp')).metadata();
  t.is(meta.pages, 4);
  t.deepEqual(meta.delay, [200, 200, 200, 200]);
});

test('SaveAnimatedPNG writes an APNG with one frame per image', async (t) => {
  const env = makeEnv();
  const r = await run(env.rt, {
    ...frames(16, 8, 6),
    '5': { class_type: 'SaveAnimatedPNG', inputs: { images: ['4', 0], filename_prefix: 'apng', fps: 10, compress_level: 4 } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  t.deepEqual(r.outputs['5'], { images: [{ filename: 'apng_00001_.png', subfolder: '', type: 'output' }], animated: [true] });
  const png = readFileSync(path.join(env.outputDir, 'apng_00001_.png'));
  const actl = png.indexOf('acTL');
  t.true(actl > 0);
  t.is(png.readUInt32BE(actl + 4), 6, 'acTL num_frames');
  const decoded = spawnSync((await findFfmpeg())!.path, ['-hide_banner', '-i', path.join(env.outputDir, 'apng_00001_.png'), '-f', 'null', '-'], { encoding: 'utf8' });
  t.regex(decoded.stderr, /frame=\s*6\b/);
});

test('an ffmpeg failure gives status error with its message', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'builtin-video-'));
  // passes the encoder probe, then fails every encode without reading its input
  const fake = path.join(root, 'fake-ffmpeg');
  writeFileSync(
    fake,
    '#!/bin/sh\ncase "$*" in *-encoders*) echo " V..... libx264 x"; echo " V..... libvpx-vp9 x"; exit 0;; esac\necho "boom: encoder exploded" >&2\nexit 1\n',
  );
  chmodSync(fake, 0o755);
  const rt = new BuiltinRuntime({
    inputDir: path.join(root, 'in'),
    outputDir: path.join(root, 'out'),
    tempDir: path.join(root, 'tmp'),
    ffmpegPath: fake,
  });
  const r = await rt.execute('p', {
    ...frames(8, 8, 40),
    '5': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'x', codec: 'vp9', fps: 24, crf: 32 } },
  });
  t.like(r, { status: 'error', nodeId: '5', nodeType: 'SaveWEBM' });
  if (r.status === 'error') t.regex(r.exceptionMessage, /ffmpeg exited with code 1: boom: encoder exploded/);
});

test('EmptyAudio → SaveAudio / PreviewAudio write FLAC; CreateVideo muxes audio into the mp4', async (t) => {
  const env = makeEnv();
  const r = await run(env.rt, {
    ...frames(16, 16, 10),
    '5': { class_type: 'EmptyAudio', inputs: { duration: 1.5, sample_rate: 22050, channels: 1 } },
    '6': { class_type: 'SaveAudio', inputs: { audio: ['5', 0], filename_prefix: 'audio/ComfyUI' } },
    '7': { class_type: 'PreviewAudio', inputs: { audio: ['5', 0] } },
    '8': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 10, audio: ['5', 0] } },
    '9': { class_type: 'SaveVideo', inputs: { video: ['8', 0], filename_prefix: 'video/withsound', format: 'mp4', codec: 'h264' } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  t.deepEqual(r.outputs['6'], { audio: [{ filename: 'ComfyUI_00001_.flac', subfolder: 'audio', type: 'output' }] });
  const preview = (r.outputs['7']!['audio'] as Item[])[0]!;
  t.regex(preview.filename, /^ComfyUI_temp_[a-z]{5}_00001_\.flac$/);
  t.is(preview.type, 'temp');
  const flac = path.join(env.outputDir, 'audio', 'ComfyUI_00001_.flac');
  t.is(readFileSync(flac).toString('latin1', 0, 4), 'fLaC');
  t.regex(await ffmpegInfo(flac), /Duration: 00:00:01\.50/);
  const mp4 = await ffmpegInfo(path.join(env.outputDir, 'video', 'withsound_00001_.mp4'));
  t.regex(mp4, /Audio: aac/);
  t.regex(mp4, /Video: h264/);
});

test('a long video encodes without piling up listeners on ffmpeg (no MaxListenersExceededWarning)', async (t) => {
  t.timeout(120_000);
  const env = makeEnv();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));
  // 256×256 RGB frames (192 KiB each) overflow the pipe on almost every write: 12 s at 10 fps is 120 waits for 'drain'.
  const r = await run(env.rt, {
    ...frames(256, 256, 120),
    '5': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 10 } },
    '6': { class_type: 'SaveVideo', inputs: { video: ['5', 0], filename_prefix: 'video/long', format: 'mp4', codec: 'h264' } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  t.deepEqual(warnings.filter((w) => w.includes('MaxListenersExceeded')), []);
  t.regex(await ffmpegInfo(path.join(env.outputDir, 'video', 'long_00001_.mp4')), /Duration: 00:00:12\.00/);
});
