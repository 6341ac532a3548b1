import { createBLAKE3 } from 'hash-wasm';
import type { ContentDigest, ContentHasher } from '../../core/ports/content-hasher.port.ts';

/** blake3 through hash-wasm (WebAssembly, no native addon): the library @comfyorg/sdk hashes with, so both sides agree. */
export class Blake3ContentHasher implements ContentHasher {
  async start(): Promise<ContentDigest> {
    const hasher = await createBLAKE3();
    hasher.init();
    return {
      update: (chunk) => void hasher.update(chunk),
      digest: () => `blake3:${hasher.digest('hex')}`,
    };
  }
}
