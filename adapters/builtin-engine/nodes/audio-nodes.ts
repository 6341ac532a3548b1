/** comfy_extras/nodes_audio.py: EmptyAudio, SaveAudio (FLAC), PreviewAudio. */
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { NodeError } from '../types.ts';
import type { AudioValue, NodeContext, NodeDef, NodeResult } from '../types.ts';
import { counterName, getSavePath } from '../save-paths.ts';
import { requireEncoder, runWithInput } from '../ffmpeg.ts';
import { ensureSeconds } from '../run-limits.ts';

const HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

/** Interleaved little-endian float32 samples, what ffmpeg reads as f32le. */
export const interleaveAudio = (audio: AudioValue): Buffer => {
  const n = audio.channels.length;
  const len = Math.max(0, ...audio.channels.map((c) => c.length));
  const out = new Float32Array(len * n);
  for (let s = 0; s < len; s++) for (let c = 0; c < n; c++) out[s * n + c] = audio.channels[c]![s] ?? 0;
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
};

const asAudio = (v: unknown): AudioValue => {
  const a = v as AudioValue | undefined;
  if (a?.kind !== 'AUDIO') throw new NodeError('audio is not an AUDIO', 'TypeError');
  return a;
};

const saveFlac = async (audio: AudioValue, prefix: string, dir: string, type: string, ctx: NodeContext): Promise<NodeResult> => {
  const { path: bin } = await requireEncoder(ctx.env.ffmpegPath, 'flac');
  const target = await getSavePath(prefix, dir);
  const file = counterName(target.filename, target.counter, 'flac');
  ctx.progress(0, 1);
  await runWithInput(
    bin,
    ['-f', 'f32le', '-ar', String(audio.sampleRate), '-ac', String(audio.channels.length), '-i', 'pipe:0', '-c:a', 'flac', path.join(target.fullOutputFolder, file)],
    interleaveAudio(audio),
  );
  ctx.progress(1, 1);
  return { ui: { audio: [{ filename: file, subfolder: target.subfolder, type }] } };
};

const TEMP_ALPHABET = 'abcdefghijklmnopqrstupvxyz';

export const audioNodes: NodeDef[] = [
  {
    name: 'EmptyAudio',
    displayName: 'Empty Audio',
    description: '',
    category: 'audio',
    pythonModule: 'comfy_extras.nodes_audio',
    outputNode: false,
    inputTypes: () => ({
      required: {
        duration: ['FLOAT', { default: 60.0, min: 0.0, max: 0xffffffffffffffff, step: 0.01, tooltip: 'Duration of the empty audio clip in seconds' }],
        sample_rate: ['INT', { default: 44100, tooltip: 'Sample rate of the empty audio clip.' }],
        channels: ['INT', { default: 2, min: 1, max: 2, tooltip: 'Number of audio channels (1 for mono, 2 for stereo).' }],
      },
    }),
    output: ['AUDIO'],
    async run(i, ctx) {
      const rate = i['sample_rate'] as number;
      ensureSeconds(ctx.env, i['duration'] as number);
      const samples = Math.trunc((i['duration'] as number) * rate);
      const audio: AudioValue = {
        kind: 'AUDIO',
        sampleRate: rate,
        channels: Array.from({ length: i['channels'] as number }, () => new Float32Array(samples)),
      };
      return { outputs: [audio] };
    },
  },
  {
    name: 'SaveAudio',
    displayName: 'Save Audio (FLAC)',
    description: '',
    category: 'audio',
    pythonModule: 'comfy_extras.nodes_audio',
    outputNode: true,
    inputTypes: () => ({
      required: { audio: ['AUDIO'], filename_prefix: ['STRING', { default: 'audio/ComfyUI' }] },
      hidden: HIDDEN,
    }),
    output: [],
    run: (i, ctx) => saveFlac(asAudio(i['audio']), i['filename_prefix'] as string, ctx.env.outputDir, 'output', ctx),
  },
  {
    name: 'PreviewAudio',
    displayName: 'Preview Audio',
    description: '',
    category: 'audio',
    pythonModule: 'comfy_extras.nodes_audio',
    outputNode: true,
    inputTypes: () => ({ required: { audio: ['AUDIO'] }, hidden: HIDDEN }),
    output: [],
    run: (i, ctx) => {
      const suffix = Array.from({ length: 5 }, () => TEMP_ALPHABET[randomInt(TEMP_ALPHABET.length)]).join('');
      return saveFlac(asAudio(i['audio']), `ComfyUI_temp_${suffix}`, ctx.env.tempDir, 'temp', ctx);
    },
  },
];
