import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { Container } from 'inversify';
import type { Express } from 'express';
import { createHttpApp, type RouteModule } from '../adapters/http/http-app.ts';
import { featuresRoutes, mergeFeatures, type FeatureContribution } from '../adapters/http/routes/features.routes.ts';
import { healthRoutes } from '../adapters/http/routes/health.routes.ts';
import { defaultWebRoot } from '../adapters/http/web-app.ts';
import { JsonLogger } from '../adapters/logging/json-logger.ts';
import type { PromMetrics, RequestSample } from '../adapters/metrics/prom-metrics.ts';
import type { Authenticate } from '../core/use-cases/auth/authenticate.use-case.ts';
import type { AuthenticateApiKey } from '../core/use-cases/api-keys/authenticate-api-key.use-case.ts';
import type { Logger } from '../core/ports/logger.port.ts';
import type { Config } from './config.ts';
import { bindFeatures } from './modules/features.ts';
import { healthChecksOf } from './modules/health.module.ts';
import { bindInfrastructure } from './modules/infrastructure.module.ts';
import { portsOf } from './modules/ports.ts';
import { TOKENS, type HttpServerRef, type LifecycleBinding } from './tokens.ts';
import { startTracingOf, tracingOf } from './tracing.ts';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface Application {
  config: Readonly<Config>;
  container: Container;
  logger: Logger;
  /** The Express app (present when the api role runs). */
  http: Express | null;
  server: Server | null;
  /** Resolves when listening (api role) and every background part has started. */
  start(): Promise<{ port: number | null }>;
  stop(): Promise<void>;
}

/** Builds the whole application for the roles in the config. Nothing runs until start(). */
export function buildApplication(config: Readonly<Config>, options: { logger?: Logger } = {}): Application {
  const logger = options.logger ?? new JsonLogger(config.logLevel, { service: 'media-gen', roles: config.roles.join(',') });
  const container = new Container({ defaultScope: 'Singleton' });
  bindInfrastructure(container, config, logger);
  bindFeatures(container, config);
  const ports = portsOf(container);
  const serverRef: HttpServerRef = { server: null };
  container.bind<HttpServerRef>(TOKENS.HttpServer).toConstantValue(serverRef);

  let http: Express | null = null;
  let drainHandlers: (timeoutMs: number) => Promise<void> = async () => undefined;
  let server: Server | null = null;
  if (config.roles.includes('api')) {
    const { all: checks, readiness } = healthChecksOf(container);
    const authenticate = container.get<Authenticate>(TOKENS.Authenticate);
    const authenticateKey = container.get<AuthenticateApiKey>(TOKENS.AuthenticateApiKey);
    const features = () =>
      mergeFeatures(container.isBound(TOKENS.FeatureContribution) ? container.getAll<FeatureContribution>(TOKENS.FeatureContribution) : []);
    const modules = [healthRoutes({ version: VERSION, checks, readiness, timeoutMs: config.network.healthCheckTimeoutMs }), featuresRoutes(features), ...container.getAll<RouteModule>(TOKENS.RouteModule)];
    const metrics = container.get<PromMetrics | null>(TOKENS.Metrics);
    const metricsToken = config.observability.metrics.token;
    const built = createHttpApp({
      version: VERSION,
      corsOrigins: config.corsOrigins,
      cookies: { secure: config.auth.secureCookies },
      logger,
      modules,
      webRoot: defaultWebRoot(),
      // Signed view URLs are links of PUBLIC_URL with local storage; with S3 they are presigned URLs of the store
      // (its public endpoint, else its endpoint, else the bucket's AWS host): the client's CSP must allow them.
      mediaOrigins: mediaOriginsOf(config),
      frontendUrl: config.frontendUrl,
      trustProxy: config.network.trustProxy,
      auth: { authenticate: (token) => authenticate.execute(token), authenticateKey: (key) => authenticateKey.execute(key) },
      ...(metrics ? { observeRequest: (sample: RequestSample) => metrics.observeRequest(sample) } : {}),
      ...(metrics && metricsToken ? { metrics: { token: metricsToken, contentType: metrics.contentType, render: () => metrics.render() } } : {}),
    });
    http = built.app;
    drainHandlers = built.drain;
    server = createServer(tracingOf(config).requestListener(http));
    server.keepAliveTimeout = 65_000;
    serverRef.server = server;
  }
  const lifecycles = () =>
    container.getAll<LifecycleBinding>(TOKENS.Lifecycle).filter((part) => part.roles.some((role) => config.roles.includes(role)));
  let started: LifecycleBinding[] = [];
  let tracing: Awaited<ReturnType<typeof startTracingOf>> = null;
  let stopping: Promise<void> | null = null;

  return {
    config,
    container,
    logger,
    http,
    server,
    async start() {
      stopping = null;
      tracing ??= await startTracingOf(config);
      const applied = await migrateWithRetry(() => ports.db().migrate(), logger);
      if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
      for (const part of lifecycles()) {
        await part.start();
        started.push(part);
      }
      let port: number | null = null;
      if (server) {
        await new Promise<void>((resolve, reject) => {
          server!.once('error', reject);
          server!.listen(config.port, config.host, () => resolve());
        });
        const address = server.address();
        port = typeof address === 'object' && address ? address.port : config.port;
        logger.info('listening', { port, url: config.publicUrl });
      }
      return { port };
    },
    stop() {
      // A second stop (a test's teardown after the test stopped it, a signal during a failed start) waits for the first.
      stopping ??= (async () => {
        for (const part of [...started].reverse()) {
          await part.beforeServerClose?.().catch((error: unknown) => logger.error('stop failed', { part: part.name, error }));
        }
        if (server?.listening) {
          server.closeIdleConnections();
          // A connection Node still counts as busy (a request its client gave up on before any answer) would hold
          // close() until Node's 60 s header limit, past the 20 s after which a signalled process exits with 1.
          const cut = setTimeout(() => server!.closeAllConnections(), CLOSE_GRACE_MS);
          await new Promise<void>((resolve) => server!.close(() => resolve()));
          clearTimeout(cut);
        }
        // server.close() resolves once connections are gone, but a handler whose client hung up keeps
        // running: let it finish before its database goes away.
        await drainHandlers(15_000);
        for (const part of started.reverse()) {
          await part.stop().catch((error: unknown) => logger.error('stop failed', { part: part.name, error }));
        }
        started = [];
        await ports.cache().close();
        await ports.db().close();
        // Last: the spans of the shutdown's own work are sent too.
        await tracing?.shutdown().catch((error: unknown) => logger.error('trace export at shutdown failed', { error }));
        tracing = null;
      })();
      return stopping;
    },
  };
}

/** How long the stop waits for open connections to end by themselves before it cuts them. */
const CLOSE_GRACE_MS = 10_000;

/** Two processes starting together race on the same migration; the loser waits and finds it done. */
async function migrateWithRetry(migrate: () => Promise<string[]>, logger: Logger, attempts = 5): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrate();
    } catch (error) {
      if (attempt >= attempts) throw error;
      logger.warn('migration failed; retrying (another process may be migrating)', { attempt, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt + Math.random() * 500));
    }
  }
}

/** Origins the web client loads images and videos from: the service itself, and the object store that signs URLs. */
function mediaOriginsOf(config: Readonly<Config>): string[] {
  const origins = [new URL(config.publicUrl).origin];
  const { storage } = config;
  if (storage.driver === 's3') {
    const endpoint = storage.publicEndpoint ?? storage.endpoint;
    if (endpoint) origins.push(new URL(endpoint).origin);
    else origins.push(`https://${storage.bucket}.s3.${storage.region}.amazonaws.com`, `https://s3.${storage.region}.amazonaws.com`);
  }
  return origins;
}
