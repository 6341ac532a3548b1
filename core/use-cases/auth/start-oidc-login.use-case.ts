import { fail, ok, type Result } from '../../domain/result.ts';
import type { OidcProviders } from '../../ports/oidc-providers.port.ts';
import type { PendingLogins } from './oidc-pending-logins.service.ts';

export interface StartOidcLoginDeps {
  providers: OidcProviders;
  pending: PendingLogins;
}

/**
 * Starts a login (or, with `linkUserId`, the linking of a provider to a signed-in user): fresh state,
 * nonce and PKCE verifier kept server-side; the caller binds `state` to the browser (a cookie).
 */
export class StartOidcLogin {
  constructor(private readonly deps: StartOidcLoginDeps) {}

  async execute(input: { provider: string; linkUserId?: string }): Promise<Result<{ url: string; state: string }, 'AUTH.UNKNOWN_PROVIDER' | 'UPSTREAM.FAILED'>> {
    const { providers, pending } = this.deps;
    if (!providers.has(input.provider)) return fail('AUTH.UNKNOWN_PROVIDER', `No sign-in provider named "${input.provider}" is configured`);
    let started;
    try {
      started = await providers.begin(input.provider);
    } catch (error) {
      return fail('UPSTREAM.FAILED', `The provider "${input.provider}" could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { url, ...secrets } = started;
    await pending.save({ ...secrets, provider: input.provider, linkUserId: input.linkUserId ?? null });
    return ok({ url, state: secrets.state });
  }
}
