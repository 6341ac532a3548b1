/** The input image types the service accepts, recognised by their leading bytes. */
export type ImageMimeType = 'image/png' | 'image/jpeg' | 'image/webp';

export const IMAGE_MIME_TYPES: readonly ImageMimeType[] = ['image/png', 'image/jpeg', 'image/webp'];

export const IMAGE_EXTENSION: Readonly<Record<ImageMimeType, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** How many leading bytes `sniffImageType` needs. */
export const IMAGE_SNIFF_BYTES = 12;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

/** A byte past the end reads as undefined, which equals no signature byte: a short buffer does not match. */
const startsWith = (bytes: Uint8Array, signature: number[], offset = 0): boolean => signature.every((byte, index) => bytes[offset + index] === byte);

/** The real type from the magic bytes: PNG `89 50 4E 47 0D 0A 1A 0A`, JPEG `FF D8 FF`, WebP `RIFF....WEBP`. */
export function sniffImageType(bytes: Uint8Array): ImageMimeType | null {
  if (startsWith(bytes, PNG)) return 'image/png';
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  return null;
}

const ALIASES: Readonly<Record<string, ImageMimeType>> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/webp': 'image/webp',
};

/**
 * What a client claims a file is. `unspecified` for a generic claim (`application/octet-stream`, none):
 * then the bytes alone decide. `other` for any specific non-image claim.
 */
export function parseClaimedImageType(claimed: string | null | undefined): ImageMimeType | 'unspecified' | 'other' {
  const base = (claimed ?? '').split(';')[0]!.trim().toLowerCase();
  if (base === '' || base === 'application/octet-stream') return 'unspecified';
  return ALIASES[base] ?? 'other';
}
