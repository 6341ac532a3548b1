import type { Container } from 'inversify';
import { AesGcmTokenCipher, parseTokenKeys } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { API_PREFIX } from '../../adapters/http/http-app.ts';
import { socialRoutes } from '../../adapters/http/routes/social.routes.ts';
import { TikTokPlatform } from '../../adapters/social/tiktok-platform.ts';
import { YouTubePlatform } from '../../adapters/social/youtube-platform.ts';
import type { SocialPlatform } from '../../core/domain/social.ts';
import type { SocialPlatformClient, SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import type { TokenCipher } from '../../core/ports/token-cipher.port.ts';
import { CompleteConnection, StartConnection } from '../../core/use-cases/social/connect-platform.use-case.ts';
import { ManageConnections } from '../../core/use-cases/social/manage-connections.service.ts';
import { ConnectionTokens } from '../../core/use-cases/social/connection-tokens.service.ts';
import { ListPublications } from '../../core/use-cases/social/list-publications.use-case.ts';
import { PendingConnections } from '../../core/use-cases/social/pending-connections.service.ts';
import { RequestPublication } from '../../core/use-cases/social/request-publication.use-case.ts';
import { PublicationEnds } from '../../core/use-cases/social/publication-ends.service.ts';
import { FailDeadLetteredPublication, RunPublication } from '../../core/use-cases/social/run-publication.use-case.ts';
import type { UserEventLog } from '../../core/use-cases/events/user-event-log.service.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { bindFeature, forApi, forWorker, type Feature, type FeaturePorts } from './feature.ts';

/** The platforms with credentials in the configuration (YOUTUBE_*, TIKTOK_*). */
export function socialPlatformsOf(config: Readonly<Config>): SocialPlatforms {
  const { social } = config;
  const clients = new Map<SocialPlatform, SocialPlatformClient>();
  if (social.youtube) clients.set('YOUTUBE', new YouTubePlatform({ ...social.youtube, timeoutMs: social.timeoutMs }));
  if (social.tiktok) {
    clients.set('TIKTOK', new TikTokPlatform({ ...social.tiktok, timeoutMs: social.timeoutMs, pollIntervalMs: social.tiktokPollIntervalMs, pollTimeoutMs: social.tiktokPollTimeoutMs }));
  }
  return { get: (platform) => clients.get(platform) ?? null, configured: () => [...clients.keys()] };
}

/** A cipher that refuses to work: no platform is configured, so there are no tokens to seal. */
const NO_CIPHER: TokenCipher = {
  seal: () => {
    throw new Error('TOKEN_ENCRYPTION_KEY is not set');
  },
  open: () => {
    throw new Error('TOKEN_ENCRYPTION_KEY is not set');
  },
  isStale: () => false,
};

function cipherOf(config: Readonly<Config>): TokenCipher {
  if (!config.social.tokenEncryptionKey) return NO_CIPHER;
  const parsed = parseTokenKeys(config.social.tokenEncryptionKey);
  // The configuration checked it at start-up already.
  if ('problem' in parsed) throw new Error(`TOKEN_ENCRYPTION_KEY: ${parsed.problem}`);
  return new AesGcmTokenCipher(parsed.keys);
}

/**
 * Social connections and publishing (API.md §7, §8; ADR 022). The routes exist with no platform configured
 * too (connect answers 503, publish 400), so the API document is the same everywhere; the worker always
 * handles `publish` messages (a platform configured on the API only fails them with a clear reason).
 */
export function socialFeature(
  ports: FeaturePorts,
  config: Readonly<Config>,
  needs: { platforms: SocialPlatforms; events: () => UserEventLog },
): Feature {
  const { platforms } = needs;
  const repos = ports.repos();
  const redirectUri = (platform: SocialPlatform) => `${config.publicUrl}${API_PREFIX}/connect/${platform.toLowerCase()}/callback`;
  const socialLogger = ports.logger().child({ component: 'social' });
  const tokens = new ConnectionTokens({ connections: repos.connections, cipher: cipherOf(config), platforms, clock: ports.clock(), logger: socialLogger });
  return {
    exports: {},
    routes: forApi(config, () => {
      const pending = new PendingConnections(ports.cache());
      return [
        socialRoutes({
          start: new StartConnection({ platforms, pending, redirectUri }),
          complete: new CompleteConnection({ platforms, pending, connections: repos.connections, tokens, redirectUri, logger: socialLogger }),
          manage: new ManageConnections({ platforms, connections: repos.connections, tokens, logger: socialLogger }),
          publish: new RequestPublication({
            uow: ports.uow(),
            history: repos.history,
            connections: repos.connections,
            platforms,
            ids: ports.ids(),
            clock: ports.clock(),
            environment: config.appEnv,
          }),
          publications: new ListPublications({ history: repos.history, publications: repos.publications }),
          cookies: { secure: config.auth.secureCookies },
          pagesUrl: config.publicUrl,
          logger: socialLogger,
        }),
      ];
    }),
    // Tokens still sealed with an older TOKEN_ENCRYPTION_KEY are sealed again with the current one.
    scheduled:
      platforms.configured().length > 0 ? [{ name: 'token-reseal', roles: ['worker'], everyMs: 60 * 60_000, run: async () => void (await tokens.resealStale()) }] : [],
    handlers: forWorker(config, () => {
      const logger = ports.logger().child({ component: 'publish' });
      const ends = new PublicationEnds({ uow: ports.uow(), events: needs.events(), clock: ports.clock(), logger });
      const run = new RunPublication({
        publications: repos.publications,
        history: repos.history,
        storage: ports.storage(),
        platforms,
        tokens,
        ends,
        clock: ports.clock(),
        logger,
        maxAttempts: config.generation.maxAttempts,
        visibilitySeconds: config.generation.visibilitySeconds,
      });
      const deadLetters = new FailDeadLetteredPublication({ history: repos.history, ends, logger });
      return [{ taskType: 'publish', handle: (message) => run.execute(message), onDeadLetter: (message, reason) => deadLetters.execute(message, reason) }];
    }),
  };
}

export function bindSocial(container: Container, config: Readonly<Config>): void {
  const platforms = socialPlatformsOf(config);
  container.bind(TOKENS.FeatureContribution).toConstantValue({ socialPlatforms: platforms.configured() });
  bindFeature(container, 'social', (ports) => socialFeature(ports, config, { platforms, events: () => resolve(container, TOKENS.UserEventLog) }));
}
