import type { Reader } from './reader.ts';
import type { AppEnv } from './server.ts';

export interface OidcProviderConfig {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

/** OpenID Connect sign-in providers (OIDC_PROVIDERS and OIDC_<NAME>_*), each by discovery from its issuer. */
export interface OidcConfig {
  providers: OidcProviderConfig[];
  timeoutMs: number;
}

const GOOGLE_ISSUER = 'https://accounts.google.com';
/** Words of /auth/... that are routes of their own, so never a provider's name. */
const RESERVED_PROVIDER_NAMES = new Set(['register', 'login', 'refresh', 'profile', 'logout', 'identities']);

export function readOidc(read: Reader, ctx: { appEnv: AppEnv }): OidcConfig {
  return { providers: oidcProviders(read, ctx.appEnv), timeoutMs: read.int('OIDC_TIMEOUT_MS', 10_000, 100, 120_000) };
}

/**
 * OIDC_PROVIDERS=google,acme names the providers; each reads OIDC_<NAME>_ISSUER (google's is known),
 * OIDC_<NAME>_CLIENT_ID, OIDC_<NAME>_CLIENT_SECRET and OIDC_<NAME>_SCOPES (default "openid email profile").
 */
function oidcProviders(read: Reader, appEnv: AppEnv): OidcProviderConfig[] {
  return [...new Set(read.list('OIDC_PROVIDERS').map((name) => name.toLowerCase()))].map((name) => {
    const prefix = `OIDC_${name.toUpperCase().replace(/-/g, '_')}_`;
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name) || RESERVED_PROVIDER_NAMES.has(name)) {
      read.problems.push(`OIDC_PROVIDERS: "${name}" is not a usable provider name (letters, digits and dashes, starting with a letter; not ${[...RESERVED_PROVIDER_NAMES].join(', ')})`);
    }
    const issuer = read.raw(`${prefix}ISSUER`) ?? (name === 'google' ? GOOGLE_ISSUER : read.required(`${prefix}ISSUER`, `for the OIDC provider ${name}`));
    if (issuer) {
      read.url(`${prefix}ISSUER`, issuer, ['http:', 'https:']);
      if (appEnv === 'production' && issuer.startsWith('http:')) read.problems.push(`${prefix}ISSUER must use https: when APP_ENV=production`);
    }
    const scopes = (read.raw(`${prefix}SCOPES`) ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
    if (!scopes.includes('openid')) read.problems.push(`${prefix}SCOPES must include openid`);
    return {
      name,
      issuer,
      clientId: read.required(`${prefix}CLIENT_ID`, `for the OIDC provider ${name}`),
      clientSecret: read.required(`${prefix}CLIENT_SECRET`, `for the OIDC provider ${name}`),
      scopes,
    };
  });
}
