/**
 * Content addressing of uploads (ADR 042): every stored upload carries the blake3 of its bytes, written the way the
 * Comfy API v2 writes it, `blake3:<64 lowercase hex>`.
 */
const CONTENT_HASH = /^blake3:([0-9a-f]{64})$/i;

/** The canonical form of a content hash a client sent (hex lowercased), or null when it is not `blake3:<64 hex>`. */
export function parseContentHash(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = CONTENT_HASH.exec(value.trim());
  return match ? `blake3:${match[1]!.toLowerCase()}` : null;
}

export const CONTENT_HASH_FORMAT = 'blake3:<64 hex digits>';
