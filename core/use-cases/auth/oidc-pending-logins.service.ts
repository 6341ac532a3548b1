import type { Cache } from '../../ports/cache.port.ts';
import type { AuthorizationSecrets } from '../../ports/oidc-providers.port.ts';
import { SingleUseStates } from '../single-use-states.service.ts';

/** A login between the redirect to the provider and its callback. `linkUserId`: a signed-in user adding this provider. */
export interface PendingLogin extends AuthorizationSecrets {
  provider: string;
  linkUserId: string | null;
}

/** How long a user may take at the provider. */
export const PENDING_LOGIN_SECONDS = 10 * 60;

/** Pending logins by state, each taken once (SingleUseStates); a record missing one of its secrets is refused. */
export class PendingLogins extends SingleUseStates<PendingLogin> {
  constructor(cache: Cache) {
    super(cache, {
      prefix: 'oidc',
      ttlSeconds: PENDING_LOGIN_SECONDS,
      isComplete: (pending) => [pending.state, pending.nonce, pending.codeVerifier, pending.provider].every((secret) => typeof secret === 'string' && secret.length > 0),
    });
  }
}
