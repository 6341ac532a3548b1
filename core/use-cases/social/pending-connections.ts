import type { SocialPlatform } from '../../domain/social.ts';
import type { Cache } from '../../ports/cache.port.ts';

/** A connection between the redirect to the platform and its callback, bound to the user who started it. */
export interface PendingConnection {
  state: string;
  userId: string;
  platform: SocialPlatform;
  codeVerifier: string | null;
}

/** How long a user may take at the platform's consent page. */
export const PENDING_CONNECTION_SECONDS = 10 * 60;

const pendingKey = (state: string) => `social:pending:${state}`;
const usedKey = (state: string) => `social:used:${state}`;

/** Pending connections on the cache port (shared by every API process with Redis), keyed by state. */
export class PendingConnections {
  constructor(private readonly cache: Cache) {}

  async save(pending: PendingConnection): Promise<void> {
    await this.cache.set(pendingKey(pending.state), JSON.stringify(pending), PENDING_CONNECTION_SECONDS);
  }

  /** The pending connection of `state`, once: an atomic counter claims it, so a replayed callback finds nothing. */
  async take(state: string): Promise<PendingConnection | null> {
    const claim = await this.cache.increment(usedKey(state), PENDING_CONNECTION_SECONDS);
    if (claim.count > 1) return null;
    const stored = await this.cache.get(pendingKey(state));
    if (stored === null) return null;
    const pending = JSON.parse(stored) as Partial<PendingConnection>;
    if (pending.state !== state || typeof pending.userId !== 'string' || typeof pending.platform !== 'string') return null;
    return pending as PendingConnection;
  }
}
