import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { apngDurationSeconds, encodeApng } from '../../adapters/builtin-engine/apng.ts';
import type { Frame } from '../../adapters/builtin-engine/types.ts';
import { within } from '../contract/fixtures.ts';

// The APNG writer (SaveAnimatedPNG): its chunks read literally, per the APNG spec.

const frame = (rgb: [number, number, number], width = 3, height = 2): Frame => ({
  width,
  height,
  channels: 3,
  data: Buffer.from(Array.from({ length: width * height }, () => rgb).flat()),
});

const chunks = (png: Buffer) => {
  const out: { type: string; data: Buffer; crcOk: boolean }[] = [];
  let off = 8;
  while (off < png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString('ascii', off + 4, off + 8);
    const data = png.subarray(off + 8, off + 8 + len);
    const crc = png.readUInt32BE(off + 8 + len);
    out.push({ type, data, crcOk: crc === crc32(png.subarray(off + 4, off + 8 + len)) >>> 0 });
    off += 12 + len;
  }
  return out;
};

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
};

/** A frame's pixels: a still PNG of the IHDR and the frame's IDAT (or fdAT without its sequence number). */
const pixelsOf = async (ihdr: Buffer, data: Buffer[]) =>
  [...(await sharp(Buffer.concat([Buffer.from(SIGNATURE), chunk('IHDR', ihdr), ...data.map((d) => chunk('IDAT', d)), chunk('IEND', Buffer.alloc(0))])).raw().toBuffer())];

// Pins: signature, IHDR then acTL (frame count, loop forever), one fcTL per frame with its sequence number, size,
// offsets 0, delay in ms over 1000, no dispose and no blend; the first frame's data as IDAT, the next frames' as fdAT
// with their own sequence numbers; IEND last; every CRC right; and each frame's pixels.
test('three frames make an APNG whose chunks say what the spec asks', async (t) => {
  const seen: number[] = [];
  const png = await encodeApng([frame([255, 0, 0]), frame([0, 0, 255]), frame([0, 255, 0])], 500, 6, async (k) => {
    seen.push(k);
  });
  t.deepEqual([...png.subarray(0, 8)], SIGNATURE);
  const list = chunks(png);
  t.deepEqual(list.map((c) => c.type), ['IHDR', 'acTL', 'fcTL', 'IDAT', 'fcTL', 'fdAT', 'fcTL', 'fdAT', 'IEND']);
  t.true(list.every((c) => c.crcOk));
  const ihdr = list[0]!.data;
  t.deepEqual([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]], [3, 2, 8, 2]);
  t.deepEqual([list[1]!.data.length, list[1]!.data.readUInt32BE(0), list[1]!.data.readUInt32BE(4)], [8, 3, 0]);
  const fctl = (d: Buffer) => [d.length, d.readUInt32BE(0), d.readUInt32BE(4), d.readUInt32BE(8), d.readUInt32BE(12), d.readUInt32BE(16), d.readUInt16BE(20), d.readUInt16BE(22), d[24], d[25]];
  t.deepEqual(fctl(list[2]!.data), [26, 0, 3, 2, 0, 0, 500, 1000, 0, 0]);
  t.deepEqual(fctl(list[4]!.data), [26, 1, 3, 2, 0, 0, 500, 1000, 0, 0]);
  t.deepEqual(fctl(list[6]!.data), [26, 3, 3, 2, 0, 0, 500, 1000, 0, 0]);
  t.is(list[5]!.data.readUInt32BE(0), 2);
  t.is(list[7]!.data.readUInt32BE(0), 4);
  t.is(list[8]!.data.length, 0);
  t.deepEqual((await pixelsOf(ihdr, [list[3]!.data])).slice(0, 3), [255, 0, 0]);
  t.deepEqual((await pixelsOf(ihdr, [list[5]!.data.subarray(4)])).slice(0, 3), [0, 0, 255]);
  t.deepEqual((await pixelsOf(ihdr, [list[7]!.data.subarray(4)])).slice(0, 3), [0, 255, 0]);
  t.deepEqual((await sharp(png).raw().toBuffer()).subarray(0, 3).toJSON().data, [255, 0, 0], 'a still reader shows the first frame');
  t.deepEqual(seen, [0, 1, 2], 'each frame is reported once encoded');
});

// Pins: the delay is clamped to what a 16-bit fcTL field holds (fps 0.01 asks for 100 s).
test('a delay beyond 65535 ms is clamped; a negative one is 0', async (t) => {
  const delay = async (ms: number) => chunks(await encodeApng([frame([1, 2, 3])], ms, 1)).find((c) => c.type === 'fcTL')!.data.readUInt16BE(20);
  t.is(await delay(100_000), 65535);
  t.is(await delay(65535), 65535);
  t.is(await delay(-5), 0);
  t.is(await delay(0), 0);
});

// Pins: the frame's compression level reaches the PNG encoder (0 stores, 9 deflates).
test('the compression level reaches the encoder', async (t) => {
  const big = frame([10, 20, 30], 64, 64);
  const size = async (level: number) => chunks(await encodeApng([big], 100, level)).filter((c) => c.type === 'IDAT').reduce((s, c) => s + c.data.length, 0);
  t.true((await size(0)) > 64 * 64 * 3);
  t.true((await size(9)) < 1000);
});

// Pins: an interrupt raised by the per-frame callback stops the encoding there.
test('a failing frame callback stops the encoding', async (t) => {
  const seen: number[] = [];
  await t.throwsAsync(
    encodeApng([frame([0, 0, 0]), frame([1, 1, 1]), frame([2, 2, 2])], 100, 1, async (k) => {
      seen.push(k);
      if (k === 0) throw new Error('interrupted');
    }),
    { message: 'interrupted' },
  );
  t.deepEqual(seen, [0]);
});

/** An fcTL's 26 bytes: sequence number, size, offsets, then the delay (numerator, denominator), dispose and blend. */
const fctl = (num: number, den: number) => {
  const data = Buffer.alloc(26);
  data.writeUInt16BE(num, 20);
  data.writeUInt16BE(den, 22);
  return chunk('fcTL', data);
};
const actl = (frames: number) => {
  const data = Buffer.alloc(8);
  data.writeUInt32BE(frames, 0);
  return chunk('acTL', data);
};
const durationOf = async (parts: Buffer[]) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'apng-duration-')), 'x.png');
  writeFileSync(file, Buffer.concat([Buffer.from(SIGNATURE), chunk('IHDR', Buffer.alloc(13)), ...parts]));
  return apngDurationSeconds(file);
};

// Pins the duration reader (the builtin engine's outputs): fcTL delays summed, rounded to the millisecond; a
// denominator of 0 means 1/100 s; an acTL of one frame, or one after the first IDAT (the spec puts it before; such a
// file is a still PNG to every decoder), gives none; a file cut inside an fcTL counts only the delays it holds whole.
test('the duration of an animated PNG is the sum of its frame delays, read from its chunk headers', async (t) => {
  const idat = chunk('IDAT', Buffer.alloc(40, 7));
  const fdat = chunk('fdAT', Buffer.alloc(44, 9));
  const iend = chunk('IEND', Buffer.alloc(0));
  t.is(await durationOf([actl(2), fctl(1, 0), idat, fctl(3, 4), fdat, iend]), 0.76);
  t.is(await durationOf([actl(3), fctl(1, 3), idat, fctl(1, 3), fdat, fctl(1, 3), fdat, iend]), 1);
  t.is(await durationOf([actl(1), fctl(5, 1), idat, iend]), undefined);
  t.is(await durationOf([idat, actl(2), fctl(1, 1), fctl(2, 1), iend]), undefined);
  t.is(await durationOf([idat, iend]), undefined);
  const whole = Buffer.concat([actl(2), fctl(1, 2), idat, fctl(7, 1)]);
  // Pins: a file cut short ends the read at its end (within a deadline: a read that went on past it would never stop).
  t.is(await within(durationOf([whole.subarray(0, whole.length - 10)]), 5000, 'the duration of a file cut short'), 0.5);
});
