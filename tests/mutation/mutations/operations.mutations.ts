import { entriesOn, type Mutation } from '../mutation.ts';

/** Issue 22 (operators): the 404 fallback, the readiness checks, the probe listener, TRUST_PROXY and the worker's job log. */
const cli = entriesOn('cli', 'bootstrap/cli.ts', ['tests/integration/cli.test.ts']);

const storageProbe = entriesOn('storage probe', 'core/use-cases/diagnostics/probe-storage.use-case.ts', ['tests/unit/probe-storage.test.ts']);

const cacheProbe = entriesOn('cache probe', 'core/use-cases/diagnostics/probe-cache.use-case.ts', ['tests/unit/probe-cache-and-peek.test.ts']);
const peek = entriesOn('queue peek', 'core/use-cases/diagnostics/peek-queue.use-case.ts', ['tests/unit/probe-cache-and-peek.test.ts']);

export const MUTATIONS: Mutation[] = [
  cacheProbe('a cache that loses or alters the key passes', '      if (read !== value) throw new Error(', '      if (false as boolean) throw new Error('),
  cacheProbe('a lost key is called another value', "read === null ? 'nothing' : 'another value'", "'another value'"),
  cacheProbe('a failed probe leaves its key behind', '    } finally {\n      await cache.delete(key);\n    }', '    } finally {\n    }\n    await cache.delete(key);'),
  cacheProbe('a cache that keeps a deleted key passes', "    if ((await cache.get(key)) !== null) throw new Error(", "    if (false as boolean) throw new Error("),
  peek('no max peeks 1', 'const max = input.max === undefined ? 10 : Number(input.max);', 'const max = input.max === undefined ? 1 : Number(input.max);'),
  peek('a fractional max is taken', 'if (!Number.isInteger(max) || max < 1 || max > PEEK_MAX)', 'if (Number.isNaN(max) || max < 1 || max > PEEK_MAX)'),
  peek('a max of 0 is taken', 'if (!Number.isInteger(max) || max < 1 || max > PEEK_MAX)', 'if (!Number.isInteger(max) || max < 0 || max > PEEK_MAX)'),
  peek('a max past 100 is taken', 'if (!Number.isInteger(max) || max < 1 || max > PEEK_MAX)', 'if (!Number.isInteger(max) || max < 1 || max > PEEK_MAX + 1)'),
  // core/use-cases/diagnostics/probe-storage.use-case.ts (tests/unit/probe-storage.test.ts)
  storageProbe('a store that fails its check is written to', '    await storage.check();\n', ''),
  storageProbe('a store that lost the probe object passes', "      if (!read) throw new Error('storage lost the probe object');\n", "      if (!read) return { latencyMs: 0 };\n"),
  storageProbe('a store that returns other bytes passes', "      if (!Buffer.concat(chunks).equals(body)) throw new Error(", "      if (false as boolean) throw new Error("),
  storageProbe('a failed probe leaves its object behind', '    } finally {\n      await storage.delete(key);\n    }', '    } finally {\n    }\n    await storage.delete(key);'),
  storageProbe('a store that keeps a deleted object passes', "    if ((await storage.head(key)) !== null) throw new Error(", "    if (false as boolean) throw new Error("),
  // bootstrap/cli.ts (tests/integration/cli.test.ts)
  cli('the database password is printed on stderr', "    if (parsed.password) parsed.password = '***';\n", ''),
  cli('--help and -h are unknown commands', "if (command === 'help' || command === '--help' || command === '-h') {", "if (command === 'help') {"),
  cli('a blank email is looked up', "if (args.length !== 1 || !args[0]!.trim()) usageError(", 'if (args.length !== 1) usageError('),
  cli('extra arguments are ignored', "if (args.length !== 1 || !args[0]!.trim()) usageError(", "if (!args[0]?.trim()) usageError("),
  cli('a database from DATABASE_URL is said to be under DATA_DIR', "process.env['DATABASE_URL'] ? 'from DATABASE_URL' : ", ''),
  cli('a missing SQLite file is created by the CLI (a stray database, "no user")', "if (database.dialect === 'sqlite' && database.storagePath && !existsSync(database.storagePath)) {", 'if (false as boolean) {'),
  cli('an unknown command runs as promote', 'if (!COMMANDS.includes(command!)) usageError(', 'if (false as boolean) usageError('),
  cli('no command at all runs as promote', "if (command === undefined) usageError('No command given.');", ''),
  cli('an invalid configuration is used anyway', "if (!loaded.ok) {\n  process.stderr.write(`Configuration is invalid", "if (false as boolean) {\n  process.stderr.write(`Configuration is invalid"),
  {
    name: 'web app: any GET asking for HTML falls back to index.html',
    file: 'adapters/http/web-app.ts',
    find: "if (!CLIENT_ROUTES.has(req.path) || !req.accepts('html')) return next();",
    replace: "if (!req.accepts('html')) return next();",
    tests: ['tests/integration/unknown-paths.test.ts'],
  },
  {
    name: 'readiness: no database check',
    file: 'bootstrap/modules/health.module.ts',
    find: "['database', 'queue', 'engine']",
    replace: "['queue', 'engine']",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'readiness: no queue check',
    file: 'bootstrap/modules/health.module.ts',
    find: "['database', 'queue', 'engine']",
    replace: "['database', 'engine']",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'readiness: no engine check in a worker',
    file: 'bootstrap/modules/health.module.ts',
    find: "['database', 'queue', 'engine']",
    replace: "['database', 'queue']",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'readiness: a failing check still answers 200',
    file: 'adapters/http/routes/health.routes.ts',
    find: 'statusCode: result.healthy ? 200 : 503',
    replace: 'statusCode: 200',
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'health port: serves every path as readiness',
    file: 'adapters/http/health-probe-server.ts',
    find: "if (req.method !== 'GET' || path !== PROBE_PATHS.ready) return",
    replace: "if (req.method !== 'GET') return",
    tests: ['tests/integration/health-probes.test.ts'],
  },
  {
    name: 'TRUST_PROXY: a bare number is not a hop count',
    file: 'bootstrap/config/network.ts',
    find: 'if (/^\\d+$/.test(value)) return { ok: true, value: Number(value) };',
    replace: '',
    tests: ['tests/unit/trust-proxy-config.test.ts'],
  },
  {
    name: 'TRUST_PROXY: true and false not read as booleans',
    file: 'bootstrap/config/network.ts',
    find: "if (lower === 'true' || lower === 'false') return { ok: true, value: lower === 'true' };",
    replace: '',
    tests: ['tests/unit/trust-proxy-config.test.ts'],
  },
  {
    name: 'TRUST_PROXY: not validated',
    file: 'bootstrap/config/network.ts',
    find: "express().set('trust proxy', value);",
    replace: '',
    tests: ['tests/unit/trust-proxy-config.test.ts'],
  },
  {
    name: 'TRUST_PROXY: not applied to the app',
    file: 'adapters/http/http-app.ts',
    find: "app.set('trust proxy', options.trustProxy ?? 'loopback');",
    replace: "app.set('trust proxy', 'loopback');",
    tests: ['tests/integration/trust-proxy.test.ts'],
  },
  {
    name: 'worker log: job end only at debug',
    file: 'core/use-cases/generation/run-generation.use-case.ts',
    find: "logger.info('job ended'",
    replace: "logger.debug('job ended'",
    tests: ['tests/integration/worker-logs.test.ts'],
  },
  {
    name: 'worker log: outcome not read from the job',
    file: 'core/use-cases/generation/run-generation.use-case.ts',
    find: "job && job.runId === attempt.runId ? job.status : 'lost'",
    replace: "'succeeded'",
    tests: ['tests/integration/worker-logs.test.ts'],
  },
  ...jsonShapeMutations(),
  ...configReaderMutations(),
  ...paginationMutations(),
  ...storageConfigMutations(),
  ...integrationConfigMutations(),
  ...applicationMutations(),
  ...engineConfigMutations(),
  {
    name: 'health: every check given the default timeout, not HEALTH_CHECK_TIMEOUT_MS',
    file: 'adapters/http/routes/health.routes.ts',
    find: 'names.map((name) => runCheck(checks[name]!, timeoutMs))',
    replace: 'names.map((name) => runCheck(checks[name]!, DEFAULT_CHECK_TIMEOUT_MS))',
    tests: ['tests/unit/health-checks.test.ts'],
  },
  {
    name: 'health: HEALTH_CHECK_TIMEOUT_MS not read',
    file: 'bootstrap/config/network.ts',
    find: "const healthCheckTimeoutMs = read.int('HEALTH_CHECK_TIMEOUT_MS', DEFAULT_CHECK_TIMEOUT_MS, 100, 60_000);",
    replace: 'const healthCheckTimeoutMs = 3000;',
    tests: ['tests/unit/health-checks.test.ts'],
  },
  {
    name: 'health: a failing check reported with its stack (more than its first line)',
    file: 'adapters/http/routes/health.routes.ts',
    find: "return { status: (error as Error).message?.split('\\n')[0]?.slice(0, 200) || 'failed' };",
    replace: "return { status: (error as Error).message || 'failed' };",
    tests: ['tests/unit/health-checks.test.ts'],
  },
];

/** Request bodies: the nesting limit every route relies on, and the canonical form idempotency keys are compared by. */
function jsonShapeMutations(): Mutation[] {
  const file = 'adapters/http/json-shape.ts';
  const unit = 'tests/unit/json-shape.test.ts';
  return [
    { name: 'request bodies: nested deeper than the limit let through', file: 'adapters/http/http-app.ts', find: 'if (jsonDepth(req.body) > JSON_DEPTH_MAX) throw new HttpError(400', replace: 'if (false) throw new HttpError(400', tests: ['tests/integration/abuse.test.ts'] },
    { name: 'json depth: the limit not applied', file, find: '    if (here > limit) return Infinity;\n', replace: '', tests: [unit] },
    { name: 'json depth: the limit exclusive', file, find: '    if (here > limit) return Infinity;\n', replace: '    if (here >= limit) return Infinity;\n', tests: [unit] },
    { name: 'json depth: the deepest level not kept', file, find: '    if (here > deepest) deepest = here;\n', replace: '    deepest = here;\n', tests: [unit] },
    { name: 'json depth: containers inside arrays not walked', file, find: 'for (const inner of Array.isArray(current) ? current : Object.values(current as Record<string, unknown>)) {', replace: 'for (const inner of Array.isArray(current) ? [] : Object.values(current as Record<string, unknown>)) {', tests: [unit] },
    { name: 'canonical json: keys not sorted', file, find: "        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));", replace: ';', tests: [unit] },
    { name: 'canonical json: undefined members kept', file, find: '        .filter(([, inner]) => inner !== undefined)\n', replace: '', tests: [unit] },
    { name: 'canonical json: undefined (a missing body, an array hole) not written as null', file, find: 'const current = work.value ?? null;', replace: 'const current = work.value;', tests: [unit] },
  ];
}

/** The configuration reader every section is built from (bootstrap/config/reader.ts). */
function configReaderMutations(): Mutation[] {
  const file = 'bootstrap/config/reader.ts';
  const tests = ['tests/unit/config-reader.test.ts'];
  const entry = entriesOn('config reader', file, tests);
  return [
    entry('a blank value read as set', "return value === undefined || value.trim() === '' ? undefined : value.trim();", 'return value;'),
    entry('a missing required value not reported', '      this.problems.push(`${name} is required ${why}`);\n', ''),
    entry('a fraction accepted as an integer', 'if (!Number.isInteger(parsed) || parsed < min || parsed > max) {', 'if (parsed < min || parsed > max) {'),
    entry('an integer below the minimum accepted', 'if (!Number.isInteger(parsed) || parsed < min || parsed > max) {', 'if (!Number.isInteger(parsed) || parsed > max) {'),
    entry('an integer above the maximum accepted', 'if (!Number.isInteger(parsed) || parsed < min || parsed > max) {', 'if (!Number.isInteger(parsed) || parsed < min) {'),
    entry('the integer range exclusive', 'if (!Number.isInteger(parsed) || parsed < min || parsed > max) {', 'if (!Number.isInteger(parsed) || parsed <= min || parsed >= max) {'),
    entry('a boolean not case-insensitive', 'const value = this.raw(name)?.toLowerCase();', 'const value = this.raw(name);'),
    entry('an unknown boolean not reported', "    this.problems.push(`${name} must be true or false (got \"${value}\")`);\n", ''),
    entry('a value outside oneOf accepted', '    if (!(allowed as readonly string[]).includes(value)) {', '    if (false) {'),
    entry('list items not trimmed', '      .map((item) => item.trim())\n', ''),
    entry('empty list items kept', '      .filter((item) => item.length > 0);', ';'),
    entry('a malformed duration not reported', '    if (!match) {\n      this.problems.push(', '    if (!match) {\n      return fallbackSeconds;\n      this.problems.push('),
    entry('a duration under one second accepted', '    if (seconds < 1) {', '    if (false) {'),
    entry('duration units ignored', "const seconds = Number(match[1]) * UNIT_SECONDS[match[2] ?? 's']!;", 'const seconds = Number(match[1]);'),
    entry('a URL with another protocol accepted', '      if (!protocols.includes(parsed.protocol)) {', '      if (false) {'),
  ];
}

/** Every list's page and limit (core/domain/pagination.ts). */
function paginationMutations(): Mutation[] {
  const file = 'core/domain/pagination.ts';
  const tests = ['tests/unit/pagination.test.ts'];
  const entry = entriesOn('pagination', file, tests);
  return [
    entry('an empty value refused instead of the default', "if (value === undefined || value === '') return fallback;", 'if (value === undefined) return fallback;'),
    entry('a value that is not an integer taken', "  if (typeof text !== 'string' || !/^-?\\d+$/.test(text)) {", "  if (typeof text !== 'string') {"),
    entry('the integer pattern not anchored', '!/^-?\\d+$/.test(text)', '!/-?\\d+/.test(text)'),
    entry('a value out of range taken', '  if (parsed < min || parsed > max) {', '  if (false) {'),
    entry('the range exclusive', '  if (parsed < min || parsed > max) {', '  if (parsed <= min || parsed >= max) {'),
    entry('a number given as a number refused', "const text = typeof value === 'number' ? String(value) : value;", 'const text = value;'),
    entry('the last partial page not counted', 'totalPages: Math.ceil(total / request.limit),', 'totalPages: Math.floor(total / request.limit),'),
    entry('the offset off by a page', 'export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.limit;', 'export const offsetOf = (request: PageRequest): number => request.page * request.limit;'),
  ];
}

/** Object storage settings (bootstrap/config/storage.ts). */
function storageConfigMutations(): Mutation[] {
  const file = 'bootstrap/config/storage.ts';
  const tests = ['tests/unit/storage-config.test.ts'];
  const entry = entriesOn('storage config', file, tests);
  return [
    entry('S3_BUCKET not required', "bucket: read.required('S3_BUCKET', 'when STORAGE_DRIVER=s3'),", "bucket: read.string('S3_BUCKET', ''),"),
    entry('path-style URLs by default without an endpoint', "forcePathStyle: read.bool('S3_FORCE_PATH_STYLE', Boolean(read.raw('S3_ENDPOINT'))),", "forcePathStyle: read.bool('S3_FORCE_PATH_STYLE', true),"),
    entry('S3_PUBLIC_ENDPOINT ignored', "          ...(read.raw('S3_PUBLIC_ENDPOINT') ? { publicEndpoint: read.raw('S3_PUBLIC_ENDPOINT')! } : {}),\n", ''),
    entry('a short signing key accepted', "read.raw('STORAGE_SIGNING_KEY')!.length < 32) {", "read.raw('STORAGE_SIGNING_KEY')!.length < 31) {"),
    entry('a signing key of its own replaced by the derived one', "if (storage.driver === 'local' && !storage.signingKey) {", "if (storage.driver === 'local') {"),
    entry('the JWT secret itself used as the signing key', "storage.signingKey = createHmac('sha256', jwtSecret).update('media-gen:storage-url-signing:v1').digest('base64url');", 'storage.signingKey = jwtSecret;'),
    entry('an unknown S3_SSE accepted', "  if (sse !== 'AES256' && sse !== 'aws:kms') {", '  if (false) {'),
    entry('a KMS key without S3_SSE accepted', "    if (kmsKeyId) read.problems.push('S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms');\n", ''),
    entry('a KMS key with AES256 accepted', "  if (kmsKeyId && sse !== 'aws:kms') read.problems.push('S3_SSE_KMS_KEY_ID needs S3_SSE=aws:kms');\n", ''),
    entry('a KMS key passed on with AES256', "...(kmsKeyId && sse === 'aws:kms' ? { kmsKeyId } : {})", '...(kmsKeyId ? { kmsKeyId } : {})'),
  ];
}

/** Social platform and OpenID Connect settings (bootstrap/config/social.ts, bootstrap/config/oidc.ts). */
function integrationConfigMutations(): Mutation[] {
  const social = 'bootstrap/config/social.ts';
  const oidc = 'bootstrap/config/oidc.ts';
  const socialTests = ['tests/unit/social-config.test.ts'];
  const oidcTests = ['tests/unit/integrations-config.test.ts'];
  return [
    { name: 'social config: a platform with only one of its values turned on', file: social, find: "    if (!id || !secret) {\n      read.problems.push(", replace: "    if (!id && !secret) {\n      read.problems.push(", tests: socialTests },
    { name: 'social config: a malformed TOKEN_ENCRYPTION_KEY accepted', file: social, find: "    if ('problem' in parsed) read.problems.push(`${source}: ${parsed.problem}${remedy}`);\n", replace: '', tests: socialTests },
    { name: 'social config: a given TOKEN_ENCRYPTION_KEY is not checked', file: social, find: "  let tokenEncryptionKey = given ? checked(given, 'TOKEN_ENCRYPTION_KEY') : '';", replace: '  let tokenEncryptionKey = given;', tests: socialTests },
    { name: 'social config: no TOKEN_ENCRYPTION_KEY required with a platform in production', file: social, find: "    } else read.problems.push(`TOKEN_ENCRYPTION_KEY is required when a social platform", replace: "    } else void (`TOKEN_ENCRYPTION_KEY is required when a social platform", tests: socialTests },
    { name: 'social config: APP_ENV=local makes no key', file: social, find: '      tokenEncryptionKey = checked(kept.secret,', replace: '      void checked(kept.secret,', tests: socialTests },
    { name: 'oidc config: a reserved word taken as a provider name', file: oidc, find: ' || RESERVED_PROVIDER_NAMES.has(name)) {', replace: ') {', tests: oidcTests },
    { name: 'oidc config: a provider name of any characters taken', file: oidc, find: "    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name) || RESERVED_PROVIDER_NAMES.has(name)) {", replace: '    if (RESERVED_PROVIDER_NAMES.has(name)) {', tests: oidcTests },
    { name: 'oidc config: an http issuer accepted in production', file: oidc, find: "      if (appEnv === 'production' && issuer.startsWith('http:')) read.problems.push(", replace: "      if (false) read.problems.push(", tests: oidcTests },
    { name: 'oidc config: scopes without openid accepted', file: oidc, find: "    if (!scopes.includes('openid')) read.problems.push(", replace: '    if (false) read.problems.push(', tests: oidcTests },
    { name: 'oidc config: a missing issuer not reported', file: oidc, find: "(name === 'google' ? GOOGLE_ISSUER : read.required(`${prefix}ISSUER`, `for the OIDC provider ${name}`))", replace: "(name === 'google' ? GOOGLE_ISSUER : '')", tests: oidcTests },
    { name: 'oidc config: a missing client id not reported', file: oidc, find: "      clientId: read.required(`${prefix}CLIENT_ID`, `for the OIDC provider ${name}`),", replace: "      clientId: read.string(`${prefix}CLIENT_ID`, ''),", tests: oidcTests },
    { name: 'oidc config: a missing client secret not reported', file: oidc, find: "      clientSecret: read.required(`${prefix}CLIENT_SECRET`, `for the OIDC provider ${name}`),", replace: "      clientSecret: read.string(`${prefix}CLIENT_SECRET`, ''),", tests: oidcTests },
  ];
}

/** bootstrap/app.ts: what each role builds and starts, the media origins with S3, the bounded migration retry. */
function applicationMutations(): Mutation[] {
  const entry = entriesOn('application', 'bootstrap/app.ts', ['tests/integration/app-roles.test.ts']);
  return [
    entriesOn('application', 'bootstrap/app.ts', ['tests/integration/comfy-v2-guards.test.ts'])('the stop waits for a connection Node counts as busy until its 60 s header limit', '          const cut = setTimeout(() => server!.closeAllConnections(), CLOSE_GRACE_MS);\n', '          const cut = undefined;\n'),
    entriesOn('application', 'bootstrap/app.ts', ['tests/integration/comfy-v2-guards.test.ts'])('a second stop closes the database again (and fails)', '      stopping ??= (async () => {', '      stopping = (async () => {'),
    entry('a worker process builds and listens on the HTTP server too', "  if (config.roles.includes('api')) {\n    const { all: checks, readiness }", "  if (true as boolean) {\n    const { all: checks, readiness }"),
    entry('every part starts whatever the roles (an api process runs jobs)', '.filter((part) => part.roles.some((role) => config.roles.includes(role)));', '.filter(() => true);'),
    entry('the migration is retried for ever', '      if (attempt >= attempts) throw error;\n', ''),
    entry('the migration is not retried', '      if (attempt >= attempts) throw error;\n', '      throw error;\n'),
    entry("S3's public endpoint not allowed (the internal endpoint is)", 'const endpoint = storage.publicEndpoint ?? storage.endpoint;', 'const endpoint = storage.endpoint;'),
    entry("S3's endpoint not allowed when it is the only one", 'const endpoint = storage.publicEndpoint ?? storage.endpoint;', 'const endpoint = storage.publicEndpoint;'),
    entry("no AWS host allowed for a bucket on AWS", "    else origins.push(`https://${storage.bucket}.s3.${storage.region}.amazonaws.com`, `https://s3.${storage.region}.amazonaws.com`);\n", ''),
  ];
}

/** bootstrap/config/engine.ts: each variable's bounds (one step wider at either end), the URL alias check, the token, the slot cap. */
function engineConfigMutations(): Mutation[] {
  const entry = entriesOn('engine config', 'bootstrap/config/engine.ts', ['tests/unit/engine-config.test.ts']);
  // [variable, its default, lowest, highest]: each bound is widened by one step.
  const bounds: [string, string, number, number][] = [
    ['COMFYUI_TIMEOUT_MS', '30_000', 100, 3_600_000],
    ['COMFYUI_JOBS_PER_SERVER', '1', 1, 64],
    ['COMFYUI_WAIT_MS', '60_000', 0, 3_600_000],
    ['COMFYUI_FAILOVER_MS', '3_000', 100, 3_600_000],
    ['COMFYUI_PROBE_MS', '2_000', 100, 600_000],
    ['COMFYUI_CATALOG_REFRESH_MS', '60_000', 0, 86_400_000],
    ['COMFYUI_AFFINITY_WAIT_MS', '15_000', 0, 3_600_000],
    ['COMFYUI_DISPATCH_LOOKAHEAD', 'Math.max(1, urls.length)', 0, 64],
    ['ENGINE_MEMORY_MB', '2048', 64, 65_536],
  ];
  const spelt = (n: number) => n.toLocaleString('en').replaceAll(',', '_');
  const call = (variable: string, fallback: string, min: number, max: number) => `read.int('${variable}', ${fallback}, ${spelt(min)}, ${spelt(max)})`;
  return [
    ...bounds.flatMap(([variable, fallback, min, max]) => [
      entry(`${variable} takes one below its lowest value`, call(variable, fallback, min, max), call(variable, fallback, min - 1, max)),
      entry(`${variable} takes one above its highest value`, call(variable, fallback, min, max), call(variable, fallback, min, max + 1)),
    ]),
    entry('COMFYUI_URLS and COMFYUI_URL that agree are refused', " && plural.join(',') !== alias.join(',')) {", ') {'),
    entry('an unset COMFYUI_TOKEN is carried as a token', '      ...(token ? { token } : {}),', '      token,'),
    entry('no cap on the slots of one worker', 'Math.min(64, Math.max(1, engine.urls.length) * engine.jobsPerServer)', 'Math.max(1, engine.urls.length) * engine.jobsPerServer'),
  ];
}

