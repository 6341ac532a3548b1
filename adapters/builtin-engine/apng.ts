/**
 * Animated PNG assembly. libvips (sharp) cannot write APNG, so each frame is encoded to PNG by sharp
 * and its IDAT chunks are re-wrapped as APNG frames (acTL/fcTL/fdAT, per the APNG spec).
 */
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { Frame } from './types.ts';
import { sharpOf } from './image-ops.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
};

const readChunks = (png: Buffer): { type: string; data: Buffer }[] => {
  const out: { type: string; data: Buffer }[] = [];
  let off = 8;
  while (off + 8 <= png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString('ascii', off + 4, off + 8);
    out.push({ type, data: png.subarray(off + 8, off + 8 + len) });
    off += 12 + len;
  }
  return out;
};

export const encodeApng = async (
  frames: Frame[],
  delayMs: number,
  compressLevel: number,
  onFrame?: (index: number) => Promise<void>,
): Promise<Buffer> => {
  const parts: Buffer[] = [SIGNATURE];
  let seq = 0;
  for (const [index, frame] of frames.entries()) {
    const png = await sharpOf(frame).png({ compressionLevel: compressLevel }).toBuffer();
    const chunks = readChunks(png);
    if (index === 0) {
      parts.push(chunk('IHDR', chunks.find((c) => c.type === 'IHDR')!.data));
      const actl = Buffer.alloc(8);
      actl.writeUInt32BE(frames.length, 0);
      actl.writeUInt32BE(0, 4);
      parts.push(chunk('acTL', actl));
    }
    const fctl = Buffer.alloc(26);
    fctl.writeUInt32BE(seq++, 0);
    fctl.writeUInt32BE(frame.width, 4);
    fctl.writeUInt32BE(frame.height, 8);
    fctl.writeUInt32BE(0, 12);
    fctl.writeUInt32BE(0, 16);
    fctl.writeUInt16BE(Math.min(65535, Math.max(0, delayMs)), 20);
    fctl.writeUInt16BE(1000, 22);
    fctl.writeUInt8(0, 24);
    fctl.writeUInt8(0, 25);
    parts.push(chunk('fcTL', fctl));
    for (const c of chunks.filter((x) => x.type === 'IDAT')) {
      if (index === 0) parts.push(chunk('IDAT', c.data));
      else {
        const s = Buffer.alloc(4);
        s.writeUInt32BE(seq++, 0);
        parts.push(chunk('fdAT', Buffer.concat([s, c.data])));
      }
    }
    await onFrame?.(index);
  }
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
};

/**
 * An animated PNG's duration in seconds: the sum of its fcTL delays (a denominator of 0 means 1/100 s, per the APNG
 * spec); undefined for a still PNG. Reads chunk headers, not the image data: acTL must come before the first IDAT, so a
 * still PNG is settled there, and an animated one's fcTL chunks are read without their frames.
 */
export const apngDurationSeconds = async (file: string): Promise<number | undefined> => {
  const handle = await open(file, 'r');
  try {
    // A chunk's length and type, then as much of its data as an fcTL's delay needs.
    const head = Buffer.alloc(32);
    let frames = 0;
    let seconds = 0;
    for (let off = 8; ; off += 12 + head.readUInt32BE(0)) {
      const { bytesRead } = await handle.read(head, 0, head.length, off);
      if (bytesRead < 8) break;
      const type = head.toString('ascii', 4, 8);
      if (type === 'acTL' && bytesRead >= 12) frames = head.readUInt32BE(8);
      if (type === 'fcTL' && bytesRead >= 32) seconds += head.readUInt16BE(28) / (head.readUInt16BE(30) || 100);
      if (type === 'IEND' || (type === 'IDAT' && frames <= 1)) break;
    }
    return frames > 1 ? Math.round(seconds * 1000) / 1000 : undefined;
  } finally {
    await handle.close();
  }
};
