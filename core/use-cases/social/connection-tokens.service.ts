import { platformName, type SocialConnection, type SocialPlatform } from '../../domain/social.ts';
import type { Clock } from '../../ports/clock.port.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { SocialConnectionRepository } from '../../ports/social-connection-repository.port.ts';
import { PlatformError, type PlatformTokens, type SocialPlatforms } from '../../ports/social-platform.port.ts';
import type { TokenCipher } from '../../ports/token-cipher.port.ts';

export interface ConnectionTokensDeps {
  connections: SocialConnectionRepository;
  cipher: TokenCipher;
  platforms: SocialPlatforms;
  clock: Clock;
  logger: Logger;
}

/** An access token is refreshed when it has less than this left (an upload must not start on a dying token). */
export const REFRESH_MARGIN_SECONDS = 5 * 60;

const context = (userId: string, platform: SocialPlatform, field: 'access' | 'refresh') => `${userId}:${platform}:${field}`;

/**
 * The only place tokens are in the clear: sealed before they reach a repository, opened just before a
 * platform call, refreshed before they expire. A refresh is a conditional write on the connection's
 * version: of two processes refreshing at once, one stores its tokens and the other uses them.
 */
export class ConnectionTokens {
  constructor(private readonly deps: ConnectionTokensDeps) {}

  /** A new connection's row, tokens sealed. */
  sealNew(userId: string, platform: SocialPlatform, tokens: PlatformTokens): Omit<SocialConnection, 'version'> {
    const now = this.deps.clock.now();
    return {
      userId,
      platform,
      ...this.sealed(userId, platform, tokens, null),
      accountId: tokens.accountId,
      scope: tokens.scope,
      createdAt: now,
      updatedAt: now,
    };
  }

  /** The refresh token if there is one, else the access token (what revocation takes). */
  revocable(connection: SocialConnection): string | null {
    try {
      return connection.refreshToken
        ? this.deps.cipher.open(connection.refreshToken, context(connection.userId, connection.platform, 'refresh'))
        : this.deps.cipher.open(connection.accessToken, context(connection.userId, connection.platform, 'access'));
    } catch {
      return null;
    }
  }

  /**
   * A working access token for the user's connection, refreshed first when it expires within the margin
   * (or at once with `forceRefresh`, after the platform refused the current one). PlatformError
   * `unauthorized` when there is no connection or it can no longer be refreshed.
   */
  async accessToken(userId: string, platform: SocialPlatform, options: { forceRefresh?: boolean } = {}): Promise<string> {
    const { connections, cipher, clock } = this.deps;
    for (let round = 0; round < 3; round += 1) {
      const connection = await connections.find(userId, platform);
      if (!connection) throw new PlatformError('unauthorized', `${platformName(platform)} is not connected`);
      const access = this.open(connection, 'access');
      const fresh = connection.expiresAt === null || connection.expiresAt.getTime() - clock.now().getTime() > REFRESH_MARGIN_SECONDS * 1000;
      if (fresh && !options.forceRefresh) {
        if (cipher.isStale(connection.accessToken) || (connection.refreshToken !== null && cipher.isStale(connection.refreshToken))) {
          await this.reseal(connection, access);
        }
        return access;
      }
      if (!connection.refreshToken) throw new PlatformError('unauthorized', `the ${platformName(platform)} authorization expired; connect ${platformName(platform)} again`);
      const client = this.deps.platforms.get(platform);
      if (!client) throw new PlatformError('unauthorized', `${platformName(platform)} is not configured`);
      const used = { access, refresh: this.open(connection, 'refresh') };
      const refreshed = await client.refresh(used.refresh);
      if (await this.storeRefreshed(connection, used, refreshed)) return refreshed.accessToken;
      // Another process refreshed first: use what it stored.
      options = {};
    }
    throw new PlatformError('transient', `the ${platformName(platform)} tokens kept changing while being refreshed`);
  }

  /**
   * Key rotation: seals every connection still sealed with an older key again with the current one (those
   * in use are resealed when used anyway; this reaches the idle ones). Answers how many were resealed.
   */
  async resealStale(batch = 200): Promise<number> {
    const { connections, cipher } = this.deps;
    let after: { userId: string; platform: SocialPlatform } | null = null;
    let resealed = 0;
    for (;;) {
      const page = await connections.listAfter(after, batch);
      for (const connection of page) {
        if (!cipher.isStale(connection.accessToken) && (connection.refreshToken === null || !cipher.isStale(connection.refreshToken))) continue;
        try {
          await this.reseal(connection, this.open(connection, 'access'));
          resealed += 1;
        } catch (error) {
          // Sealed with a key no longer configured: its user must connect again; nothing to do here.
          this.deps.logger.warn('connection tokens cannot be opened with the configured keys', { userId: connection.userId, platform: connection.platform, error: String(error) });
        }
      }
      if (page.length < batch) return resealed;
      const last = page[page.length - 1]!;
      after = { userId: last.userId, platform: last.platform };
    }
  }

  /**
   * Stores tokens refreshed from `from` (whose tokens, opened, are `used`), on its version. A key rotation that sealed the same tokens again
   * meanwhile moved the version without changing them: the refresh is still the news and is stored on the new
   * version (dropping it would lose a refresh token the platform may already have retired for the one we used).
   * False when the connection is gone or another process stored other tokens.
   */
  private async storeRefreshed(from: SocialConnection, used: { access: string; refresh: string }, refreshed: PlatformTokens): Promise<boolean> {
    const { connections, clock } = this.deps;
    const { userId, platform } = from;
    const sealed = this.sealed(userId, platform, refreshed, used.refresh);
    let version = from.version;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (await connections.replaceTokens(userId, platform, version, { ...sealed, updatedAt: clock.now() })) return true;
      const current = await connections.find(userId, platform);
      if (!current || !this.holds(current, used)) return false;
      version = current.version;
    }
    return false;
  }

  /** Whether the connection holds exactly these tokens, whichever key sealed them. */
  private holds(connection: SocialConnection, tokens: { access: string; refresh: string }): boolean {
    try {
      // `open` throws for a missing token: not the same tokens.
      return this.open(connection, 'access') === tokens.access && this.open(connection, 'refresh') === tokens.refresh;
    } catch {
      return false;
    }
  }

  private open(connection: SocialConnection, field: 'access' | 'refresh'): string {
    const sealed = field === 'access' ? connection.accessToken : connection.refreshToken;
    if (sealed === null) throw new PlatformError('unauthorized', `the ${platformName(connection.platform)} connection holds no ${field} token`);
    try {
      return this.deps.cipher.open(sealed, context(connection.userId, connection.platform, field));
    } catch {
      // A key removed from TOKEN_ENCRYPTION_KEY (or a row altered): the user must connect again.
      throw new PlatformError('unauthorized', `the ${platformName(connection.platform)} tokens cannot be decrypted with the configured keys; connect ${platformName(connection.platform)} again`);
    }
  }

  private sealed(userId: string, platform: SocialPlatform, tokens: PlatformTokens, previousRefresh: string | null) {
    const { cipher, clock } = this.deps;
    const refresh = tokens.refreshToken ?? previousRefresh;
    return {
      accessToken: cipher.seal(tokens.accessToken, context(userId, platform, 'access')),
      refreshToken: refresh === null ? null : cipher.seal(refresh, context(userId, platform, 'refresh')),
      expiresAt: tokens.expiresInSeconds === null ? null : new Date(clock.now().getTime() + tokens.expiresInSeconds * 1000),
    };
  }

  /** Seals the tokens again with the current key (key rotation), if nobody changed them meanwhile. */
  private async reseal(connection: SocialConnection, access: string): Promise<void> {
    const { cipher, clock } = this.deps;
    const refresh = connection.refreshToken === null ? null : this.open(connection, 'refresh');
    await this.deps.connections
      .replaceTokens(connection.userId, connection.platform, connection.version, {
        accessToken: cipher.seal(access, context(connection.userId, connection.platform, 'access')),
        refreshToken: refresh === null ? null : cipher.seal(refresh, context(connection.userId, connection.platform, 'refresh')),
        expiresAt: connection.expiresAt,
        updatedAt: clock.now(),
      })
      .catch((error: unknown) => this.deps.logger.warn('tokens not sealed again with the current key; the next use retries', { platform: connection.platform, error: String(error) }));
  }
}
