import type { SocialPlatform } from '../../domain/social.ts';
import type { Cache } from '../../ports/cache.port.ts';
import { SingleUseStates } from '../single-use-states.service.ts';

/** A connection between the redirect to the platform and its callback, bound to the user who started it. */
export interface PendingConnection {
  state: string;
  userId: string;
  platform: SocialPlatform;
  codeVerifier: string | null;
}

/** How long a user may take at the platform's consent page. */
export const PENDING_CONNECTION_SECONDS = 10 * 60;

/** Pending connections by state, each taken once (SingleUseStates). */
export class PendingConnections extends SingleUseStates<PendingConnection> {
  constructor(cache: Cache) {
    super(cache, {
      prefix: 'social',
      ttlSeconds: PENDING_CONNECTION_SECONDS,
      isComplete: (pending) => typeof pending.userId === 'string' && typeof pending.platform === 'string',
    });
  }
}
