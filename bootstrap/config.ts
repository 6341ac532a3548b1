import { readAuth, readJwtSecret, type AuthConfig } from './config/auth.ts';
import { readCacheAndBus, type CacheConfig, type EventBusConfig } from './config/cache-and-bus.ts';
import { readDatabase, type DatabaseConfig } from './config/database.ts';
import { defaultWorkerConcurrency, readEngine, type EngineConfig } from './config/engine.ts';
import { readGeneration, type GenerationConfig, type OutputsConfig } from './config/generation.ts';
import { readLlm, type LlmConfig } from './config/llm.ts';
import { readMail, type MailConfig } from './config/mail.ts';
import { readNetwork, type NetworkConfig } from './config/network.ts';
import { readObservability, type ObservabilityConfig } from './config/observability.ts';
import { readOidc, type OidcConfig } from './config/oidc.ts';
import { readQueue, type QueueConfig } from './config/queue.ts';
import { Reader, type Env } from './config/reader.ts';
import { readServer, readUrls, type ServerConfig, type UrlsConfig } from './config/server.ts';
import { readSocial, type SocialConfig } from './config/social.ts';
import { readWebhooks, type WebhooksConfig } from './config/webhooks.ts';
import { deriveStorageSigningKey, readStorage, type StorageConfig } from './config/storage.ts';
import { readTelemetry, type TelemetryConfig } from './config/telemetry.ts';

export type { AppEnv, Role } from './config/server.ts';
export type { ComfyEngineConfig } from './config/engine.ts';
export type { OidcProviderConfig } from './config/oidc.ts';
export type { LlmConfig } from './config/llm.ts';
export type { MailConfig } from './config/mail.ts';
export type { SocialConfig } from './config/social.ts';

/**
 * The environment is parsed once, here, into a frozen typed object. Every problem is collected so an
 * operator sees all of them in one start-up attempt. Each section is read by its own reader in bootstrap/config/.
 */
export interface Config extends ServerConfig, UrlsConfig {
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  database: DatabaseConfig;
  queue: QueueConfig;
  storage: StorageConfig;
  cache: CacheConfig;
  eventBus: EventBusConfig;
  engine: EngineConfig;
  auth: AuthConfig;
  /** WebSocket gateway: ping period (WS_PING_INTERVAL, default 30 s); a socket that missed the previous ping is dropped. */
  realtime: { pingIntervalSeconds: number };
  signupBonusCoins: number;
  generation: GenerationConfig;
  outputs: OutputsConfig;
  enableTestEndpoints: boolean;
  oidc: OidcConfig;
  llm: LlmConfig;
  /** SEED_TEMPLATES: install the ready templates into a database that never held a template. */
  seedTemplates: boolean;
  social: SocialConfig;
  webhooks: WebhooksConfig;
  network: NetworkConfig;
  /** METRICS_TOKEN, METRICS_PORT, METRICS_HOST. */
  observability: ObservabilityConfig;
  telemetry: TelemetryConfig;
  /** SMTP_URL, MAIL_FROM and the reset requests they serve. */
  mail: MailConfig;
}

export type ConfigResult = { ok: true; config: Readonly<Config> } | { ok: false; problems: string[] };

/**
 * The sections are read in this order, and the few settings of their own in their place between them, so the
 * problems come in the same order as ever.
 */
export function loadConfig(env: Env = process.env, options: { persistLocalSecret?: boolean } = {}): ConfigResult {
  const read = new Reader(env);
  const server = readServer(read);
  const local = { appEnv: server.appEnv, dataDir: server.dataDir, persistLocalSecret: options.persistLocalSecret ?? true };
  const database = readDatabase(read, server);
  const queue = readQueue(read);
  const storage = readStorage(read, server);
  const { cache, eventBus } = readCacheAndBus(read, { queue });
  const engine = readEngine(read, server);
  const jwtSecret = readJwtSecret(read, local);
  deriveStorageSigningKey(storage, jwtSecret);
  const urls = readUrls(read, server);
  const logLevel = read.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const);
  const auth = readAuth(read, { appEnv: server.appEnv, jwtSecret });
  const realtime = { pingIntervalSeconds: read.duration('WS_PING_INTERVAL', 30) };
  const signupBonusCoins = read.int('SIGNUP_BONUS_COINS', 100, 0, 1_000_000);
  const { generation, outputs } = readGeneration(read, { workerConcurrency: defaultWorkerConcurrency(engine) });
  const enableTestEndpoints = read.bool('ENABLE_TEST_ENDPOINTS', server.appEnv !== 'production');
  const oidc = readOidc(read, server);
  const llm = readLlm(read);
  const seedTemplates = read.bool('SEED_TEMPLATES', server.appEnv === 'local');
  const social = readSocial(read, local);
  const webhooks = readWebhooks(read);
  const network = readNetwork(read);
  const observability = readObservability(read);
  const telemetry = readTelemetry(read, server.roles);
  const mail = readMail(read);

  if (read.problems.length > 0) return { ok: false, problems: read.problems };
  const { publicUrl, corsOrigins, frontendUrl } = urls;
  const config: Config = {
    ...server,
    publicUrl,
    logLevel,
    database,
    queue,
    storage,
    cache,
    eventBus,
    engine,
    auth,
    corsOrigins,
    realtime,
    frontendUrl,
    signupBonusCoins,
    generation,
    outputs,
    enableTestEndpoints,
    oidc,
    llm,
    seedTemplates,
    social,
    webhooks,
    network,
    observability,
    telemetry,
    mail,
  };
  return { ok: true, config: deepFreeze(config) };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
