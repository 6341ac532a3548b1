import sharp from 'sharp';

/** Real encoded images for upload tests, made with sharp. */
export async function makeImage(format: 'png' | 'jpeg' | 'webp', width = 64, height = 48, options: { orientation?: number } = {}): Promise<Buffer> {
  let image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });
  if (options.orientation) image = image.withMetadata({ orientation: options.orientation });
  return image.toFormat(format).toBuffer();
}

export const MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
