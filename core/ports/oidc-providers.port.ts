/** What a login keeps between the redirect to the provider and the callback. */
export interface AuthorizationSecrets {
  state: string;
  nonce: string;
  /** The PKCE verifier; the authorization URL carried its S256 challenge. */
  codeVerifier: string;
}

/** Who the provider says signed in, from a verified ID token (and the userinfo the token carried). */
export interface ExternalIdentity {
  subject: string;
  email: string | null;
  /** True only when the provider vouches for the email (`email_verified: true`). */
  emailVerified: boolean;
  name: string | null;
}

export type CodeExchange = { ok: true; identity: ExternalIdentity } | { ok: false; cause: string };

/** The configured OpenID Connect providers (discovery, authorization URL, code exchange). */
export interface OidcProviders {
  has(provider: string): boolean;
  /** Fresh state, nonce and PKCE verifier, and the provider's authorization URL carrying state, nonce and the S256 challenge. */
  begin(provider: string): Promise<AuthorizationSecrets & { url: string }>;
  /**
   * Redeems the code of the callback's query with the verifier, and checks the response's state and the ID
   * token (signature, issuer, audience, expiry, nonce). Every failure is a value with its cause, for the log.
   */
  complete(provider: string, callbackQuery: string, expected: AuthorizationSecrets): Promise<CodeExchange>;
}
