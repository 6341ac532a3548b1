import sharp from 'sharp';
import type { ImageDimensions, ImageInspector } from '../../core/ports/image-inspector.port.ts';

/**
 * Reads dimensions with sharp and decodes the whole image once (shrunk on load where the format
 * allows, so it stays cheap) to refuse corrupt or truncated files before a job trips over them.
 * sharp's pixel limit (about 268 megapixels) refuses decompression bombs.
 */
export class SharpImageInspector implements ImageInspector {
  async inspect(bytes: Uint8Array): Promise<ImageDimensions | null> {
    try {
      const options = { failOn: 'truncated' as const };
      const metadata = await sharp(bytes, options).metadata();
      await sharp(bytes, options).resize(32, 32, { fit: 'inside' }).raw().toBuffer();
      const oriented = metadata.autoOrient ?? metadata;
      if (!oriented.width || !oriented.height) return null;
      return { width: oriented.width, height: oriented.height };
    } catch {
      return null;
    }
  }
}
