/**
 * MediaInspector over ffprobe (the @ffprobe-installer binary unless a path is given) for video and audio, and
 * sharp for images: ffprobe's WebP demuxer skips the ANIM/ANMF chunks of an animated WebP (no duration, and a
 * 0×0 frame), while sharp reads every frame's delay. The file is copied to a temporary file first: ffprobe needs
 * to seek (an MP4's index may sit at its end).
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import type { MediaFacts, MediaInspector } from '../../core/ports/media-inspector.port.ts';

interface ProbeJson {
  streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
  format?: { duration?: string };
}

const positive = (value: unknown): number | undefined => {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

/** The installer's binary (a platform package); /usr/bin/ffprobe where it has none. */
const defaultFfprobe = async (): Promise<string> => {
  try {
    const mod = (await import('@ffprobe-installer/ffprobe')) as { default?: { path?: string }; path?: string };
    return mod.default?.path ?? mod.path ?? 'ffprobe';
  } catch {
    return 'ffprobe';
  }
};

export class FfprobeMediaInspector implements MediaInspector {
  constructor(private readonly options: { ffprobePath?: string; timeoutMs?: number } = {}) {}

  async inspect(open: () => Promise<Readable>, mimeType: string): Promise<MediaFacts> {
    const isImage = mimeType.startsWith('image/');
    if (!isImage && !mimeType.startsWith('video/') && !mimeType.startsWith('audio/')) return {};
    const dir = await mkdtemp(path.join(tmpdir(), 'media-probe-'));
    const file = path.join(dir, 'media');
    try {
      await pipeline(await open(), createWriteStream(file));
      return isImage ? await this.image(file) : await this.media(file);
    } catch {
      return {};
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async image(file: string): Promise<MediaFacts> {
    const meta = await sharp(file, { animated: true }).metadata();
    const facts: MediaFacts = {};
    if (meta.width) facts.width = meta.width;
    const height = meta.pageHeight ?? meta.height;
    if (height) facts.height = height;
    if ((meta.pages ?? 1) > 1 && meta.delay) {
      const seconds = positive(meta.delay.reduce((sum, ms) => sum + ms, 0) / 1000);
      if (seconds !== undefined) facts.durationSeconds = seconds;
    }
    return facts;
  }

  private async media(file: string): Promise<MediaFacts> {
    const bin = this.options.ffprobePath ?? (await defaultFfprobe());
    const out = await run(bin, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], this.options.timeoutMs ?? 30_000);
    const probe = JSON.parse(out) as ProbeJson;
    const facts: MediaFacts = {};
    const video = probe.streams?.find((s) => s.codec_type === 'video');
    if (video?.width && video.height) {
      facts.width = video.width;
      facts.height = video.height;
    }
    const duration = positive(probe.format?.duration) ?? positive(probe.streams?.find((s) => positive(s.duration))?.duration);
    if (duration !== undefined) facts.durationSeconds = Math.round(duration * 1000) / 1000;
    return facts;
  }
}

const run = (bin: string, args: string[], timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`ffprobe exited with ${code}: ${stderr.trim()}`))));
  });
