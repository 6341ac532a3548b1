import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { loadConfig } from '../../bootstrap/config.ts';
import { load, problemsOf } from '../support/config-env.ts';

/**
 * Guard audit of the configuration sections (generation, queue, database, cache and bus, auth, telemetry): the
 * documented defaults (.env.example, API.md §11) pinned literally, the bounds of each number, and the refusals of
 * bad values, each named in a problem an operator reads at start-up.
 */

const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// generation and outputs

test('generation: the documented defaults (.env.example, API.md)', (t) => {
  const { generation, outputs } = load({});
  t.deepEqual(generation.rawWorkflows, { roles: ['admin'], cost: 5 });
  t.is(generation.stalledJobSeconds, 30 * 60);
  t.is(generation.orphanedOutputSeconds, 60 * 60);
  t.deepEqual(generation.outputNodeTypes, []);
  t.is(generation.allowedNodeTypes, null, 'no ALLOWED_NODE_TYPES: every node type is allowed (null), not none ([])');
  t.is(generation.unclaimedDeductionMinutes, 15);
  t.is(generation.maxAttempts, 3);
  t.is(generation.workerConcurrency, 1);
  t.is(generation.visibilitySeconds, 30);
  t.is(generation.maxUploadBytes, 20 * MiB);
  t.deepEqual(generation.limits, {
    maxImagePixels: 67108864,
    maxBatchSize: 64,
    maxFrames: 600,
    maxVideoSeconds: 120,
    maxOutputBytes: 512 * MiB,
    maxWorkflowNodes: 200,
  });
  t.is(generation.maxActiveJobsPerUser, 20);
  t.is(generation.maxQueueDepth, 0);
  t.deepEqual(outputs, { viewUrlTtlSeconds: 15 * 60, downloadUrlTtlSeconds: 5 * 60, retentionDays: 30 });
});

test('generation: minutes and megabytes are converted to seconds and bytes', (t) => {
  const { generation, outputs } = load({
    STALLED_JOB_MINUTES: '2',
    ORPHANED_OUTPUT_MINUTES: '3',
    MAX_UPLOAD_MB: '7',
    MAX_OUTPUT_MB_PER_JOB: '9',
    VIEW_URL_TTL: '1h',
    DOWNLOAD_URL_TTL: '90',
    OUTPUT_RETENTION_DAYS: '1',
    ALLOWED_NODE_TYPES: 'KSampler, SaveImage',
    OUTPUT_NODE_TYPES: 'SaveImage',
  });
  t.is(generation.stalledJobSeconds, 120);
  t.is(generation.orphanedOutputSeconds, 180);
  t.is(generation.maxUploadBytes, 7 * MiB);
  t.is(generation.limits.maxOutputBytes, 9 * MiB);
  t.deepEqual(generation.allowedNodeTypes, ['KSampler', 'SaveImage']);
  t.deepEqual(generation.outputNodeTypes, ['SaveImage']);
  t.deepEqual(outputs, { viewUrlTtlSeconds: 3600, downloadUrlTtlSeconds: 90, retentionDays: 1 });
});

/** [variable, lowest accepted, highest accepted] — each bound pinned: the value past it is a named problem. */
const GENERATION_BOUNDS: [string, number, number][] = [
  ['RAW_WORKFLOW_COST', 0, 1_000_000],
  ['STALLED_JOB_MINUTES', 1, 10080],
  ['ORPHANED_OUTPUT_MINUTES', 1, 10080],
  ['UNCLAIMED_DEDUCTION_MINUTES', 1, 10080],
  ['MAX_ATTEMPTS', 1, 100],
  ['WORKER_CONCURRENCY', 1, 64],
  ['QUEUE_VISIBILITY_SECONDS', 2, 43_200],
  ['MAX_UPLOAD_MB', 1, 1024],
  ['MAX_IMAGE_PIXELS', 1, 2 ** 31],
  ['MAX_BATCH_SIZE', 1, 4096],
  ['MAX_FRAMES', 1, 100_000],
  ['MAX_VIDEO_SECONDS', 1, 86_400],
  ['MAX_OUTPUT_MB_PER_JOB', 1, 1_048_576],
  ['MAX_WORKFLOW_NODES', 1, 100_000],
  ['MAX_ACTIVE_JOBS_PER_USER', 1, 100_000],
  ['QUEUE_MAX_DEPTH', 0, 10_000_000],
  ['OUTPUT_RETENTION_DAYS', 1, 36500],
  ['SIGNUP_BONUS_COINS', 0, 1_000_000],
  ['LOGIN_MAX_FAILURES', 1, 1000],
  ['LOGIN_MAX_FAILURES_PER_ACCOUNT', 1, 100_000],
  ['LOGIN_MAX_FAILURES_PER_ADDRESS', 1, 100_000],
  ['REGISTER_MAX_PER_ADDRESS', 1, 100_000],
  ['API_KEY_RATE_LIMIT_PER_MINUTE', 1, 1_000_000],
];

for (const [name, min, max] of GENERATION_BOUNDS) {
  test(`bounds: ${name} accepts ${min} to ${max} and refuses ${min - 1} and ${max + 1}`, (t) => {
    t.notThrows(() => load({ [name]: String(min) }), `${name}=${min}`);
    t.notThrows(() => load({ [name]: String(max) }), `${name}=${max}`);
    t.deepEqual(problemsOf({ [name]: String(min - 1) }), [`${name} must be an integer from ${min} to ${max} (got "${min - 1}")`]);
    t.deepEqual(problemsOf({ [name]: String(max + 1) }), [`${name} must be an integer from ${min} to ${max} (got "${max + 1}")`]);
  });
}

test('bounds: the values read are the values given', (t) => {
  const config = load({
    RAW_WORKFLOW_COST: '0',
    MAX_ATTEMPTS: '7',
    WORKER_CONCURRENCY: '64',
    QUEUE_VISIBILITY_SECONDS: '2',
    MAX_ACTIVE_JOBS_PER_USER: '1',
    QUEUE_MAX_DEPTH: '500',
    UNCLAIMED_DEDUCTION_MINUTES: '4',
    SIGNUP_BONUS_COINS: '0',
    API_KEY_RATE_LIMIT_PER_MINUTE: '3',
  });
  t.like(config.generation, { rawWorkflows: { roles: ['admin'], cost: 0 }, maxAttempts: 7, workerConcurrency: 64, visibilitySeconds: 2, maxActiveJobsPerUser: 1, maxQueueDepth: 500, unclaimedDeductionMinutes: 4 });
  t.is(config.signupBonusCoins, 0);
  t.is(config.auth.apiKeyRateLimitPerMinute, 3);
});

test('ALLOW_RAW_WORKFLOWS: admin by default; none, all, or a list of user and admin (any case, repeats once)', (t) => {
  const roles = (value: string) => load({ ALLOW_RAW_WORKFLOWS: value }).generation.rawWorkflows.roles;
  t.deepEqual(roles(''), ['admin']);
  t.deepEqual(roles('none'), []);
  t.deepEqual(roles('NONE'), []);
  t.deepEqual(roles('all'), ['user', 'admin']);
  t.deepEqual(roles('user'), ['user']);
  t.deepEqual(roles('admin'), ['admin']);
  t.deepEqual(roles('User, ADMIN'), ['user', 'admin']);
  t.deepEqual(roles('admin,admin'), ['admin']);
});

test('ALLOW_RAW_WORKFLOWS: anything else is a problem naming the bad roles', (t) => {
  t.deepEqual(problemsOf({ ALLOW_RAW_WORKFLOWS: 'user,guest,everyone' }), ['ALLOW_RAW_WORKFLOWS must be none, all, or a list of user and admin (got "guest,everyone")']);
  t.deepEqual(problemsOf({ ALLOW_RAW_WORKFLOWS: 'none,user' }), ['ALLOW_RAW_WORKFLOWS must be none, all, or a list of user and admin (got "none")']);
  t.deepEqual(problemsOf({ ALLOW_RAW_WORKFLOWS: 'all,admin' }), ['ALLOW_RAW_WORKFLOWS must be none, all, or a list of user and admin (got "all")']);
});

// ---------------------------------------------------------------------------------------------------------------
// queue

test('queue: rabbitmq takes AMQP_URL and AMQP_PREFIX (default media-gen)', (t) => {
  t.deepEqual(load({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'amqps://u:p@broker:5671/vh' }).queue, { driver: 'rabbitmq', amqpUrl: 'amqps://u:p@broker:5671/vh', prefix: 'media-gen' });
  t.deepEqual(load({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://broker', AMQP_PREFIX: 'Acme_1.prod-eu' }).queue, { driver: 'rabbitmq', amqpUrl: 'amqp://broker', prefix: 'Acme_1.prod-eu' });
  t.notThrows(() => load({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://broker', AMQP_PREFIX: 'p'.repeat(100) }));
});

test('queue: an AMQP_PREFIX with other characters or over 100 is refused', (t) => {
  const problem = 'AMQP_PREFIX may hold only letters, digits, "_", "-" and "." (at most 100)';
  for (const prefix of ['acme prod', 'acme/prod', 'acme#', 'p'.repeat(101)]) {
    t.deepEqual(problemsOf({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://broker', AMQP_PREFIX: prefix }), [problem], prefix);
  }
});

test('queue: AMQP_URL must be an amqp: or amqps: URL', (t) => {
  t.deepEqual(problemsOf({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'http://broker:15672' }), ['AMQP_URL must use amqp: or amqps: (got "http:")']);
  t.deepEqual(problemsOf({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://broker:99999' }), ['AMQP_URL is not a valid URL']);
  t.deepEqual(problemsOf({ QUEUE_DRIVER: 'rabbitmq' }), ['AMQP_URL is required when QUEUE_DRIVER=rabbitmq'], 'a missing URL is reported once');
});

test('queue: sqs with an endpoint, a dead-letter queue and a wait time', (t) => {
  const base = { QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1', SQS_QUEUE_URL: 'http://localhost:9324/000/jobs' };
  t.deepEqual(load({ ...base, SQS_ENDPOINT: 'http://localhost:9324', SQS_DLQ_URL: 'https://sqs.example/000/dead', SQS_WAIT_SECONDS: '0' }).queue, {
    driver: 'sqs',
    queueUrl: 'http://localhost:9324/000/jobs',
    region: 'eu-west-1',
    endpoint: 'http://localhost:9324',
    deadLetterQueueUrl: 'https://sqs.example/000/dead',
    waitTimeSeconds: 0,
  });
  t.like(load({ ...base, SQS_WAIT_SECONDS: '20' }).queue, { waitTimeSeconds: 20 });
});

test('queue: every SQS URL must be http(s)', (t) => {
  const base = { QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1', SQS_QUEUE_URL: 'https://sqs.example/1/jobs' };
  t.deepEqual(problemsOf({ ...base, SQS_QUEUE_URL: 'sqs://jobs' }), ['SQS_QUEUE_URL must use http: or https: (got "sqs:")']);
  t.deepEqual(problemsOf({ ...base, SQS_ENDPOINT: 'localhost:9324' }), ['SQS_ENDPOINT must use http: or https: (got "localhost:")']);
  t.deepEqual(problemsOf({ ...base, SQS_DLQ_URL: 'not a url' }), ['SQS_DLQ_URL is not a valid URL']);
  t.deepEqual(problemsOf({ ...base, SQS_WAIT_SECONDS: '-1' }), ['SQS_WAIT_SECONDS must be an integer from 0 to 20 (got "-1")']);
});

test('queue: an unknown QUEUE_DRIVER is refused', (t) => {
  t.deepEqual(problemsOf({ QUEUE_DRIVER: 'kafka' }), ['QUEUE_DRIVER must be one of db, rabbitmq, sqs (got "kafka")']);
  t.deepEqual(load({ QUEUE_DRIVER: 'db', AMQP_URL: 'amqp://broker' }).queue, { driver: 'db' });
});

// ---------------------------------------------------------------------------------------------------------------
// database

test('database: sqlite file paths, absolute (sqlite:///...) or relative', (t) => {
  t.deepEqual(load({ DATABASE_URL: 'sqlite:///var/lib/app/app.db' }).database, { url: 'sqlite:///var/lib/app/app.db', dialect: 'sqlite', storagePath: '/var/lib/app/app.db' });
  t.deepEqual(load({ DATABASE_URL: 'sqlite:/srv/app.db' }).database, { url: 'sqlite:/srv/app.db', dialect: 'sqlite', storagePath: '/srv/app.db' });
  t.deepEqual(load({ DATABASE_URL: 'sqlite:data/x.db' }).database, { url: 'sqlite:data/x.db', dialect: 'sqlite', storagePath: path.resolve('data/x.db') });
  t.deepEqual(load({ DATA_DIR: '/srv/media' }).database, { url: 'sqlite:/srv/media/app.db', dialect: 'sqlite', storagePath: '/srv/media/app.db' });
  // The URL form with a relative path: before, the leading // made it a file at the root of the disk (/data/x.db).
  t.is(load({ DATABASE_URL: 'sqlite://data/x.db' }).database.storagePath, path.resolve('data/x.db'));
});

test('database: an in-memory SQLite database is refused (it would lose jobs and coins on restart)', (t) => {
  const problem = 'DATABASE_URL=sqlite: needs a file path (sqlite:/path/to/app.db); an in-memory database is not supported';
  t.deepEqual(problemsOf({ DATABASE_URL: 'sqlite::memory:' }), [problem]);
  t.deepEqual(problemsOf({ DATABASE_URL: 'sqlite:' }), [problem]);
  // Before, the root of the disk (/) was taken for the database file, and the service failed at start.
  t.deepEqual(problemsOf({ DATABASE_URL: 'sqlite://' }), [problem]);
  // The URL form (Sequelize's own examples use it): before, a file named ':memory:' at the root of the disk.
  t.deepEqual(problemsOf({ DATABASE_URL: 'sqlite://:memory:' }), [problem]);
  t.is(load({ DATABASE_URL: 'sqlite:///var/lib/mgs/:memory:' }).database.storagePath, '/var/lib/mgs/:memory:', 'a file of that name in a folder is a file');
});

test('database: mysql:// and mariadb:// both reach mysql2; other schemes and bad URLs are refused', (t) => {
  t.deepEqual(load({ DATABASE_URL: 'mysql://app:pw@db:3306/media' }).database, { url: 'mysql://app:pw@db:3306/media', dialect: 'mysql' });
  t.deepEqual(load({ DATABASE_URL: 'mariadb://app@db/media' }).database, { url: 'mysql://app@db/media', dialect: 'mysql' });
  t.deepEqual(problemsOf({ DATABASE_URL: 'postgres://db/app' }), ['DATABASE_URL must start with sqlite: or mysql://']);
  t.deepEqual(problemsOf({ DATABASE_URL: 'mysql:db/app' }), ['DATABASE_URL must start with sqlite: or mysql://']);
  t.deepEqual(problemsOf({ DATABASE_URL: 'mysql://db:99999/app' }), ['DATABASE_URL is not a valid URL']);
});

// ---------------------------------------------------------------------------------------------------------------
// cache and event bus

test('cache: memory by default, redis with REDIS_URL; anything else is refused', (t) => {
  t.deepEqual(load({}).cache, { driver: 'memory' });
  t.deepEqual(load({ REDIS_URL: 'redis://cache:6379' }).cache, { driver: 'memory' }, 'REDIS_URL alone does not switch the cache');
  t.deepEqual(load({ CACHE_DRIVER: 'redis', REDIS_URL: 'redis://cache:6379' }).cache, { driver: 'redis', url: 'redis://cache:6379' });
  t.deepEqual(problemsOf({ CACHE_DRIVER: 'redis' }), ['REDIS_URL is required when CACHE_DRIVER=redis']);
  t.deepEqual(problemsOf({ CACHE_DRIVER: 'memcached' }), ['CACHE_DRIVER must be one of memory, redis (got "memcached")']);
});

test('event bus: rabbitmq on its own broker takes AMQP_PREFIX; with the rabbitmq queue it shares the queue broker and prefix', (t) => {
  t.deepEqual(load({ EVENT_BUS_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://events', AMQP_PREFIX: 'acme' }).eventBus, { driver: 'rabbitmq', url: 'amqp://events', prefix: 'acme' });
  t.deepEqual(load({ QUEUE_DRIVER: 'rabbitmq', AMQP_URL: 'amqp://q', AMQP_PREFIX: 'shop', EVENT_BUS_DRIVER: 'rabbitmq' }).eventBus, { driver: 'rabbitmq', url: 'amqp://q', prefix: 'shop' });
  t.deepEqual(load({ QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1', SQS_QUEUE_URL: 'https://sqs.example/1/jobs' }).eventBus, { driver: 'memory' }, 'sqs alone keeps the memory bus');
  t.deepEqual(load({ CACHE_DRIVER: 'redis', REDIS_URL: 'redis://c:6379', EVENT_BUS_DRIVER: 'redis' }).eventBus, { driver: 'redis', url: 'redis://c:6379' });
});

// ---------------------------------------------------------------------------------------------------------------
// auth

test('auth: the documented defaults (.env.example)', (t) => {
  const { auth } = load({});
  t.like(auth, {
    issuer: 'media-gen-service',
    audience: 'media-gen-service',
    accessTokenTtlSeconds: 15 * 60,
    refreshTokenTtlSeconds: 7 * 86400,
    secureCookies: false,
    adminEmails: [],
    loginMaxFailures: 10,
    loginMaxFailuresPerAccount: 100,
    loginMaxFailuresPerAddress: 20,
    loginWindowSeconds: 15 * 60,
    registerMaxPerAddress: 5,
    registerWindowSeconds: 60 * 60,
    apiKeyRateLimitPerMinute: 600,
  });
});

test('auth: values given are read', (t) => {
  const { auth } = load({
    JWT_ISSUER: 'issuer-x',
    JWT_AUDIENCE: 'aud-y',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '7',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '8',
    LOGIN_WINDOW: '2m',
    REGISTER_MAX_PER_ADDRESS: '9',
    REGISTER_WINDOW: '1d',
    SECURE_COOKIES: 'true',
    ADMIN_EMAILS: 'Boss@Example.COM',
  });
  t.like(auth, { issuer: 'issuer-x', audience: 'aud-y', loginMaxFailuresPerAccount: 7, loginMaxFailuresPerAddress: 8, loginWindowSeconds: 120, registerMaxPerAddress: 9, registerWindowSeconds: 86400, secureCookies: true, adminEmails: ['boss@example.com'] });
});

test('auth: SECURE_COOKIES defaults to true in production only, and can be turned off there', (t) => {
  const secret = { JWT_SECRET: 'k'.repeat(32) };
  t.true(load({ ...secret, APP_ENV: 'production' }).auth.secureCookies);
  t.false(load({ ...secret, APP_ENV: 'development' }).auth.secureCookies);
  t.false(load({ ...secret, APP_ENV: 'production', SECURE_COOKIES: 'false' }).auth.secureCookies);
});

test('auth: JWT_SECRET of 31 characters is refused, 32 accepted and used as given', (t) => {
  t.deepEqual(problemsOf({ APP_ENV: 'production', JWT_SECRET: 'k'.repeat(31) }), ['JWT_SECRET must be at least 32 characters']);
  t.deepEqual(problemsOf({ APP_ENV: 'local', JWT_SECRET: 'k'.repeat(31) }), ['JWT_SECRET must be at least 32 characters'], 'a short secret is refused locally too');
  t.is(load({ APP_ENV: 'production', JWT_SECRET: 'k'.repeat(32) }).auth.jwtSecret, 'k'.repeat(32));
  t.is(load({ APP_ENV: 'local', JWT_SECRET: 'm'.repeat(40) }).auth.jwtSecret, 'm'.repeat(40), 'a given secret wins over the generated one');
});

test('auth: without persistence each local start generates a fresh secret of at least 32 characters', (t) => {
  const first = load({}).auth.jwtSecret;
  const second = load({}).auth.jwtSecret;
  t.true(first.length >= 32);
  t.not(first, second);
});

test('auth: a kept local secret is read back from DATA_DIR (trimmed)', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-config-audit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'jwt-secret'), `${'s'.repeat(48)}\n`);
  const result = loadConfig({ DATA_DIR: dir });
  t.true(result.ok);
  if (result.ok) t.is(result.config.auth.jwtSecret, 's'.repeat(48));
});

test('auth: a kept local secret cut short (empty, or under 32 characters) is refused, not used to sign tokens', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-config-audit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const problem = `the JWT secret kept in ${path.join(dir, 'jwt-secret')} must be at least 32 characters (delete the file to have a new one generated)`;
  for (const kept of ['', '\n', 's'.repeat(31)]) {
    writeFileSync(path.join(dir, 'jwt-secret'), kept);
    const result = loadConfig({ DATA_DIR: dir });
    t.false(result.ok, JSON.stringify(kept));
    if (!result.ok) t.deepEqual(result.problems, [problem]);
  }
  writeFileSync(path.join(dir, 'jwt-secret'), 's'.repeat(32));
  t.true(loadConfig({ DATA_DIR: dir }).ok);
});

test('social: a kept local token key that is empty or not a key is refused at start, naming the file', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-config-audit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATA_DIR: dir, YOUTUBE_CLIENT_ID: 'id', YOUTUBE_CLIENT_SECRET: 'secret' };
  const file = path.join(dir, 'token-encryption-key');
  const remedy = ' (delete the file to have a new one generated; connected accounts must then be connected again)';
  for (const [kept, problem] of [
    ['', 'no key given'],
    ['\n', 'no key given'],
    ['ab'.repeat(31), 'entry 1 is not 32 bytes as 64 hex characters or base64'],
  ] as const) {
    writeFileSync(file, kept);
    const result = loadConfig(env);
    t.false(result.ok, JSON.stringify(kept));
    if (!result.ok) t.deepEqual(result.problems, [`the token key kept in ${file}: ${problem}${remedy}`]);
  }
  writeFileSync(file, 'ab'.repeat(32));
  const loaded = loadConfig(env);
  t.true(loaded.ok);
  if (loaded.ok) t.is(loaded.config.social.tokenEncryptionKey, 'ab'.repeat(32));
  t.deepEqual(problemsOf({ ...env, TOKEN_ENCRYPTION_KEY: 'short' }), ['TOKEN_ENCRYPTION_KEY: entry 1 is not 32 bytes as 64 hex characters or base64'], 'the variable keeps its own wording');
});

// ---------------------------------------------------------------------------------------------------------------
// telemetry

test('telemetry: a base endpoint that is not http(s) is a problem naming it; the traces endpoint is checked as given', (t) => {
  t.deepEqual(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' }), ['OTEL_EXPORTER_OTLP_ENDPOINT must use http: or https: (got "grpc:")']);
  t.deepEqual(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ok:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://traces' }), ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must use http: or https: (got "ftp:")']);
  t.deepEqual(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example/otlp/' }).telemetry, { traces: { url: 'https://collector.example/otlp/v1/traces', serviceName: 'media-gen-api' } });
  t.deepEqual(load({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom/' }).telemetry, { traces: { url: 'http://c:4318/custom/', serviceName: 'media-gen-api' } });
  t.deepEqual(load({ ROLES: 'api,worker', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).telemetry.traces?.serviceName, 'media-gen-api', 'a process that is both reports as the api');
});
