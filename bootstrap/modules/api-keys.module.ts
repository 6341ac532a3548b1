import type { Container } from 'inversify';
import { apiKeysRoutes } from '../../adapters/http/routes/api-keys.routes.ts';
import { AuthenticateApiKey } from '../../core/use-cases/api-keys/authenticate-api-key.use-case.ts';
import { AuthenticateSocket } from '../../core/use-cases/api-keys/authenticate-socket.use-case.ts';
import type { Authenticate } from '../../core/use-cases/auth/authenticate.use-case.ts';
import { CreateApiKey } from '../../core/use-cases/api-keys/create-api-key.use-case.ts';
import { ListApiKeys, RevokeApiKey } from '../../core/use-cases/api-keys/manage-api-keys.use-case.ts';
import { SessionRevocations } from '../../core/use-cases/auth/session-revocations.service.ts';
import type { Config } from '../config.ts';
import { resolve, TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

/**
 * `authenticateKey` and `authenticateSocket` are null outside the api role: they open the cache (the keys' rate
 * counters), which a worker must not.
 */
export type ApiKeysFeature = Feature<{ authenticateKey: AuthenticateApiKey | null; authenticateSocket: AuthenticateSocket | null }>;

/**
 * API keys (ADR 035): the routes that manage them, the check every request made with one goes through, and the
 * WebSocket's check (an access token, or a key holding `generate`).
 */
export function apiKeysFeature(ports: FeaturePorts, config: Readonly<Config>, needs: { authenticate: () => Authenticate }): ApiKeysFeature {
  const { apiKeys, users, sessions } = ports.repos();
  const [checks = null] = forApi(config, () => {
    const keys = new AuthenticateApiKey({ apiKeys, users, tokens: ports.tokens(), clock: ports.clock(), cache: ports.cache(), requestsPerMinute: config.auth.apiKeyRateLimitPerMinute });
    return [{ keys, socket: new AuthenticateSocket({ tokens: needs.authenticate(), keys }) }];
  });
  const authenticateKey = checks?.keys ?? null;
  const authenticateSocket = checks?.socket ?? null;
  const routes = forApi(config, () => [
    apiKeysRoutes({
      create: new CreateApiKey({ uow: ports.uow(), ids: ports.ids(), clock: ports.clock(), tokens: ports.tokens() }),
      list: new ListApiKeys({ apiKeys }),
      revoke: new RevokeApiKey({
        uow: ports.uow(),
        ids: ports.ids(),
        clock: ports.clock(),
        revocations: new SessionRevocations({ sessions, bus: ports.bus(), clock: ports.clock(), logger: ports.logger() }),
      }),
    }),
  ]);
  return { exports: { authenticateKey, authenticateSocket }, routes, scheduled: [] };
}

export function bindApiKeys(container: Container, config: Readonly<Config>): void {
  const feature = bindFeature(container, 'api-keys', (ports) => apiKeysFeature(ports, config, { authenticate: () => resolve(container, TOKENS.Authenticate) }));
  container.bind(TOKENS.AuthenticateApiKey).toDynamicValue(() => {
    const { authenticateKey } = feature().exports;
    if (!authenticateKey) throw new Error('API keys are checked by the api role only');
    return authenticateKey;
  });
  container.bind(TOKENS.AuthenticateSocket).toDynamicValue(() => {
    const { authenticateSocket } = feature().exports;
    if (!authenticateSocket) throw new Error('WebSockets are authenticated by the api role only');
    return authenticateSocket;
  });
}
