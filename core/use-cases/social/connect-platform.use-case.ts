import { fail, ok, type Result } from '../../domain/result.ts';
import { parsePlatform, platformName, type SocialPlatform } from '../../domain/social.ts';
import type { Logger } from '../../ports/logger.port.ts';
import type { SocialConnectionRepository } from '../../ports/social-connection-repository.port.ts';
import { PlatformError, type SocialPlatformClient, type SocialPlatforms } from '../../ports/social-platform.port.ts';
import type { ConnectionTokens } from './connection-tokens.service.ts';
import type { PendingConnections } from './pending-connections.service.ts';

/** The platform named in a route, configured here: 404 for a name we do not support, 503 for one not configured. */
export function platformClient(platforms: SocialPlatforms, name: string): Result<SocialPlatformClient, 'NOT_FOUND' | 'INTEGRATION.NOT_CONFIGURED'> {
  const platform = parsePlatform(name);
  if (!platform) return fail('NOT_FOUND', `No social platform named "${name}" (supported: YOUTUBE, TIKTOK)`);
  const client = platforms.get(platform);
  return client ? ok(client) : fail('INTEGRATION.NOT_CONFIGURED', `${platformName(platform)} is not configured on this server`);
}

export interface StartConnectionDeps {
  platforms: SocialPlatforms;
  pending: PendingConnections;
  redirectUri(platform: SocialPlatform): string;
}

/** Starts connecting a platform to the signed-in user: a single-use state bound to that user (and PKCE where the platform has it). */
export class StartConnection {
  constructor(private readonly deps: StartConnectionDeps) {}

  async execute(input: { userId: string; platform: string }): Promise<Result<{ url: string; state: string }, 'NOT_FOUND' | 'INTEGRATION.NOT_CONFIGURED'>> {
    const found = platformClient(this.deps.platforms, input.platform);
    if (!found.ok) return found;
    const client = found.value;
    const started = client.begin({ redirectUri: this.deps.redirectUri(client.platform) });
    await this.deps.pending.save({ state: started.state, userId: input.userId, platform: client.platform, codeVerifier: started.codeVerifier });
    return ok({ url: started.url, state: started.state });
  }
}

export interface CompleteConnectionDeps {
  platforms: SocialPlatforms;
  pending: PendingConnections;
  connections: SocialConnectionRepository;
  tokens: ConnectionTokens;
  redirectUri(platform: SocialPlatform): string;
  logger: Logger;
}

/** Why a callback did not connect anything; the code goes to the failure page, the cause to the log. */
export type ConnectionFailure = 'invalid_state' | 'denied' | 'exchange_failed';

/**
 * The platform's redirect back: the state must be one we issued, unused, for this platform, and the one
 * this browser holds (its cookie); then the code is exchanged (with the PKCE verifier) and the tokens are
 * stored sealed for the user who started.
 */
export class CompleteConnection {
  constructor(private readonly deps: CompleteConnectionDeps) {}

  async execute(input: {
    platform: string;
    query: Record<string, unknown>;
    browserState: string | null;
  }): Promise<{ platform: string; userId?: string; failure?: ConnectionFailure; cause?: string }> {
    const platform = parsePlatform(input.platform) ?? input.platform.toUpperCase();
    const state = typeof input.query.state === 'string' ? input.query.state : null;
    if (!state || state !== input.browserState) return { platform, failure: 'invalid_state', cause: state ? 'state differs from the browser cookie' : 'no state' };
    const pending = await this.deps.pending.take(state);
    if (!pending || pending.platform !== platform) return { platform, failure: 'invalid_state', cause: pending ? 'state issued for another platform' : 'unknown, expired or used state' };
    if (typeof input.query.error === 'string' || typeof input.query.code !== 'string' || input.query.code.length === 0) {
      return { platform, userId: pending.userId, failure: 'denied', cause: typeof input.query.error === 'string' ? `platform said ${input.query.error.slice(0, 100)}` : 'no code' };
    }
    const client = this.deps.platforms.get(pending.platform);
    if (!client) return { platform, userId: pending.userId, failure: 'exchange_failed', cause: 'platform no longer configured' };
    try {
      const tokens = await client.exchangeCode({ code: input.query.code, redirectUri: this.deps.redirectUri(pending.platform), codeVerifier: pending.codeVerifier });
      await this.deps.connections.save(this.deps.tokens.sealNew(pending.userId, pending.platform, tokens));
      return { platform, userId: pending.userId };
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      return { platform, userId: pending.userId, failure: 'exchange_failed', cause: error.message };
    }
  }
}
