import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { TokenCipher } from '../../core/ports/token-cipher.port.ts';

export interface TokenKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** 32 bytes from 64 hex characters, or from base64 / base64url text; null otherwise. */
function keyBytes(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}

/**
 * TOKEN_ENCRYPTION_KEY: comma-separated `id:key` or `key` entries, the first one current (it seals), the
 * others kept to open what older keys sealed. A key is 32 bytes as 64 hex characters or base64; an id
 * defaults to the first 8 hex characters of the key's SHA-256. Problems never quote a key.
 */
export function parseTokenKeys(text: string): { keys: TokenKey[] } | { problem: string } {
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) return { problem: 'no key given' };
  const keys: TokenKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = colon >= 0 ? entry.slice(0, colon) : null;
    const key = keyBytes(colon >= 0 ? entry.slice(colon + 1) : entry);
    if (!key) return { problem: `entry ${index + 1} is not 32 bytes as 64 hex characters or base64` };
    if (id !== null && !KEY_ID.test(id)) return { problem: `entry ${index + 1} has a key id that is not 1 to 32 letters, digits, '-' or '_'` };
    const keyId = id ?? createHash('sha256').update(key).digest('hex').slice(0, 8);
    if (keys.some((known) => known.id === keyId)) return { problem: `key id "${keyId}" is given twice` };
    keys.push({ id: keyId, key });
  }
  return { keys };
}

/**
 * AES-256-GCM with a fresh 96-bit IV per seal and the caller's context as additional authenticated data.
 * Sealed text: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
export class AesGcmTokenCipher implements TokenCipher {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly TokenKey[]) {
    if (keys.length === 0) throw new Error('AesGcmTokenCipher needs at least one key');
    for (const { key } of keys) if (key.length !== 32) throw new Error('AES-256-GCM keys are 32 bytes');
    this.byId = new Map(keys.map(({ id, key }) => [id, key]));
  }

  seal(plain: string, context: string): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== 'v1') throw new Error('not a sealed token');
    const key = this.byId.get(parts[1]!);
    if (!key) throw new Error(`sealed with key "${parts[1]}", which is not configured`);
    const iv = Buffer.from(parts[2]!, 'base64url');
    const tag = Buffer.from(parts[3]!, 'base64url');
    if (iv.length !== 12 || tag.length !== 16) throw new Error('not a sealed token');
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(parts[4]!, 'base64url')), decipher.final()]).toString('utf8');
  }

  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.keys[0]!.id;
  }
}
