import type { SocialConnection, SocialPlatform } from '../domain/social.ts';

export interface SocialConnectionRepository {
  /** Creates or replaces the user's connection to this platform (a new authorization), version 1 again. */
  save(connection: Omit<SocialConnection, 'version'>): Promise<void>;
  find(userId: string, platform: SocialPlatform): Promise<SocialConnection | null>;
  listForUser(userId: string): Promise<SocialConnection[]>;
  /**
   * Replaces the tokens only if the row is still at `fromVersion` (a refresh): false, changing nothing,
   * when another process changed them first or the connection is gone.
   */
  replaceTokens(
    userId: string,
    platform: SocialPlatform,
    fromVersion: number,
    tokens: Pick<SocialConnection, 'accessToken' | 'refreshToken' | 'expiresAt' | 'updatedAt'>,
  ): Promise<boolean>;
  /** Every connection after `after` (by user id, then platform), at most `max`: a walk over all of them. */
  listAfter(after: { userId: string; platform: SocialPlatform } | null, max: number): Promise<SocialConnection[]>;
  /** Removes the connection and answers what it held (to revoke its tokens), or null when there was none. */
  delete(userId: string, platform: SocialPlatform): Promise<SocialConnection | null>;
}
