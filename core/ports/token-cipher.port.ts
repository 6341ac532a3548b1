/**
 * Encryption of secrets at rest (platform tokens). `context` binds a ciphertext to where it belongs (the
 * user, platform and field): a sealed value copied to another row does not open. Sealed text names the key
 * that sealed it, so keys can rotate: the current key seals, every configured key opens.
 */
export interface TokenCipher {
  seal(plain: string, context: string): string;
  /** Throws when the text was not sealed by a configured key for this context, or was altered. */
  open(sealed: string, context: string): string;
  /** True when `sealed` was sealed with an older key and should be sealed again. */
  isStale(sealed: string): boolean;
}
