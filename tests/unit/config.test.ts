import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { loadConfig, type Config } from '../../bootstrap/config.ts';
import { load, problemsOf } from '../support/config-env.ts';
import { readQueue } from '../../bootstrap/config/queue.ts';
import { Reader } from '../../bootstrap/config/reader.ts';

test('an empty environment gives the embedded default', (t) => {
  const config = load({});
  const dataDir = path.resolve('./data');
  t.is(config.port, 3000);
  t.is(config.host, '0.0.0.0');
  t.is(config.appEnv, 'local');
  t.deepEqual(config.roles, ['api', 'worker']);
  t.is(config.dataDir, dataDir);
  t.deepEqual(config.database, { url: `sqlite:${path.join(dataDir, 'app.db')}`, dialect: 'sqlite', storagePath: path.join(dataDir, 'app.db') });
  t.deepEqual(config.queue, { driver: 'db' });
  t.like(config.storage, { driver: 'local', dir: path.join(dataDir, 'storage') });
  t.deepEqual(config.cache, { driver: 'memory' });
  t.deepEqual(config.engine, { driver: 'builtin', timeBudgetSeconds: 600, memoryMb: 2048, workDir: path.join(dataDir, 'engine') });
  t.is(config.publicUrl, 'http://localhost:3000');
  t.is(config.frontendUrl, 'http://localhost:3000');
  t.deepEqual(config.corsOrigins, ['http://localhost:3000']);
  t.is(config.logLevel, 'info');
  t.is(config.signupBonusCoins, 100);
  t.like(config.auth, {
    issuer: 'media-gen-service',
    audience: 'media-gen-service',
    accessTokenTtlSeconds: 15 * 60,
    refreshTokenTtlSeconds: 7 * 86400,
    secureCookies: false,
    adminEmails: [],
    loginMaxFailures: 10,
    loginWindowSeconds: 15 * 60,
  });
  t.true(config.auth.jwtSecret.length >= 32, 'a local secret is generated');
  t.true(config.enableTestEndpoints);
});

test('the configuration is frozen all the way down', (t) => {
  const config = load({}) as Config;
  t.true(Object.isFrozen(config));
  t.true(Object.isFrozen(config.auth));
  t.true(Object.isFrozen(config.roles));
  t.throws(() => {
    (config.auth as { jwtSecret: string }).jwtSecret = 'changed';
  });
});

test('APP_ENV=local keeps the generated JWT secret in DATA_DIR across restarts', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mgs-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = loadConfig({ DATA_DIR: dir });
  const second = loadConfig({ DATA_DIR: dir });
  t.true(first.ok && second.ok);
  if (!first.ok || !second.ok) return;
  t.is(first.config.auth.jwtSecret, second.config.auth.jwtSecret);
  t.is(readFileSync(path.join(dir, 'jwt-secret'), 'utf8'), first.config.auth.jwtSecret);
  t.is(statSync(path.join(dir, 'jwt-secret')).mode & 0o777, 0o600);
});

test('values are parsed: durations, lists, booleans, mariadb:// URLs, production defaults', (t) => {
  const config = load({
    APP_ENV: 'production',
    JWT_SECRET: 's'.repeat(32),
    PORT: '8080',
    ROLES: 'worker',
    DATABASE_URL: 'mariadb://app:pw@db:3306/media',
    ACCESS_TOKEN_TTL: '5m',
    REFRESH_TOKEN_TTL: '30d',
    ADMIN_EMAILS: ' Root@Example.com , ops@example.com ,',
    QUEUE_DRIVER: 'rabbitmq',
    AMQP_URL: 'amqp://guest:guest@rabbit:5672',
    CACHE_DRIVER: 'redis',
    REDIS_URL: 'redis://cache:6379',
    STORAGE_DRIVER: 's3',
    S3_BUCKET: 'outputs',
    ENGINE_DRIVER: 'comfyui',
    COMFYUI_URL: 'http://gpu1:8188, http://gpu2:8188',
  });
  t.is(config.port, 8080);
  t.deepEqual(config.roles, ['worker']);
  t.deepEqual(config.database, { url: 'mysql://app:pw@db:3306/media', dialect: 'mysql' });
  t.is(config.auth.accessTokenTtlSeconds, 300);
  t.is(config.auth.refreshTokenTtlSeconds, 30 * 86400);
  t.deepEqual(config.auth.adminEmails, ['root@example.com', 'ops@example.com']);
  t.true(config.auth.secureCookies, 'production defaults to secure cookies');
  t.false(config.enableTestEndpoints, 'production turns test endpoints off');
  t.deepEqual(config.queue, { driver: 'rabbitmq', amqpUrl: 'amqp://guest:guest@rabbit:5672', prefix: 'media-gen' });
  t.deepEqual(config.cache, { driver: 'redis', url: 'redis://cache:6379' });
  t.like(config.storage, { driver: 's3', bucket: 'outputs', region: 'us-east-1' });
  t.deepEqual(config.engine, { driver: 'comfyui', urls: ['http://gpu1:8188', 'http://gpu2:8188'], timeoutMs: 30_000, jobsPerServer: 1, unavailableWaitMs: 60_000, failoverMs: 3_000, probeMs: 2_000, catalogueRefreshMs: 60_000, dispatch: 'fair', affinityWaitMs: 15_000, lookahead: 2 });
});

test('ENGINE_DRIVER=comfyui: COMFYUI_URLS with credentials, a token, deadlines and jobs per server; COMFYUI_URL is its alias', (t) => {
  const base = { APP_ENV: 'local', DATA_DIR: '/tmp/x', JWT_SECRET: 'x'.repeat(32), ENGINE_DRIVER: 'comfyui' };
  const config = load({
    ...base,
    COMFYUI_URLS: 'https://ops:s3cret@gpu1.example:443,http://gpu2:8188',
    COMFYUI_TOKEN: 'tok',
    COMFYUI_TIMEOUT_MS: '5000',
    COMFYUI_JOBS_PER_SERVER: '2',
    COMFYUI_WAIT_MS: '1000',
    COMFYUI_FAILOVER_MS: '1500',
    COMFYUI_PROBE_MS: '700',
    COMFYUI_CATALOG_REFRESH_MS: '0',
    COMFYUI_DISPATCH: 'shortest-queue',
    COMFYUI_AFFINITY_WAIT_MS: '2500',
    COMFYUI_DISPATCH_LOOKAHEAD: '3',
  });
  t.deepEqual(config.engine, {
    driver: 'comfyui',
    urls: ['https://ops:s3cret@gpu1.example:443', 'http://gpu2:8188'],
    token: 'tok',
    timeoutMs: 5000,
    jobsPerServer: 2,
    unavailableWaitMs: 1000,
    failoverMs: 1500,
    probeMs: 700,
    catalogueRefreshMs: 0,
    dispatch: 'shortest-queue',
    affinityWaitMs: 2500,
    lookahead: 3,
  });
  t.like(load({ ...base, COMFYUI_URL: 'http://one:8188' }).engine, { urls: ['http://one:8188'] });
  const problems = problemsOf({ ...base, COMFYUI_URLS: 'http://a:1', COMFYUI_URL: 'http://b:1', COMFYUI_JOBS_PER_SERVER: '0' });
  t.true(problems.some((p) => p.includes('COMFYUI_URLS and COMFYUI_URL disagree')), problems.join('\n'));
  t.true(problems.some((p) => p.startsWith('COMFYUI_JOBS_PER_SERVER must be an integer')));
  t.true(problemsOf(base).some((p) => p.startsWith('COMFYUI_URLS is required')));
  t.false(problemsOf({ ...base, COMFYUI_URLS: 'ftp://ops:s3cret@x' }).join(' ').includes('s3cret'), 'a bad URL is reported without its password');
});

test('every problem is reported together, each naming its variable', (t) => {
  const problems = problemsOf({
    APP_ENV: 'staging',
    PORT: 'eighty',
    ROLES: 'api,cron',
    DATABASE_URL: 'postgres://db/app',
    QUEUE_DRIVER: 'rabbitmq',
    CACHE_DRIVER: 'redis',
    JWT_SECRET: 'too-short',
    ACCESS_TOKEN_TTL: 'soon',
    SECURE_COOKIES: 'maybe',
    PUBLIC_URL: 'ftp://example.com',
    FRONTEND_URL: 'https://app.example.com',
  });
  const expected = ['APP_ENV', 'PORT', 'ROLES', 'DATABASE_URL', 'AMQP_URL', 'REDIS_URL', 'JWT_SECRET', 'ACCESS_TOKEN_TTL', 'SECURE_COOKIES', 'PUBLIC_URL'];
  for (const name of expected) t.true(problems.some((problem) => problem.includes(name)), `${name} in ${JSON.stringify(problems)}`);
  t.is(problems.length, expected.length);
});

test('QUEUE_DRIVER=sqs without SQS_QUEUE_URL and AWS_REGION names both variables', (t) => {
  const problems = problemsOf({ QUEUE_DRIVER: 'sqs' });
  t.deepEqual(problems, ['SQS_QUEUE_URL is required when QUEUE_DRIVER=sqs', 'AWS_REGION is required when QUEUE_DRIVER=sqs']);
  t.deepEqual(problemsOf({ QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1' }), ['SQS_QUEUE_URL is required when QUEUE_DRIVER=sqs']);
  const config = load({ QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1', SQS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/jobs' });
  t.deepEqual(config.queue, { driver: 'sqs', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/jobs', region: 'eu-west-1', waitTimeSeconds: 10 });
});

// Pins: one half of a static AWS key is a problem, not a silent fall-back to the SDK's own credentials.
test('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together', (t) => {
  const sqs = { QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1', SQS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/jobs' };
  const together = 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together (or leave both unset to use a profile or role)';
  t.deepEqual(problemsOf({ ...sqs, AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE' }), [together]);
  t.deepEqual(problemsOf({ ...sqs, AWS_SECRET_ACCESS_KEY: 'secret' }), [together]);
  t.deepEqual(load({ ...sqs, AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' }).queue, { ...load(sqs).queue, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
});

// Pins: a ROLES that names no role is a problem: a process with neither role would start and do nothing.
test('ROLES must name at least one role', (t) => {
  t.deepEqual(problemsOf({ ROLES: ',' }), ['ROLES must name at least one of api, worker']);
});

test('a section reader can be called alone: it gives its section and adds only its own problems', (t) => {
  const read = new Reader({ QUEUE_DRIVER: 'sqs', AWS_REGION: 'eu-west-1', SQS_WAIT_SECONDS: '99', PORT: 'eighty' });
  t.deepEqual(readQueue(read), { driver: 'sqs', queueUrl: '', region: 'eu-west-1', waitTimeSeconds: 10 });
  t.deepEqual(read.problems, ['SQS_QUEUE_URL is required when QUEUE_DRIVER=sqs', 'SQS_WAIT_SECONDS must be an integer from 0 to 20 (got "99")']);
});

test('a JWT secret is required outside APP_ENV=local', (t) => {
  t.deepEqual(problemsOf({ APP_ENV: 'production' }), ['JWT_SECRET is required when APP_ENV=production']);
  t.deepEqual(problemsOf({ APP_ENV: 'development' }), ['JWT_SECRET is required when APP_ENV=development']);
});

test('a FRONTEND_URL or PUBLIC_URL that is no URL is a reported problem, not a crash', (t) => {
  t.deepEqual(problemsOf({ FRONTEND_URL: 'app.example.com' }), ['FRONTEND_URL is not a valid URL']);
  t.deepEqual(problemsOf({ PUBLIC_URL: 'nowhere' }), ['PUBLIC_URL is not a valid URL', 'FRONTEND_URL is not a valid URL']);
});
