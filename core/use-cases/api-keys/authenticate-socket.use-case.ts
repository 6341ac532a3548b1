import { isApiKeyText } from '../../domain/api-key.ts';
import type { Authenticate } from '../auth/authenticate.use-case.ts';
import type { AuthenticateApiKey } from './authenticate-api-key.use-case.ts';

/** Who a WebSocket belongs to, the login it runs under (its revocation closes it) and when it must close. */
export interface SocketPrincipal {
  userId: string;
  sessionId: string;
  expiresAt: Date;
}

export interface AuthenticateSocketDeps {
  tokens: Pick<Authenticate, 'execute'>;
  /** Null where keys are not checked (a process without the api role has no socket either). */
  keys: Pick<AuthenticateApiKey, 'execute'> | null;
}

/**
 * The credentials a WebSocket upgrade (or an in-band `auth`) may carry: an access token, or an `mgs_…` API key
 * holding the `generate` scope, since the socket carries the owner's job events (ADR 035). A key socket runs
 * under the key's login: revoking the key closes it at once, and it closes when the key expires. A revoked,
 * expired, rate-limited or out-of-scope key opens nothing.
 */
export class AuthenticateSocket {
  constructor(private readonly deps: AuthenticateSocketDeps) {}

  async execute(token: string): Promise<SocketPrincipal | null> {
    if (!isApiKeyText(token)) return this.deps.tokens.execute(token);
    const outcome = await this.deps.keys?.execute(token);
    if (!outcome?.ok || !outcome.key.scopes.includes('generate')) return null;
    const { userId, sessionId, expiresAt } = outcome.principal;
    return { userId, sessionId, expiresAt };
  }
}
