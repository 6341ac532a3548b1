import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltinRuntime } from '../../adapters/builtin-engine/builtin-runtime.ts';
import type { ExecuteHooks, ExecuteResult, PromptGraph } from '../../adapters/builtin-engine/builtin-runtime.ts';
import { findFfmpeg } from '../../adapters/builtin-engine/ffmpeg.ts';
import { DEFAULT_RESOURCE_LIMITS } from '../../core/domain/resource-limits.ts';

/** Guards of adapters/builtin-engine/nodes/video-nodes.ts (CreateVideo, SaveVideo, SaveWEBM). */

const makeEnv = (limits?: typeof DEFAULT_RESOURCE_LIMITS) => {
  const root = mkdtempSync(path.join(tmpdir(), 'video-nodes-audit-'));
  const dirs = { inputDir: path.join(root, 'in'), outputDir: path.join(root, 'out'), tempDir: path.join(root, 'tmp') };
  return { rt: new BuiltinRuntime({ ...dirs, ...(limits ? { limits } : {}) }), ...dirs };
};

const run = async (rt: BuiltinRuntime, prompt: PromptGraph, hooks?: ExecuteHooks): Promise<ExecuteResult> => {
  const v = rt.validate(prompt);
  if (!v.ok) throw new Error(JSON.stringify(v));
  return rt.execute('p', prompt, hooks);
};

/** `n` (even) frames of 16×16, alternating red and blue. */
const frames = (n: number): PromptGraph => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0xff0000 } },
  '2': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0x0000ff } },
  '3': { class_type: 'ImageBatch', inputs: { image1: ['1', 0], image2: ['2', 0] } },
  '4': { class_type: 'RepeatImageBatch', inputs: { image: ['3', 0], amount: n / 2 } },
});

const ffmpegInfo = async (file: string): Promise<string> => {
  const ff = await findFfmpeg();
  return spawnSync(ff!.path, ['-hide_banner', '-i', file], { encoding: 'utf8' }).stderr;
};

// Pins: SaveWEBM checks the clip's length (frames / fps) against the video length limit before encoding.
test('SaveWEBM refuses a clip longer than the video length limit, and writes nothing', async (t) => {
  const env = makeEnv({ ...DEFAULT_RESOURCE_LIMITS, maxVideoSeconds: 2 });
  const r = await run(env.rt, { ...frames(6), '5': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'long', codec: 'vp9', fps: 2, crf: 32 } } });
  t.is(r.status, 'error');
  if (r.status === 'error') t.regex(r.exceptionMessage, /3 s of media is above the video length limit \(2 s\)/);
  t.deepEqual(readdirSync(env.outputDir), []);
  // Within the limit the same clip is written.
  const ok = await run(env.rt, { ...frames(4), '5': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'short', codec: 'vp9', fps: 2, crf: 32 } } });
  t.is(ok.status, 'success', JSON.stringify(ok));
});

// Pins: CreateVideo checks the video's length (frames / fps) against the video length limit.
test('CreateVideo refuses a video longer than the video length limit', async (t) => {
  const env = makeEnv({ ...DEFAULT_RESOURCE_LIMITS, maxVideoSeconds: 2 });
  const r = await run(env.rt, {
    ...frames(6),
    '5': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 2 } },
    '6': { class_type: 'SaveVideo', inputs: { video: ['5', 0], filename_prefix: 'long', format: 'auto', codec: 'auto' } },
  });
  t.is(r.status, 'error');
  if (r.status === 'error') t.regex(r.exceptionMessage, /3 s of media is above the video length limit \(2 s\)/);
  t.deepEqual(readdirSync(env.outputDir), []);
});

// Pins: codec "av1" encodes AV1 (libaom-av1 here), not VP9.
test('SaveWEBM with codec av1 writes an AV1 webm', async (t) => {
  t.timeout(60_000);
  const env = makeEnv();
  const r = await run(env.rt, { ...frames(2), '5': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'a', codec: 'av1', fps: 24, crf: 40 } } });
  t.is(r.status, 'success', JSON.stringify(r));
  const info = await ffmpegInfo(path.join(env.outputDir, 'a_00001_.webm'));
  t.regex(info, /Video: av1/);
});

// Pins: the encoders report one progress step per frame, ending at (frames, frames), on the saving node.
test('SaveWEBM and SaveVideo report progress frame by frame up to the frame count', async (t) => {
  const env = makeEnv();
  const seen: Record<string, [number, number][]> = {};
  const hooks: ExecuteHooks = { onProgress: (value, max, nodeId) => void (seen[nodeId] ??= []).push([value, max]) };
  const r = await run(
    env.rt,
    {
      ...frames(6),
      '5': { class_type: 'SaveWEBM', inputs: { images: ['4', 0], filename_prefix: 'p', codec: 'vp9', fps: 6, crf: 32 } },
      '6': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 6 } },
      '7': { class_type: 'SaveVideo', inputs: { video: ['6', 0], filename_prefix: 'v', format: 'mp4', codec: 'h264' } },
    },
    hooks,
  );
  t.is(r.status, 'success', JSON.stringify(r));
  t.deepEqual(seen['5'], [[1, 6], [2, 6], [3, 6], [4, 6], [5, 6], [6, 6]]);
  t.deepEqual(seen['7'], [[1, 6], [2, 6], [3, 6], [4, 6], [5, 6], [6, 6]]);
});

// Pins: SaveVideo removes the raw audio it wrote for ffmpeg once the mp4 is encoded (the temp folder does not fill up).
test('SaveVideo with audio leaves no raw audio file behind in the temp folder', async (t) => {
  const env = makeEnv();
  const r = await run(env.rt, {
    ...frames(4),
    '5': { class_type: 'EmptyAudio', inputs: { duration: 0.4, sample_rate: 8000, channels: 1 } },
    '6': { class_type: 'CreateVideo', inputs: { images: ['4', 0], fps: 10, audio: ['5', 0] } },
    '7': { class_type: 'SaveVideo', inputs: { video: ['6', 0], filename_prefix: 'withsound', format: 'mp4', codec: 'h264' } },
  });
  t.is(r.status, 'success', JSON.stringify(r));
  t.regex(await ffmpegInfo(path.join(env.outputDir, 'withsound_00001_.mp4')), /Audio: aac/);
  t.deepEqual(readdirSync(env.tempDir).filter((name) => name.endsWith('.f32')), []);
});
