/** What an API key may do (ADR 035). A route names the one scope it needs; a route that names none refuses keys. */
export const API_KEY_SCOPES = ['generate', 'history', 'admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Every key starts with this; the next PREFIX_LENGTH characters are its non-secret lookup id. */
export const API_KEY_MARK = 'mgs_';
const PREFIX_LENGTH = 12;

export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  scopes: ApiKeyScope[];
  /** `mgs_` and the lookup id: safe to show, not enough to authenticate. */
  prefix: string;
  /** SHA-256 (hex) of the whole key; the key itself is never stored. */
  secretHash: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export const isApiKeyText = (token: string): boolean => token.startsWith(API_KEY_MARK);

/** The login a key's requests and sockets run under: not a session, but revoking the key ends it like one. */
export const apiKeySessionId = (keyId: string): string => `api-key:${keyId}`;

/** Builds a key from two random url-safe strings: the lookup id and the secret. */
export function composeApiKey(randomId: string, secret: string): { key: string; prefix: string } {
  const prefix = `${API_KEY_MARK}${randomId.replace(/[^A-Za-z0-9]/g, '').slice(0, PREFIX_LENGTH).padEnd(PREFIX_LENGTH, '0')}`;
  return { key: `${prefix}${secret}`, prefix };
}

/** The stored prefix of a presented key, or null when it cannot be one of ours. */
export function prefixOf(key: string): string | null {
  if (!isApiKeyText(key) || key.length < API_KEY_MARK.length + PREFIX_LENGTH + 32) return null;
  return key.slice(0, API_KEY_MARK.length + PREFIX_LENGTH);
}

/** Compares two hex digests in time independent of where they differ. */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The scopes a key holds today: `admin` only while its user is an administrator (a demotion takes it at once). */
export function effectiveScopes(key: Pick<ApiKey, 'scopes'>, role: string): ApiKeyScope[] {
  return key.scopes.filter((scope) => scope !== 'admin' || role === 'admin');
}
