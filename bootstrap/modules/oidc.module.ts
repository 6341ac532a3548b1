import type { Container } from 'inversify';
import { API_PREFIX } from '../../adapters/http/http-app.ts';
import { oidcRoutes } from '../../adapters/http/routes/oidc.routes.ts';
import { OpenIdClientProviders } from '../../adapters/openid/openid-client-providers.ts';
import type { OidcProviders } from '../../core/ports/oidc-providers.port.ts';
import { CompleteOidcLogin } from '../../core/use-cases/auth/complete-oidc-login.use-case.ts';
import { ListIdentities } from '../../core/use-cases/auth/list-identities.use-case.ts';
import { PendingLogins } from '../../core/use-cases/auth/oidc-pending-logins.service.ts';
import { StartOidcLogin } from '../../core/use-cases/auth/start-oidc-login.use-case.ts';
import { UnlinkIdentity } from '../../core/use-cases/auth/unlink-identity.use-case.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

/** Sign-in with OpenID Connect providers (ADR 025): routes only. */
export function oidcFeature(ports: FeaturePorts, config: Readonly<Config>, needs: { providers: OidcProviders }): Feature {
  const { providers } = needs;
  return {
    exports: {},
    routes: forApi(config, () => {
      const { users, sessions, identities } = ports.repos();
      const pending = new PendingLogins(ports.cache());
      return [
        oidcRoutes({
          start: new StartOidcLogin({ providers, pending }),
          complete: new CompleteOidcLogin({
            providers,
            pending,
            users,
            identities,
            sessions,
            uow: ports.uow(),
            tokens: ports.tokens(),
            ids: ports.ids(),
            clock: ports.clock(),
            refreshTokenTtlSeconds: config.auth.refreshTokenTtlSeconds,
            adminEmails: config.auth.adminEmails,
            signupBonusCoins: config.signupBonusCoins,
          }),
          list: new ListIdentities({ users, identities }),
          unlink: new UnlinkIdentity({ uow: ports.uow() }),
          cookies: { secure: config.auth.secureCookies },
          frontendUrl: config.frontendUrl,
          logger: ports.logger().child({ component: 'oidc' }),
        }),
      ];
    }),
    scheduled: [],
  };
}

/**
 * The routes exist with no provider configured too (every name is then unknown: 404), so the API document is
 * the same everywhere. Bound after the other auth routes: `/auth/:provider` must not shadow them.
 */
export function bindOidc(container: Container, config: Readonly<Config>): void {
  // The web client shows a sign-in button per configured provider.
  container.bind(TOKENS.FeatureContribution).toConstantValue({ oidcProviders: config.oidc.providers.map((provider) => provider.name) });
  container.bind(TOKENS.OidcProviders).toConstantValue(
    new OpenIdClientProviders({
      providers: config.oidc.providers,
      redirectUri: (name) => `${config.publicUrl}${API_PREFIX}/auth/${name}/callback`,
      timeoutMs: config.oidc.timeoutMs,
    }),
  );
  bindFeature(container, 'oidc', (ports) => oidcFeature(ports, config, { providers: resolve(container, TOKENS.OidcProviders) }));
}
