import { fail, ok, type Result } from '../../domain/result.ts';
import { parsePlatform, type SocialPlatform } from '../../domain/social.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { SocialConnectionRepository } from '../../ports/social-connection-repository.port.ts';
import type { SocialPlatforms } from '../../ports/social-platform.port.ts';
import type { ConnectionTokens } from './connection-tokens.service.ts';

export interface ManageConnectionsDeps {
  platforms: SocialPlatforms;
  connections: SocialConnectionRepository;
  tokens: ConnectionTokens;
  logger: Logger;
}

/** The user's connections, and disconnecting one (its grant revoked at the platform where it can be). */
export class ManageConnections {
  constructor(private readonly deps: ManageConnectionsDeps) {}

  async list(userId: string): Promise<SocialPlatform[]> {
    return (await this.deps.connections.listForUser(userId)).map((connection) => connection.platform).sort();
  }

  /** Idempotent: 204 whether or not the platform was connected. The tokens are gone before the platform is asked to revoke them. */
  async disconnect(input: { userId: string; platform: string }): Promise<Result<void, 'NOT_FOUND'>> {
    const platform = parsePlatform(input.platform);
    if (!platform) return fail('NOT_FOUND', `No social platform named "${input.platform}" (supported: YOUTUBE, TIKTOK)`);
    const removed = await this.deps.connections.delete(input.userId, platform);
    const client = this.deps.platforms.get(platform);
    const token = removed ? this.deps.tokens.revocable(removed) : null;
    if (client && token) {
      await client.revoke(token).catch((error: unknown) =>
        this.deps.logger.warn('platform grant not revoked (the tokens are deleted here)', { platform, userId: input.userId, error: error instanceof Error ? error.message : String(error) }),
      );
    }
    return ok(undefined);
  }
}
