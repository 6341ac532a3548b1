/** One content hash being computed, fed chunk by chunk as the bytes stream by. */
export interface ContentDigest {
  /** Resolves once the chunk is hashed; a large chunk may be hashed in slices, letting other work run between them. */
  update(chunk: Uint8Array): Promise<void>;
  /** The hash of everything fed, as `blake3:<64 lowercase hex>` (content-hash.ts). */
  digest(): string;
}

/** Content addressing of uploads (ADR 042): blake3, as the Comfy API v2 and its SDK compute it. */
export interface ContentHasher {
  start(): Promise<ContentDigest>;
}
