import { crc32, deflateSync } from 'node:zlib';
import { createBLAKE3 } from 'hash-wasm';
import sharp from 'sharp';

/** Real encoded images for upload tests, made with sharp. */
export async function makeImage(format: 'png' | 'jpeg' | 'webp', width = 64, height = 48, options: { orientation?: number } = {}): Promise<Buffer> {
  let image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });
  if (options.orientation) image = image.withMetadata({ orientation: options.orientation });
  return image.toFormat(format).toBuffer();
}

/** `blake3:<hex>` of the bytes, computed here independently of the service (the content hash of ADR 042). */
export async function blake3Of(bytes: Uint8Array): Promise<string> {
  const hasher = await createBLAKE3();
  hasher.init();
  hasher.update(bytes);
  return `blake3:${hasher.digest('hex')}`;
}

export const MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

const pngChunk = (type: string, data: Buffer): Buffer => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A valid PNG of side × side black pixels, 1-bit grey: a few hundred KB that decode to side² pixels (a decompression bomb). */
export function makePixelBomb(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.writeUInt8(1, 8); // bit depth 1
  ihdr.writeUInt8(0, 9); // greyscale
  const row = Math.ceil(side / 8) + 1; // filter byte + packed bits
  const raw = Buffer.alloc(row * side);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
