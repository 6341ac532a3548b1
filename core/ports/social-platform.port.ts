import type { PublicationPrivacy, SocialPlatform } from '../domain/social.ts';

/** Tokens as a platform issues them (in the clear: they go straight to the TokenCipher). */
export interface PlatformTokens {
  accessToken: string;
  /** Null when the platform sent none (a refresh that keeps the old one). */
  refreshToken: string | null;
  expiresInSeconds: number | null;
  accountId: string | null;
  scope: string | null;
}

/**
 * Why a platform call failed: `transient` (network, 5xx, rate limit: try again later), `unauthorized` (the
 * token or grant is no longer valid: the user must connect again), `rejected` (the platform refused this
 * request for good: a video it does not accept, say).
 */
export class PlatformError extends Error {
  constructor(
    readonly kind: 'transient' | 'unauthorized' | 'rejected',
    message: string,
    /** Seconds the platform asked us to wait (Retry-After), when it did. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

export interface AuthorizationStart {
  url: string;
  state: string;
  codeVerifier: string | null;
}

/** The file to post: its size and type, and a way to read it from any offset (an upload resumes mid-file). */
export interface PublishFile {
  sizeBytes: number;
  contentType: string;
  fileName: string;
  read(start: number): Promise<AsyncIterable<Uint8Array>>;
}

export interface PublishRequest {
  accessToken: string;
  file: PublishFile;
  title: string;
  description: string;
  privacy: PublicationPrivacy;
  /** What an earlier attempt saved with `saveRemoteRef`: the upload resumes from it, never starts a second post. */
  remoteRef: string | null;
  /** Persists what resumes this upload; called before the first byte goes out. Throws when the attempt lost. */
  saveRemoteRef(remoteRef: string): Promise<void>;
}

/**
 * One social platform: OAuth 2.0 authorization of a user, and posting a video on their account. Errors are
 * PlatformError; nothing here logs or returns a token.
 */
export interface SocialPlatformClient {
  readonly platform: SocialPlatform;
  /**
   * A new authorization: the platform's URL to send the user to, with a fresh unguessable `state` and, where
   * the platform supports PKCE (S256), the verifier to keep server-side until the callback.
   */
  begin(input: { redirectUri: string }): AuthorizationStart;
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string | null }): Promise<PlatformTokens>;
  refresh(refreshToken: string): Promise<PlatformTokens>;
  /** Revokes the grant at the platform; best effort for the caller (the connection is gone either way). */
  revoke(token: string): Promise<void>;
  /** Posts the file and answers its URL (null when the platform gives none, e.g. a private TikTok post). */
  publish(request: PublishRequest): Promise<{ url: string | null }>;
}

/** The configured platforms, by identifier. */
export interface SocialPlatforms {
  get(platform: SocialPlatform): SocialPlatformClient | null;
  configured(): SocialPlatform[];
}
