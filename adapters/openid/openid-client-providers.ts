import * as client from 'openid-client';
import type { AuthorizationSecrets, CodeExchange, ExternalIdentity, OidcProviders } from '../../core/ports/oidc-providers.port.ts';

export interface OidcProviderSettings {
  /** The key in the routes: `/auth/{name}`. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

export interface OpenIdClientProvidersOptions {
  providers: readonly OidcProviderSettings[];
  /** The registered redirect URI of a provider (`<PUBLIC_URL>/api/v1/auth/<name>/callback`). */
  redirectUri(name: string): string;
  /** Milliseconds for each request to a provider. */
  timeoutMs: number;
}

/**
 * OpenID Connect through openid-client: discovery on first use (kept; retried after a failure), the
 * authorization code flow with PKCE S256, state and nonce, and the ID token checked by the library.
 * Plain-http issuers (a provider on the same machine, tests) are allowed only where configuration let them through.
 */
export class OpenIdClientProviders implements OidcProviders {
  private readonly settings = new Map<string, OidcProviderSettings>();
  private readonly configurations = new Map<string, Promise<client.Configuration>>();

  constructor(private readonly options: OpenIdClientProvidersOptions) {
    for (const provider of options.providers) this.settings.set(provider.name, provider);
  }

  has(provider: string): boolean {
    return this.settings.has(provider);
  }

  async begin(provider: string): Promise<AuthorizationSecrets & { url: string }> {
    const config = await this.configuration(provider);
    const secrets = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri(provider),
      response_type: 'code',
      scope: this.settingsOf(provider).scopes.join(' '),
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { ...secrets, url: url.href };
  }

  async complete(provider: string, callbackQuery: string, expected: AuthorizationSecrets): Promise<CodeExchange> {
    try {
      const config = await this.configuration(provider);
      // The registered redirect URI with the query the provider sent: openid-client derives redirect_uri from it.
      const current = new URL(this.options.redirectUri(provider));
      current.search = callbackQuery;
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) return { ok: false, cause: 'the token response carried no ID token' };
      let merged: Record<string, unknown> = { ...claims };
      // Providers that keep the ID token small (code flow) give email and name through userinfo.
      if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
        merged = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      }
      return { ok: true, identity: identityOf(claims.sub, merged) };
    } catch (error) {
      return { ok: false, cause: describe(error) };
    }
  }

  private settingsOf(provider: string): OidcProviderSettings {
    const settings = this.settings.get(provider);
    if (!settings) throw new Error(`no OpenID Connect provider "${provider}" is configured`);
    return settings;
  }

  private configuration(provider: string): Promise<client.Configuration> {
    let configuration = this.configurations.get(provider);
    if (!configuration) {
      const { issuer, clientId, clientSecret } = this.settingsOf(provider);
      const insecure = new URL(issuer).protocol === 'http:';
      configuration = client.discovery(new URL(issuer), clientId, undefined, client.ClientSecretBasic(clientSecret), {
        timeout: Math.ceil(this.options.timeoutMs / 1000),
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
      });
      configuration.catch(() => this.configurations.delete(provider));
      this.configurations.set(provider, configuration);
    }
    return configuration;
  }
}

function identityOf(subject: string, claims: Record<string, unknown>): ExternalIdentity {
  const name = [claims.name, claims.preferred_username, claims.given_name].find((value): value is string => typeof value === 'string' && value.trim().length > 0);
  return {
    subject,
    email: typeof claims.email === 'string' ? claims.email : null,
    // A boolean true, or the string "true" some providers send; anything else is unverified.
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: name?.trim() ?? null,
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? `; cause: ${error.cause.message}` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${cause}`;
}
