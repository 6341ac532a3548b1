export interface ImageDimensions {
  /** As displayed: EXIF orientation applied (a portrait photo stored sideways reports portrait). */
  width: number;
  height: number;
}

export interface ImageInspector {
  /** Null when the bytes do not decode as an image (corrupt, truncated, too many pixels). */
  inspect(bytes: Uint8Array): Promise<ImageDimensions | null>;
}
