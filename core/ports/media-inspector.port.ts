import type { Readable } from 'node:stream';

/** What a stored output's bytes say about it; a field is absent when the file does not tell. */
export interface MediaFacts {
  width?: number;
  height?: number;
  /** Playing time: a video's or audio's, or an animated image's frames added up. */
  durationSeconds?: number;
}

export interface MediaInspector {
  /** Reads the file's frame size and duration (video, audio, animated images); {} when it cannot tell. Never throws for a bad file. */
  inspect(open: () => Promise<Readable>, mimeType: string): Promise<MediaFacts>;
}
