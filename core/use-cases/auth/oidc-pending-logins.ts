import type { Cache } from '../../ports/cache.port.ts';
import type { AuthorizationSecrets } from '../../ports/oidc-providers.port.ts';

/** A login between the redirect to the provider and its callback. `linkUserId`: a signed-in user adding this provider. */
export interface PendingLogin extends AuthorizationSecrets {
  provider: string;
  linkUserId: string | null;
}

/** How long a user may take at the provider. */
export const PENDING_LOGIN_SECONDS = 10 * 60;

const pendingKey = (state: string) => `oidc:pending:${state}`;
const usedKey = (state: string) => `oidc:used:${state}`;

/** Pending logins kept server-side on the cache port (shared by every API process when it is Redis), keyed by state. */
export class PendingLogins {
  constructor(private readonly cache: Cache) {}

  async save(pending: PendingLogin): Promise<void> {
    await this.cache.set(pendingKey(pending.state), JSON.stringify(pending), PENDING_LOGIN_SECONDS);
  }

  /**
   * The pending login of `state`, once: the first caller claims it with an atomic counter, so a replayed
   * callback (or two racing ones) finds nothing. Null for an unknown, expired or used state, and for a
   * record missing one of its secrets.
   */
  async take(state: string): Promise<PendingLogin | null> {
    const claim = await this.cache.increment(usedKey(state), PENDING_LOGIN_SECONDS);
    if (claim.count > 1) return null;
    const stored = await this.cache.get(pendingKey(state));
    // Left to expire rather than deleted: the claim above is what makes it single-use, atomically.
    if (stored === null) return null;
    const pending = JSON.parse(stored) as Partial<PendingLogin>;
    const secrets = [pending.state, pending.nonce, pending.codeVerifier, pending.provider];
    if (secrets.some((secret) => typeof secret !== 'string' || secret.length === 0) || pending.state !== state) return null;
    return pending as PendingLogin;
  }
}
