export interface ImageDimensions {
  /** As displayed: EXIF orientation applied (a portrait photo stored sideways reports portrait). */
  width: number;
  height: number;
}

export interface ImageInspector {
  /** The dimensions the file's header declares, read without decoding any pixel (cheap even for a
   * decompression bomb). Null when there is no readable image header. */
  readHeader(bytes: Uint8Array): Promise<ImageDimensions | null>;
  /** Decodes the image once. Null when it does not decode (corrupt, truncated) or has more than `maxPixels`. */
  inspect(bytes: Uint8Array, maxPixels: number): Promise<ImageDimensions | null>;
}
