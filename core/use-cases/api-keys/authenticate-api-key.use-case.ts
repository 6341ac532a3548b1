import { apiKeySessionId, effectiveScopes, prefixOf, sameDigest, type ApiKeyScope } from '../../domain/api-key.ts';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port.ts';
import type { Cache } from '../../ports/cache.port.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { TokenIssuer } from '../../ports/token-issuer.port.ts';
import type { UserRepository } from '../../ports/user-repository.port.ts';
import type { Authenticated } from '../auth/authenticate.use-case.ts';

export interface AuthenticateApiKeyDeps {
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  tokens: Pick<TokenIssuer, 'hashOpaqueToken'>;
  clock: Clock;
  /** The per-key request counters: shared by every API process when the cache is Redis. */
  cache: Cache;
  requestsPerMinute: number;
}

export type ApiKeyAuthentication =
  | { ok: true; principal: Authenticated; key: { id: string; scopes: ApiKeyScope[] } }
  | { ok: false; code: 'AUTH.UNAUTHENTICATED'; message: string }
  | { ok: false; code: 'RATE_LIMITED'; message: string; retryAfterSeconds: number };

const LAST_USED_EVERY_MS = 60_000;
/** A key that never expires still needs an end for the claims' type; no request outlives it. */
const NO_END = new Date(8_640_000_000_000_000);

const refused = (message: string): ApiKeyAuthentication => ({ ok: false, code: 'AUTH.UNAUTHENTICATED', message });

/**
 * Turns an `mgs_…` key into its user and the scopes it holds now (ADR 035). Read on every request, as access
 * tokens are: a revoked or expired key, a deleted user, or a demoted administrator's admin scope is refused at
 * once. Each key may make `requestsPerMinute` requests a minute; its last use is written at most once a minute.
 */
export class AuthenticateApiKey {
  constructor(private readonly deps: AuthenticateApiKeyDeps) {}

  async execute(presented: string): Promise<ApiKeyAuthentication> {
    const { apiKeys, users, tokens, clock, cache } = this.deps;
    const prefix = prefixOf(presented);
    if (!prefix) return refused('API key is invalid');
    const key = await apiKeys.findByPrefix(prefix);
    if (!key || !sameDigest(key.secretHash, tokens.hashOpaqueToken(presented))) return refused('API key is invalid');
    if (key.revokedAt !== null) return refused('API key has been revoked');
    const now = clock.now();
    if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return refused('API key has expired');
    const user = await users.findById(key.userId);
    if (!user) return refused('API key is invalid');
    const hits = await cache.increment(`api-key-rate:${key.id}`, 60);
    if (hits.count > this.deps.requestsPerMinute) {
      const retryAfterSeconds = Math.max(1, hits.ttlSeconds);
      return { ok: false, code: 'RATE_LIMITED', message: `API key rate limit of ${this.deps.requestsPerMinute} requests a minute reached`, retryAfterSeconds };
    }
    if (key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
      await apiKeys.touch(key.id, now, new Date(now.getTime() - LAST_USED_EVERY_MS + 1));
    }
    const principal: Authenticated = {
      userId: user.id,
      role: user.role,
      tokenId: key.id,
      // Not a login: routes that act on the session (logout, linking) refuse keys before they could use it.
      sessionId: apiKeySessionId(key.id),
      expiresAt: key.expiresAt ?? NO_END,
      user,
    };
    return { ok: true, principal, key: { id: key.id, scopes: effectiveScopes(key, user.role) } };
  }
}
