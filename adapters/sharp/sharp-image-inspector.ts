import sharp, { type Metadata } from 'sharp';
import type { ImageDimensions, ImageInspector } from '../../core/ports/image-inspector.port.ts';

const oriented = (metadata: Metadata): ImageDimensions | null => {
  const shown = metadata.autoOrient ?? metadata;
  return shown.width && shown.height ? { width: shown.width, height: shown.height } : null;
};

/**
 * sharp's metadata() parses the header only, so a pixel bomb (a small file that decodes to gigapixels) is
 * measured without being decoded. The decode that follows refuses corrupt or truncated files before a job
 * trips over them, shrunk on load where the format allows, and bounded by `limitInputPixels`.
 */
export class SharpImageInspector implements ImageInspector {
  async readHeader(bytes: Uint8Array): Promise<ImageDimensions | null> {
    try {
      return oriented(await sharp(bytes, { limitInputPixels: false }).metadata());
    } catch {
      return null;
    }
  }

  async inspect(bytes: Uint8Array, maxPixels: number): Promise<ImageDimensions | null> {
    try {
      const options = { failOn: 'truncated' as const, limitInputPixels: maxPixels };
      const metadata = await sharp(bytes, options).metadata();
      await sharp(bytes, options).resize(32, 32, { fit: 'inside' }).raw().toBuffer();
      return oriented(metadata);
    } catch {
      return null;
    }
  }
}
