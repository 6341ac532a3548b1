/** One content hash being computed, fed chunk by chunk as the bytes stream by. */
export interface ContentDigest {
  update(chunk: Uint8Array): void;
  /** The hash of everything fed, as `blake3:<64 lowercase hex>` (content-hash.ts). */
  digest(): string;
}

/** Content addressing of uploads (ADR 042): blake3, as the Comfy API v2 and its SDK compute it. */
export interface ContentHasher {
  start(): Promise<ContentDigest>;
}
