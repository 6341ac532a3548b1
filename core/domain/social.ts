/**
 * Social platforms outputs can be published to (API.md §7, §8). Identifiers are uppercase; routes take
 * them in any case.
 */
export const SOCIAL_PLATFORMS = ['YOUTUBE', 'TIKTOK'] as const;
export type SocialPlatform = (typeof SOCIAL_PLATFORMS)[number];

/** How people write each platform's name, for messages and pages; the identifier stays in fields and paths. */
export const PLATFORM_NAMES: Readonly<Record<SocialPlatform, string>> = { YOUTUBE: 'YouTube', TIKTOK: 'TikTok' };
export const platformName = (platform: SocialPlatform): string => PLATFORM_NAMES[platform];

export const parsePlatform = (value: unknown): SocialPlatform | null => {
  if (typeof value !== 'string') return null;
  const upper = value.toUpperCase();
  return (SOCIAL_PLATFORMS as readonly string[]).includes(upper) ? (upper as SocialPlatform) : null;
};

/**
 * A user's authorization at a platform. The tokens are sealed (encrypted with a key id beside them, see
 * TokenCipher) by the use cases before they reach a repository; nothing below the use cases sees them in
 * the clear. `version` grows by one per token change, so two processes refreshing at once cannot both win.
 */
export interface SocialConnection {
  userId: string;
  platform: SocialPlatform;
  accessToken: string;
  refreshToken: string | null;
  /** When the access token stops working; null when the platform did not say. */
  expiresAt: Date | null;
  /** The platform's id of the account (YouTube channel, TikTok open_id), for display and support. */
  accountId: string | null;
  scope: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * One output's publication on one platform. `attemptId` names the current request to publish it: a new
 * request after a failure starts a new attempt, and a worker acts only for the attempt its message carries.
 * `remoteRef` is what the platform needs to resume an upload that a worker began (the YouTube upload
 * session, the TikTok publish id), written before any byte is sent.
 */
export type PublicationStatus = 'pending' | 'uploading' | 'published' | 'failed';

export interface Publication {
  outputId: string;
  userId: string;
  platform: SocialPlatform;
  status: PublicationStatus;
  attemptId: string;
  title: string;
  description: string;
  privacy: PublicationPrivacy;
  url: string | null;
  error: string | null;
  remoteRef: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who may see the post: private (the safe default), unlisted (YouTube only) or public. */
export type PublicationPrivacy = 'private' | 'unlisted' | 'public';
export const PUBLICATION_PRIVACIES: readonly PublicationPrivacy[] = ['private', 'unlisted', 'public'];

/** Longest title and description accepted (YouTube's limits; TikTok's caption holds more). */
export const MAX_TITLE_CHARS = 100;
export const MAX_DESCRIPTION_CHARS = 5000;
