import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_RESOURCE_LIMITS as LIMITS, type ResourceLimits } from '../core/domain/resource-limits.ts';
import { parseTokenKeys } from '../adapters/crypto/aes-gcm-token-cipher.ts';

/**
 * The environment is parsed once, here, into a frozen typed object. Every problem is collected so an
 * operator sees all of them in one start-up attempt.
 */
export type AppEnv = 'production' | 'development' | 'local';
export type Role = 'api' | 'worker';

export interface Config {
  port: number;
  host: string;
  appEnv: AppEnv;
  roles: Role[];
  dataDir: string;
  publicUrl: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  database: { url: string; dialect: 'sqlite' | 'mysql'; storagePath?: string };
  queue:
    | { driver: 'db' }
    | { driver: 'rabbitmq'; amqpUrl: string; /** Names the exchanges and queues (AMQP_PREFIX). */ prefix: string }
    | {
        driver: 'sqs';
        queueUrl: string;
        region: string;
        endpoint?: string;
        /** SQS_DLQ_URL; without it, the queue's RedrivePolicy names the dead-letter queue. */
        deadLetterQueueUrl?: string;
        waitTimeSeconds: number;
        credentials?: { accessKeyId: string; secretAccessKey: string };
      };
  /** `signingKey`: HMAC key of local storage's signed URLs (STORAGE_SIGNING_KEY, else derived from JWT_SECRET). */
  storage:
    | { driver: 'local'; dir: string; signingKey: string }
    | {
        driver: 's3';
        bucket: string;
        endpoint?: string;
        /** S3_PUBLIC_ENDPOINT: the store's address for browsers, when it differs from S3_ENDPOINT. */
        publicEndpoint?: string;
        region: string;
        forcePathStyle: boolean;
        serverSideEncryption?: 'AES256' | 'aws:kms';
        kmsKeyId?: string;
        /** From AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY when both are set; otherwise the SDK's default chain (profile, role). */
        credentials?: { accessKeyId: string; secretAccessKey: string };
      };
  cache: { driver: 'memory' } | { driver: 'redis'; url: string };
  /** EVENT_BUS_DRIVER: how user events and cancel requests reach the other processes (memory: this process only). */
  eventBus: { driver: 'memory' } | { driver: 'redis'; url: string } | { driver: 'rabbitmq'; url: string; prefix: string };
  /** builtin: runs in worker threads; a run past `timeBudgetSeconds` (ENGINE_TIME_BUDGET) or `memoryMb` (ENGINE_MEMORY_MB) is stopped and failed. */
  engine: { driver: 'builtin'; workDir: string; timeBudgetSeconds: number; memoryMb: number } | ComfyEngineConfig;
  auth: {
    jwtSecret: string;
    issuer: string;
    audience: string;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    secureCookies: boolean;
    adminEmails: string[];
    loginMaxFailures: number;
    loginMaxFailuresPerAccount: number;
    loginMaxFailuresPerAddress: number;
    loginWindowSeconds: number;
    registerMaxPerAddress: number;
    registerWindowSeconds: number;
  };
  corsOrigins: string[];
  /** WebSocket gateway: ping period (WS_PING_INTERVAL, default 30 s); a socket that missed the previous ping is dropped. */
  realtime: { pingIntervalSeconds: number };
  frontendUrl: string;
  signupBonusCoins: number;
  generation: {
    /** Raw workflows that match no active template: who may run them (ALLOW_RAW_WORKFLOWS) and at what price (RAW_WORKFLOW_COST). */
    rawWorkflows: { roles: ('user' | 'admin')[]; cost: number };
    /** The reconciler fails (and refunds) a running job whose attempt's lease ended this long ago (STALLED_JOB_MINUTES). */
    stalledJobSeconds: number;
    /** Files staged by an attempt that can no longer commit them are deleted once this old (ORPHANED_OUTPUT_MINUTES). */
    orphanedOutputSeconds: number;
    outputNodeTypes: string[];
    allowedNodeTypes: string[] | null;
    unclaimedDeductionMinutes: number;
    maxAttempts: number;
    maxUploadBytes: number;
    /** Jobs one worker process runs at once. */
    workerConcurrency: number;
    /** How long a taken message stays invisible; a running job keeps extending it, a crashed one is retried after it. */
    visibilitySeconds: number;
    /** Caps on what one job may ask (MAX_IMAGE_PIXELS, MAX_BATCH_SIZE, MAX_FRAMES, MAX_VIDEO_SECONDS, MAX_OUTPUT_MB_PER_JOB, MAX_WORKFLOW_NODES). */
    limits: ResourceLimits;
    /** Queued plus running jobs one user may have (MAX_ACTIVE_JOBS_PER_USER); beyond it a submit is answered 429. */
    maxActiveJobsPerUser: number;
  };
  outputs: { viewUrlTtlSeconds: number; downloadUrlTtlSeconds: number; retentionDays: number };
  enableTestEndpoints: boolean;
  /** OpenID Connect sign-in providers (OIDC_PROVIDERS and OIDC_<NAME>_*), each by discovery from its issuer. */
  oidc: { providers: OidcProviderConfig[]; timeoutMs: number };
  /** The chat's language-model server (LLM_*); `provider: null` when not configured (the route answers 503). */
  llm: LlmConfig;
  /** SEED_TEMPLATES: install the ready templates into a database that never held a template. */
  seedTemplates: boolean;
  /** Social platforms outputs are published to (YOUTUBE_*, TIKTOK_*), and the key(s) their tokens are sealed with. */
  social: SocialConfig;
}

export interface SocialConfig {
  youtube: { clientId: string; clientSecret: string } | null;
  tiktok: { clientKey: string; clientSecret: string } | null;
  /** TOKEN_ENCRYPTION_KEY as given (checked here, parsed by the cipher): `[id:]key[,...]`, the first seals. Empty with no platform. */
  tokenEncryptionKey: string;
  /** Each platform call without progress (SOCIAL_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long one attempt waits for TikTok to finish processing a post (TIKTOK_POLL_TIMEOUT); a retry resumes. */
  tiktokPollTimeoutMs: number;
  tiktokPollIntervalMs: number;
}

/**
 * ENGINE_DRIVER=comfyui: the GPU servers (COMFYUI_URLS; userinfo = basic auth), a bearer token for the others
 * (COMFYUI_TOKEN), each call's deadline (COMFYUI_TIMEOUT_MS), jobs per server from one worker process
 * (COMFYUI_JOBS_PER_SERVER) and how long a job waits while no server is healthy (COMFYUI_WAIT_MS).
 */
export interface ComfyEngineConfig {
  driver: 'comfyui';
  urls: string[];
  token?: string;
  timeoutMs: number;
  jobsPerServer: number;
  unavailableWaitMs: number;
}

export interface OidcProviderConfig {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

export interface LlmConfig {
  provider: 'ollama' | 'openai' | null;
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
  /** Prompts one user may send per minute (429 with Retry-After beyond). */
  perMinute: number;
  /** Answered prompts one user may have per UTC day (429 until midnight beyond). */
  dailyPrompts: number;
}

export type ConfigResult = { ok: true; config: Readonly<Config> } | { ok: false; problems: string[] };

type Env = Record<string, string | undefined>;

const DURATION = /^(\d+)\s*(ms|s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  required(name: string, why: string): string {
    const value = this.raw(name);
    if (value === undefined) {
      this.problems.push(`${name} is required ${why}`);
      return '';
    }
    return value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes'].includes(value)) return true;
    if (['false', '0', 'no'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  list(name: string): string[] {
    return (this.raw(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }

  /** Seconds, from "900", "15m", "7d"... */
  duration(name: string, fallbackSeconds: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallbackSeconds;
    const match = DURATION.exec(value);
    if (!match) {
      this.problems.push(`${name} must be a duration such as 900, 15m, 12h or 7d (got "${value}")`);
      return fallbackSeconds;
    }
    const seconds = Number(match[1]) * UNIT_SECONDS[match[2] ?? 's']!;
    if (seconds < 1) {
      this.problems.push(`${name} must be at least one second`);
      return fallbackSeconds;
    }
    return Math.floor(seconds);
  }

  url(name: string, value: string, protocols: string[]): void {
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
    } catch {
      this.problems.push(`${name} is not a valid URL`);
    }
  }
}

export function loadConfig(env: Env = process.env, options: { persistLocalSecret?: boolean } = {}): ConfigResult {
  const read = new Reader(env);
  const appEnv = read.oneOf<AppEnv>('APP_ENV', 'local', ['production', 'development', 'local']);
  const dataDir = path.resolve(read.string('DATA_DIR', './data'));
  const port = read.int('PORT', 3000, 0, 65535);
  const host = read.string('HOST', '0.0.0.0');

  const roles = (read.raw('ROLES') ? read.list('ROLES') : ['api', 'worker']) as Role[];
  for (const role of roles) {
    if (role !== 'api' && role !== 'worker') read.problems.push(`ROLES may contain only api and worker (got "${role}")`);
  }
  if (roles.length === 0) read.problems.push('ROLES must name at least one of api, worker');

  const databaseUrl = read.string('DATABASE_URL', `sqlite:${path.join(dataDir, 'app.db')}`);
  let database: Config['database'];
  if (databaseUrl.startsWith('sqlite:')) {
    const target = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    // The service keeps jobs, coins and its queue in the database: an in-memory one would lose them all on restart.
    if (target === ':memory:' || target === '') read.problems.push('DATABASE_URL=sqlite: needs a file path (sqlite:/path/to/app.db); an in-memory database is not supported');
    database = { url: databaseUrl, dialect: 'sqlite', storagePath: path.resolve(target || '.') };
  } else if (databaseUrl.startsWith('mysql://') || databaseUrl.startsWith('mariadb://')) {
    // mysql2 serves both; a mariadb:// URL would make Sequelize look for the `mariadb` package.
    database = { url: databaseUrl.replace(/^mariadb:/, 'mysql:'), dialect: 'mysql' };
    read.url('DATABASE_URL', database.url, ['mysql:']);
  } else {
    read.problems.push('DATABASE_URL must start with sqlite: or mysql://');
    database = { url: databaseUrl, dialect: 'sqlite' };
  }

  const queueDriver = read.oneOf('QUEUE_DRIVER', 'db', ['db', 'rabbitmq', 'sqs'] as const);
  let queue: Config['queue'];
  if (queueDriver === 'rabbitmq') {
    queue = { driver: 'rabbitmq', amqpUrl: read.required('AMQP_URL', 'when QUEUE_DRIVER=rabbitmq'), prefix: read.string('AMQP_PREFIX', 'media-gen') };
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(queue.prefix)) read.problems.push('AMQP_PREFIX may hold only letters, digits, "_", "-" and "." (at most 100)');
    if (queue.amqpUrl) read.url('AMQP_URL', queue.amqpUrl, ['amqp:', 'amqps:']);
  } else if (queueDriver === 'sqs') {
    queue = {
      driver: 'sqs',
      queueUrl: read.required('SQS_QUEUE_URL', 'when QUEUE_DRIVER=sqs'),
      region: read.required('AWS_REGION', 'when QUEUE_DRIVER=sqs'),
      ...(read.raw('SQS_ENDPOINT') ? { endpoint: read.raw('SQS_ENDPOINT')! } : {}),
      ...(read.raw('SQS_DLQ_URL') ? { deadLetterQueueUrl: read.raw('SQS_DLQ_URL')! } : {}),
      waitTimeSeconds: read.int('SQS_WAIT_SECONDS', 10, 0, 20),
      ...awsCredentials(read),
    };
    for (const name of ['SQS_QUEUE_URL', 'SQS_ENDPOINT', 'SQS_DLQ_URL']) {
      const value = read.raw(name);
      if (value) read.url(name, value, ['http:', 'https:']);
    }
  } else {
    queue = { driver: 'db' };
  }

  const storageDriver = read.oneOf('STORAGE_DRIVER', 'local', ['local', 's3'] as const);
  const storage: Config['storage'] =
    storageDriver === 's3'
      ? {
          driver: 's3',
          bucket: read.required('S3_BUCKET', 'when STORAGE_DRIVER=s3'),
          region: read.string('AWS_REGION', 'us-east-1'),
          ...(read.raw('S3_ENDPOINT') ? { endpoint: read.raw('S3_ENDPOINT')! } : {}),
          ...(read.raw('S3_PUBLIC_ENDPOINT') ? { publicEndpoint: read.raw('S3_PUBLIC_ENDPOINT')! } : {}),
          // S3-compatible stores (MinIO, s3rver) want path-style URLs; AWS itself virtual-hosted ones.
          forcePathStyle: read.bool('S3_FORCE_PATH_STYLE', Boolean(read.raw('S3_ENDPOINT'))),
          ...s3Encryption(read),
          ...awsCredentials(read),
        }
      : { driver: 'local', dir: path.resolve(read.string('STORAGE_DIR', path.join(dataDir, 'storage'))), signingKey: read.raw('STORAGE_SIGNING_KEY') ?? '' };
  if (read.raw('STORAGE_SIGNING_KEY') !== undefined && read.raw('STORAGE_SIGNING_KEY')!.length < 32) {
    read.problems.push('STORAGE_SIGNING_KEY must be at least 32 characters');
  }

  const cacheDriver = read.oneOf('CACHE_DRIVER', 'memory', ['memory', 'redis'] as const);
  const cache: Config['cache'] =
    cacheDriver === 'redis' ? { driver: 'redis', url: read.required('REDIS_URL', 'when CACHE_DRIVER=redis') } : { driver: 'memory' };

  // Redis already there for the cache carries the events too; else RabbitMQ when it is the queue; unless told otherwise.
  const defaultBus = cacheDriver === 'redis' ? 'redis' : queue.driver === 'rabbitmq' ? 'rabbitmq' : 'memory';
  const eventBusDriver = read.oneOf('EVENT_BUS_DRIVER', defaultBus, ['memory', 'redis', 'rabbitmq'] as const);
  let eventBus: Config['eventBus'] = { driver: 'memory' };
  if (eventBusDriver === 'rabbitmq') {
    eventBus =
      queue.driver === 'rabbitmq'
        ? { driver: 'rabbitmq', url: queue.amqpUrl, prefix: queue.prefix }
        : { driver: 'rabbitmq', url: read.required('AMQP_URL', 'when EVENT_BUS_DRIVER=rabbitmq'), prefix: read.string('AMQP_PREFIX', 'media-gen') };
  }
  if (eventBusDriver === 'redis') {
    // CACHE_DRIVER=redis has reported a missing REDIS_URL already.
    const url = cacheDriver === 'redis' ? read.raw('REDIS_URL') ?? '' : read.required('REDIS_URL', 'when EVENT_BUS_DRIVER=redis');
    eventBus = { driver: 'redis', url };
  }

  const engineDriver = read.oneOf('ENGINE_DRIVER', 'builtin', ['builtin', 'comfyui'] as const);
  let engine: Config['engine'];
  if (engineDriver === 'comfyui') {
    // COMFYUI_URL (one or more) is the older name of COMFYUI_URLS.
    const plural = read.list('COMFYUI_URLS');
    const alias = read.list('COMFYUI_URL');
    if (plural.length > 0 && alias.length > 0 && plural.join(',') !== alias.join(',')) {
      read.problems.push('COMFYUI_URLS and COMFYUI_URL disagree: set only COMFYUI_URLS');
    }
    const urls = plural.length > 0 ? plural : alias;
    if (urls.length === 0) read.problems.push('COMFYUI_URLS is required when ENGINE_DRIVER=comfyui (one or more URLs, comma-separated)');
    for (const url of urls) read.url('COMFYUI_URLS', url, ['http:', 'https:']);
    const token = read.raw('COMFYUI_TOKEN');
    engine = {
      driver: 'comfyui',
      urls,
      ...(token ? { token } : {}),
      timeoutMs: read.int('COMFYUI_TIMEOUT_MS', 30_000, 100, 3_600_000),
      jobsPerServer: read.int('COMFYUI_JOBS_PER_SERVER', 1, 1, 64),
      unavailableWaitMs: read.int('COMFYUI_WAIT_MS', 60_000, 0, 3_600_000),
    };
  } else {
    engine = {
      driver: 'builtin',
      workDir: path.join(dataDir, 'engine'),
      timeBudgetSeconds: read.duration('ENGINE_TIME_BUDGET', 10 * 60),
      memoryMb: read.int('ENGINE_MEMORY_MB', 2048, 64, 65_536),
    };
  }

  let jwtSecret = read.raw('JWT_SECRET');
  if (jwtSecret === undefined) {
    if (appEnv === 'local') {
      jwtSecret = localSecret(dataDir, options.persistLocalSecret ?? true);
    } else {
      read.problems.push(`JWT_SECRET is required when APP_ENV=${appEnv}`);
      jwtSecret = '';
    }
  } else if (jwtSecret.length < 32) {
    read.problems.push('JWT_SECRET must be at least 32 characters');
  }
  // A key of its own (domain separation): a URL signature can never double as a JWT signature.
  if (storage.driver === 'local' && !storage.signingKey) {
    storage.signingKey = createHmac('sha256', jwtSecret).update('media-gen:storage-url-signing:v1').digest('base64url');
  }

  const publicUrl = read.string('PUBLIC_URL', `http://localhost:${port}`);
  read.url('PUBLIC_URL', publicUrl, ['http:', 'https:']);
  const frontendUrl = read.string('FRONTEND_URL', publicUrl);
  read.url('FRONTEND_URL', frontendUrl, ['http:', 'https:']);
  const corsOrigins = read.list('CORS_ORIGINS');
  for (const origin of corsOrigins) read.url('CORS_ORIGINS', origin, ['http:', 'https:']);

  const allowedNodeTypes = read.list('ALLOWED_NODE_TYPES');
  const config: Config = {
    port,
    host,
    appEnv,
    roles: [...new Set(roles)],
    dataDir,
    publicUrl: publicUrl.replace(/\/$/, ''),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
    database,
    queue,
    storage,
    cache,
    eventBus,
    engine,
    auth: {
      jwtSecret,
      issuer: read.string('JWT_ISSUER', 'media-gen-service'),
      audience: read.string('JWT_AUDIENCE', 'media-gen-service'),
      accessTokenTtlSeconds: read.duration('ACCESS_TOKEN_TTL', 15 * 60),
      refreshTokenTtlSeconds: read.duration('REFRESH_TOKEN_TTL', 7 * 86400),
      secureCookies: read.bool('SECURE_COOKIES', appEnv === 'production'),
      adminEmails: read.list('ADMIN_EMAILS').map((email) => email.toLowerCase()),
      loginMaxFailures: read.int('LOGIN_MAX_FAILURES', 10, 1, 1000),
      loginMaxFailuresPerAccount: read.int('LOGIN_MAX_FAILURES_PER_ACCOUNT', 100, 1, 100_000),
      loginMaxFailuresPerAddress: read.int('LOGIN_MAX_FAILURES_PER_ADDRESS', 20, 1, 100_000),
      loginWindowSeconds: read.duration('LOGIN_WINDOW', 15 * 60),
      registerMaxPerAddress: read.int('REGISTER_MAX_PER_ADDRESS', 5, 1, 100_000),
      registerWindowSeconds: read.duration('REGISTER_WINDOW', 60 * 60),
    },
    corsOrigins: corsOrigins.length > 0 ? corsOrigins : [new URL(frontendUrl).origin],
    realtime: { pingIntervalSeconds: read.duration('WS_PING_INTERVAL', 30) },
    frontendUrl: frontendUrl.replace(/\/$/, ''),
    signupBonusCoins: read.int('SIGNUP_BONUS_COINS', 100, 0, 1_000_000),
    generation: {
      rawWorkflows: { roles: rawWorkflowRoles(read), cost: read.int('RAW_WORKFLOW_COST', 5, 0, 1_000_000) },
      stalledJobSeconds: read.int('STALLED_JOB_MINUTES', 30, 1, 7 * 24 * 60) * 60,
      orphanedOutputSeconds: read.int('ORPHANED_OUTPUT_MINUTES', 60, 1, 7 * 24 * 60) * 60,
      outputNodeTypes: read.list('OUTPUT_NODE_TYPES'),
      allowedNodeTypes: allowedNodeTypes.length > 0 ? allowedNodeTypes : null,
      unclaimedDeductionMinutes: read.int('UNCLAIMED_DEDUCTION_MINUTES', 15, 1, 7 * 24 * 60),
      maxAttempts: read.int('MAX_ATTEMPTS', 3, 1, 100),
      workerConcurrency: read.int('WORKER_CONCURRENCY', 1, 1, 64),
      visibilitySeconds: read.int('QUEUE_VISIBILITY_SECONDS', 30, 2, 43_200),
      maxUploadBytes: read.int('MAX_UPLOAD_MB', 20, 1, 1024) * 1024 * 1024,
      limits: {
        maxImagePixels: read.int('MAX_IMAGE_PIXELS', LIMITS.maxImagePixels, 1, 2 ** 31),
        maxBatchSize: read.int('MAX_BATCH_SIZE', LIMITS.maxBatchSize, 1, 4096),
        maxFrames: read.int('MAX_FRAMES', LIMITS.maxFrames, 1, 100_000),
        maxVideoSeconds: read.int('MAX_VIDEO_SECONDS', LIMITS.maxVideoSeconds, 1, 86_400),
        maxOutputBytes: read.int('MAX_OUTPUT_MB_PER_JOB', LIMITS.maxOutputBytes / 1048576, 1, 1_048_576) * 1048576,
        maxWorkflowNodes: read.int('MAX_WORKFLOW_NODES', LIMITS.maxWorkflowNodes, 1, 100_000),
      },
      maxActiveJobsPerUser: read.int('MAX_ACTIVE_JOBS_PER_USER', 20, 1, 100_000),
    },
    outputs: {
      viewUrlTtlSeconds: read.duration('VIEW_URL_TTL', 15 * 60),
      downloadUrlTtlSeconds: read.duration('DOWNLOAD_URL_TTL', 5 * 60),
      retentionDays: read.int('OUTPUT_RETENTION_DAYS', 30, 1, 36500),
    },
    enableTestEndpoints: read.bool('ENABLE_TEST_ENDPOINTS', appEnv !== 'production'),
    oidc: { providers: oidcProviders(read, appEnv), timeoutMs: read.int('OIDC_TIMEOUT_MS', 10_000, 100, 120_000) },
    llm: llmConfig(read),
    seedTemplates: read.bool('SEED_TEMPLATES', appEnv === 'local'),
    social: socialConfig(read, appEnv, dataDir, options.persistLocalSecret ?? true),
  };

  if (read.problems.length > 0) return { ok: false, problems: read.problems };
  return { ok: true, config: deepFreeze(config) };
}

const GOOGLE_ISSUER = 'https://accounts.google.com';
/** Words of /auth/... that are routes of their own, so never a provider's name. */
const RESERVED_PROVIDER_NAMES = new Set(['register', 'login', 'refresh', 'profile', 'logout', 'identities']);

/**
 * OIDC_PROVIDERS=google,acme names the providers; each reads OIDC_<NAME>_ISSUER (google's is known),
 * OIDC_<NAME>_CLIENT_ID, OIDC_<NAME>_CLIENT_SECRET and OIDC_<NAME>_SCOPES (default "openid email profile").
 */
function oidcProviders(read: Reader, appEnv: AppEnv): OidcProviderConfig[] {
  return [...new Set(read.list('OIDC_PROVIDERS').map((name) => name.toLowerCase()))].map((name) => {
    const prefix = `OIDC_${name.toUpperCase().replace(/-/g, '_')}_`;
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name) || RESERVED_PROVIDER_NAMES.has(name)) {
      read.problems.push(`OIDC_PROVIDERS: "${name}" is not a usable provider name (letters, digits and dashes, starting with a letter; not ${[...RESERVED_PROVIDER_NAMES].join(', ')})`);
    }
    const issuer = read.raw(`${prefix}ISSUER`) ?? (name === 'google' ? GOOGLE_ISSUER : read.required(`${prefix}ISSUER`, `for the OIDC provider ${name}`));
    if (issuer) {
      read.url(`${prefix}ISSUER`, issuer, ['http:', 'https:']);
      if (appEnv === 'production' && issuer.startsWith('http:')) read.problems.push(`${prefix}ISSUER must use https: when APP_ENV=production`);
    }
    const scopes = (read.raw(`${prefix}SCOPES`) ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
    if (!scopes.includes('openid')) read.problems.push(`${prefix}SCOPES must include openid`);
    return {
      name,
      issuer,
      clientId: read.required(`${prefix}CLIENT_ID`, `for the OIDC provider ${name}`),
      clientSecret: read.required(`${prefix}CLIENT_SECRET`, `for the OIDC provider ${name}`),
      scopes,
    };
  });
}

/** LLM_PROVIDER (ollama or openai) with LLM_URL and LLM_MODEL; unset: the chat answers 503. */
function llmConfig(read: Reader): LlmConfig {
  const provider = read.raw('LLM_PROVIDER') === undefined ? null : read.oneOf('LLM_PROVIDER', 'ollama', ['ollama', 'openai'] as const);
  const url = (provider ? read.required('LLM_URL', 'when LLM_PROVIDER is set') : read.string('LLM_URL', '')).replace(/\/$/, '');
  if (url) read.url('LLM_URL', url, ['http:', 'https:']);
  return {
    provider,
    url,
    model: provider ? read.required('LLM_MODEL', 'when LLM_PROVIDER is set') : read.string('LLM_MODEL', ''),
    apiKey: read.raw('LLM_API_KEY') ?? null,
    timeoutMs: read.int('LLM_TIMEOUT_MS', 60_000, 100, 600_000),
    perMinute: read.int('LLM_RATE_LIMIT_PER_MINUTE', 10, 1, 10_000),
    dailyPrompts: read.int('LLM_DAILY_PROMPTS', 200, 1, 1_000_000),
  };
}

/** ALLOW_RAW_WORKFLOWS: `admin` (default), `user,admin` (or `all`), or `none`. */
function rawWorkflowRoles(read: Reader): ('user' | 'admin')[] {
  const listed = read.list('ALLOW_RAW_WORKFLOWS').map((role) => role.toLowerCase());
  if (listed.length === 0) return ['admin'];
  if (listed.length === 1 && listed[0] === 'none') return [];
  if (listed.length === 1 && listed[0] === 'all') return ['user', 'admin'];
  const bad = listed.filter((role) => role !== 'user' && role !== 'admin');
  if (bad.length > 0) {
    read.problems.push(`ALLOW_RAW_WORKFLOWS must be none, all, or a list of user and admin (got "${bad.join(',')}")`);
    return ['admin'];
  }
  return [...new Set(listed)] as ('user' | 'admin')[];
}

/**
 * YOUTUBE_CLIENT_ID/YOUTUBE_CLIENT_SECRET (a Google OAuth client with the YouTube Data API enabled) and
 * TIKTOK_CLIENT_KEY/TIKTOK_CLIENT_SECRET; each platform is on when both of its values are set. With any platform,
 * TOKEN_ENCRYPTION_KEY is required (APP_ENV=local generates one and keeps it under DATA_DIR).
 */
function socialConfig(read: Reader, appEnv: AppEnv, dataDir: string, persist: boolean): SocialConfig {
  const pair = (idName: string, id: string | undefined, secretName: string, secret: string | undefined): [string, string] | null => {
    if (!id && !secret) return null;
    if (!id || !secret) {
      read.problems.push(`${id ? secretName : idName} is required when ${id ? idName : secretName} is set`);
      return null;
    }
    return [id, secret];
  };
  const youtube = pair('YOUTUBE_CLIENT_ID', read.raw('YOUTUBE_CLIENT_ID'), 'YOUTUBE_CLIENT_SECRET', read.raw('YOUTUBE_CLIENT_SECRET'));
  const tiktok = pair('TIKTOK_CLIENT_KEY', read.raw('TIKTOK_CLIENT_KEY'), 'TIKTOK_CLIENT_SECRET', read.raw('TIKTOK_CLIENT_SECRET'));
  let tokenEncryptionKey = read.raw('TOKEN_ENCRYPTION_KEY') ?? '';
  if (tokenEncryptionKey) {
    const parsed = parseTokenKeys(tokenEncryptionKey);
    if ('problem' in parsed) read.problems.push(`TOKEN_ENCRYPTION_KEY: ${parsed.problem}`);
  } else if (youtube || tiktok) {
    if (appEnv === 'local') tokenEncryptionKey = localSecret(dataDir, persist, 'token-encryption-key', () => randomBytes(32).toString('hex'));
    else read.problems.push(`TOKEN_ENCRYPTION_KEY is required when a social platform is configured and APP_ENV=${appEnv} (32 bytes as 64 hex characters or base64; "id:key,oldid:oldkey" to rotate)`);
  }
  return {
    youtube: youtube ? { clientId: youtube[0], clientSecret: youtube[1] } : null,
    tiktok: tiktok ? { clientKey: tiktok[0], clientSecret: tiktok[1] } : null,
    tokenEncryptionKey,
    timeoutMs: read.int('SOCIAL_TIMEOUT_MS', 30_000, 100, 600_000),
    tiktokPollTimeoutMs: read.duration('TIKTOK_POLL_TIMEOUT', 10 * 60) * 1000,
    tiktokPollIntervalMs: read.int('TIKTOK_POLL_INTERVAL_MS', 5_000, 10, 600_000),
  };
}

/** APP_ENV=local keeps a generated secret under DATA_DIR (the JWT signing secret, the token key) so it survives restarts. */
function localSecret(dataDir: string, persist: boolean, fileName = 'jwt-secret', make = () => randomBytes(48).toString('base64url')): string {
  if (!persist) return make();
  const file = path.join(dataDir, fileName);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = make();
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** S3_SSE: server-side encryption of every object written (AES256, or aws:kms with an optional S3_SSE_KMS_KEY_ID). */
function s3Encryption(read: Reader): { serverSideEncryption?: 'AES256' | 'aws:kms'; kmsKeyId?: string } {
  const sse = read.raw('S3_SSE');
  const kmsKeyId = read.raw('S3_SSE_KMS_KEY_ID');
  if (!sse) {
    if (kmsKeyId) read.problems.push('S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms');
    return {};
  }
  if (sse !== 'AES256' && sse !== 'aws:kms') {
    read.problems.push(`S3_SSE must be AES256 or aws:kms (got "${sse}")`);
    return {};
  }
  if (kmsKeyId && sse !== 'aws:kms') read.problems.push('S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms');
  return { serverSideEncryption: sse, ...(kmsKeyId && sse === 'aws:kms' ? { kmsKeyId } : {}) };
}

/** Static AWS credentials when both halves are in the environment (S3 and SQS); otherwise the SDK finds its own. */
function awsCredentials(read: Reader): { credentials?: { accessKeyId: string; secretAccessKey: string } } {
  const accessKeyId = read.raw('AWS_ACCESS_KEY_ID');
  const secretAccessKey = read.raw('AWS_SECRET_ACCESS_KEY');
  if (!accessKeyId && !secretAccessKey) return {};
  if (!accessKeyId || !secretAccessKey) {
    read.problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together (or leave both unset to use a profile or role)');
    return {};
  }
  return { credentials: { accessKeyId, secretAccessKey } };
}
