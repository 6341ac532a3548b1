/** comfy_extras/nodes_video.py (V3 nodes): CreateVideo, SaveVideo, SaveWEBM, encoded with ffmpeg. */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { NodeError } from '../types.ts';
import type { AudioValue, NodeContext, NodeDef, VideoValue } from '../types.ts';
import { asImage } from '../image-ops.ts';
import { counterName, getSavePath } from '../save-paths.ts';
import { encodeFrames, requireEncoder } from '../ffmpeg.ts';
import { interleaveAudio } from './audio-nodes.ts';
import { ensureSeconds } from '../run-limits.ts';

const PREFIX_TOOLTIP =
  'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.';
const HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

const combo = (options: string[], extra: Record<string, unknown> = {}): [string, Record<string, unknown>] => [
  'COMBO',
  { options, default: options[0], ...extra },
];

const frameProgress = (ctx: NodeContext, n: number) => async (k: number): Promise<void> => {
  ctx.progress(k + 1, n);
  await ctx.tick();
};

const writeAudio = async (audio: AudioValue, dir: string): Promise<{ file: string; args: string[] }> => {
  const file = path.join(dir, `audio-${randomUUID()}.f32`);
  await writeFile(file, interleaveAudio(audio));
  return { file, args: ['-f', 'f32le', '-ar', String(audio.sampleRate), '-ac', String(audio.channels.length), '-i', file] };
};

export const videoNodes: NodeDef[] = [
  {
    name: 'CreateVideo',
    displayName: 'Create Video',
    description: 'Create a video from images.',
    category: 'image/video',
    pythonModule: 'comfy_extras.nodes_video',
    outputNode: false,
    inputTypes: () => ({
      required: {
        images: ['IMAGE', { tooltip: 'The images to create a video from.' }],
        fps: ['FLOAT', { default: 30.0, min: 1.0, max: 120.0, step: 1.0 }],
      },
      optional: { audio: ['AUDIO', { tooltip: 'The audio to add to the video.' }] },
    }),
    output: ['VIDEO'],
    async run(i, ctx) {
      const video: VideoValue = { kind: 'VIDEO', frames: asImage(i['images'], 'images'), fps: i['fps'] as number };
      ensureSeconds(ctx.env, video.frames.frames.length / video.fps);
      const audio = i['audio'] as AudioValue | undefined;
      if (audio?.kind === 'AUDIO') video.audio = audio;
      return { outputs: [video] };
    },
  },
  {
    name: 'SaveVideo',
    displayName: 'Save Video',
    description: 'Saves the input images to your ComfyUI output directory.',
    category: 'image/video',
    pythonModule: 'comfy_extras.nodes_video',
    outputNode: true,
    inputTypes: () => ({
      required: {
        video: ['VIDEO', { tooltip: 'The video to save.' }],
        filename_prefix: ['STRING', { default: 'video/ComfyUI', tooltip: PREFIX_TOOLTIP }],
        format: combo(['auto', 'mp4'], { tooltip: 'The format to save the video as.' }),
        codec: combo(['auto', 'h264'], { tooltip: 'The codec to use for the video.' }),
      },
      hidden: HIDDEN,
    }),
    output: [],
    async run(i, ctx) {
      const video = i['video'] as VideoValue;
      if (video?.kind !== 'VIDEO') throw new NodeError('video is not a VIDEO', 'TypeError');
      const { path: bin, encoder } = await requireEncoder(ctx.env.ffmpegPath, 'libx264');
      const f = video.frames.frames[0]!;
      const target = await getSavePath(i['filename_prefix'] as string, ctx.env.outputDir, f.width, f.height);
      const file = counterName(target.filename, target.counter, 'mp4');
      const audio = video.audio ? await writeAudio(video.audio, ctx.env.tempDir) : null;
      try {
        await encodeFrames(
          bin,
          video.frames.frames,
          video.fps,
          [
            // yuv420p needs even dimensions: pad odd ones by a pixel.
            '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2',
            '-c:v', encoder, '-pix_fmt', 'yuv420p',
            ...(audio ? ['-map', '0:v', '-map', '1:a', '-c:a', 'aac', '-shortest'] : []),
            path.join(target.fullOutputFolder, file),
          ],
          frameProgress(ctx, video.frames.frames.length),
          audio?.args,
        );
      } finally {
        if (audio) await rm(audio.file, { force: true });
      }
      return { ui: { images: [{ filename: file, subfolder: target.subfolder, type: 'output' }], animated: [true] } };
    },
  },
  {
    name: 'SaveWEBM',
    displayName: 'SaveWEBM',
    description: '',
    category: 'image/video',
    pythonModule: 'comfy_extras.nodes_video',
    outputNode: true,
    inputTypes: () => ({
      required: {
        images: ['IMAGE'],
        filename_prefix: ['STRING', { default: 'ComfyUI' }],
        codec: combo(['vp9', 'av1']),
        fps: ['FLOAT', { default: 24.0, min: 0.01, max: 1000.0, step: 0.01 }],
        crf: [
          'FLOAT',
          {
            default: 32.0, min: 0, max: 63.0, step: 1,
            tooltip: 'Higher crf means lower quality with a smaller file size, lower crf means higher quality higher filesize.',
          },
        ],
      },
      hidden: HIDDEN,
    }),
    output: [],
    async run(i, ctx) {
      const img = asImage(i['images'], 'images');
      ensureSeconds(ctx.env, img.frames.length / (i['fps'] as number));
      const av1 = i['codec'] === 'av1';
      const { path: bin, encoder } = av1
        ? await requireEncoder(ctx.env.ffmpegPath, 'libsvtav1', 'libaom-av1')
        : await requireEncoder(ctx.env.ffmpegPath, 'libvpx-vp9');
      const f = img.frames[0]!;
      const target = await getSavePath(i['filename_prefix'] as string, ctx.env.outputDir, f.width, f.height);
      const file = counterName(target.filename, target.counter, 'webm');
      const crf = String(Math.round(i['crf'] as number));
      const codecArgs =
        encoder === 'libvpx-vp9'
          ? ['-c:v', encoder, '-crf', crf, '-b:v', '0', '-pix_fmt', 'yuv420p', '-deadline', 'realtime', '-cpu-used', '8']
          : encoder === 'libaom-av1'
            ? ['-c:v', encoder, '-strict', 'experimental', '-crf', crf, '-b:v', '0', '-cpu-used', '8', '-pix_fmt', 'yuv420p10le']
            : ['-c:v', encoder, '-crf', crf, '-pix_fmt', 'yuv420p10le'];
      await encodeFrames(
        bin,
        img.frames,
        i['fps'] as number,
        // vp9/av1 in yuv420p need even sizes too
        ['-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2', ...codecArgs, path.join(target.fullOutputFolder, file)],
        frameProgress(ctx, img.frames.length),
      );
      return { ui: { images: [{ filename: file, subfolder: target.subfolder, type: 'output' }], animated: [true] } };
    },
  },
];
