/**
 * Locating an ffmpeg with the encoders the video nodes need, and piping raw frames into it.
 * Order: the configured path, @ffmpeg-installer's binary, then /usr/bin/ffmpeg, keeping the first
 * that has libx264 and libvpx-vp9 (or the first that runs at all).
 */
import { spawn } from 'node:child_process';
import { NodeError } from './types.ts';
import type { Frame } from './types.ts';

export interface FfmpegInfo {
  path: string;
  encoders: Set<string>;
}

export const REQUIRED_ENCODERS = ['libx264', 'libvpx-vp9'];

const run = (bin: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => resolve({ code: -1, stdout, stderr: String(e) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

const probe = async (bin: string): Promise<FfmpegInfo | null> => {
  const r = await run(bin, ['-hide_banner', '-encoders']);
  if (r.code !== 0) return null; // also when it does not exist or cannot run (spawn's error is code -1)
  const encoders = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*[VAS][\w.]{5}\s+(\S+)/.exec(line);
    if (m) encoders.add(m[1]!);
  }
  return { path: bin, encoders };
};

const installerPath = async (): Promise<string | null> => {
  try {
    const mod = (await import('@ffmpeg-installer/ffmpeg')) as { default?: { path?: string }; path?: string };
    return mod.default?.path ?? mod.path ?? null;
  } catch {
    return null;
  }
};

const cache = new Map<string, Promise<FfmpegInfo | null>>();

const locate = async (configured?: string): Promise<FfmpegInfo | null> => {
  const candidates = [configured, await installerPath(), '/usr/bin/ffmpeg'].filter((p): p is string => !!p);
  let fallback: FfmpegInfo | null = null;
  for (const bin of candidates) {
    const info = await probe(bin);
    if (!info) continue;
    if (REQUIRED_ENCODERS.every((e) => info.encoders.has(e))) return info;
    fallback ??= info;
  }
  return fallback;
};

/** The ffmpeg to use and its encoders, probed once per configured path. */
export const findFfmpeg = (configured?: string): Promise<FfmpegInfo | null> => {
  const key = configured ?? '';
  let p = cache.get(key);
  if (!p) {
    p = locate(configured);
    cache.set(key, p);
  }
  return p;
};

export const requireEncoder = async (configured: string | undefined, ...encoders: string[]): Promise<{ path: string; encoder: string }> => {
  const info = await findFfmpeg(configured);
  if (!info) throw new NodeError('ffmpeg was not found (install ffmpeg or set its path)', 'FileNotFoundError');
  const encoder = encoders.find((e) => info.encoders.has(e));
  if (!encoder) throw new NodeError(`Unknown encoder '${encoders[0]}'`, 'av.codec.codec.UnknownCodecError');
  return { path: info.path, encoder };
};

/**
 * Pipes frames (rgb24/rgba) into ffmpeg. `onFrame` runs after each frame is written; it may throw
 * (an interrupt), which kills ffmpeg and rejects.
 */
export const encodeFrames = (
  bin: string,
  frames: Frame[],
  fps: number,
  outputArgs: string[],
  onFrame: (index: number) => Promise<void>,
  extraInputs: string[] = [],
): Promise<void> =>
  new Promise((resolve, reject) => {
    const f = frames[0]!;
    const args = [
      '-hide_banner', '-loglevel', 'error', '-y',
      '-f', 'rawvideo', '-pix_fmt', f.channels === 4 ? 'rgba' : 'rgb24', '-s', `${f.width}x${f.height}`, '-r', String(fps),
      '-i', 'pipe:0',
      ...extraInputs,
      ...outputArgs,
    ];
    const child = spawn(bin, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    let failed: unknown = null;
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.stdin.on('error', () => undefined); // ffmpeg exiting early surfaces through 'close'
    child.on('error', (e) => reject(new NodeError(`ffmpeg could not start: ${e.message}`, 'OSError')));
    child.on('close', (code) => {
      if (failed) reject(failed);
      else if (code === 0) resolve();
      else reject(new NodeError(`ffmpeg exited with code ${code}: ${stderr.trim()}`, 'av.error.FFmpegError'));
    });
    void (async () => {
      try {
        for (const [n, frame] of frames.entries()) {
          if (child.exitCode !== null) return;
          if (!child.stdin.write(frame.data)) {
            // Wait for 'drain' or 'close', then drop the other listener: one listener pair per backpressured
            // frame would pile up (MaxListenersExceededWarning on every video of a few seconds).
            await new Promise<void>((r) => {
              const done = () => {
                child.stdin.off('drain', done);
                child.off('close', done);
                r();
              };
              child.stdin.once('drain', done);
              child.once('close', done);
            });
          }
          await onFrame(n);
        }
        child.stdin.end();
      } catch (e) {
        failed = e;
        child.kill('SIGKILL');
      }
    })();
  });

export interface MediaProbe {
  durationSeconds?: number;
  width?: number;
  height?: number;
}

/** Duration and frame size of a media file, read from `ffmpeg -i` (no ffprobe in the installer package). */
export const probeMedia = async (configured: string | undefined, file: string): Promise<MediaProbe> => {
  const info = await findFfmpeg(configured);
  if (!info) return {};
  const r = await run(info.path, ['-hide_banner', '-i', file]);
  const out: MediaProbe = {};
  const d = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(r.stderr);
  if (d) out.durationSeconds = Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]);
  const s = /Stream #\S+.*?Video: .*?, (\d+)x(\d+)/.exec(r.stderr);
  if (s) {
    out.width = Number(s[1]);
    out.height = Number(s[2]);
  }
  return out;
};

/** Runs ffmpeg with `input` on stdin (e.g. raw f32le audio) and rejects with its stderr on failure. */
export const runWithInput = (bin: string, args: string[], input: Buffer): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-loglevel', 'error', '-y', ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => reject(new NodeError(`ffmpeg could not start: ${e.message}`, 'OSError')));
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new NodeError(`ffmpeg exited with code ${code}: ${stderr.trim()}`, 'av.error.FFmpegError')),
    );
    child.stdin.end(input);
  });
