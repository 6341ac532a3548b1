import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { createBLAKE3 } from 'hash-wasm';
import type { ContentDigest, ContentHasher } from '../../core/ports/content-hasher.port.ts';

/** About 5 ms of hashing: the longest the event loop is held by one slice. */
const SLICE_BYTES = 1024 * 1024;

/**
 * blake3 through hash-wasm (WebAssembly, no native addon): the library @comfyorg/sdk hashes with, so both sides
 * agree. It runs on the event loop (about 220 MB/s here), so a large chunk is hashed in slices with other events
 * let through between them: a 20 MiB upload never stalls other requests for its whole ~90 ms.
 */
export class Blake3ContentHasher implements ContentHasher {
  async start(): Promise<ContentDigest> {
    const hasher = await createBLAKE3();
    hasher.init();
    return {
      update: async (chunk) => {
        for (let offset = 0; offset < chunk.length; offset += SLICE_BYTES) {
          if (offset > 0) await yieldToEvents();
          hasher.update(chunk.subarray(offset, offset + SLICE_BYTES));
        }
      },
      digest: () => `blake3:${hasher.digest('hex')}`,
    };
  }
}
