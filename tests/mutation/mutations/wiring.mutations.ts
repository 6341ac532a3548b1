import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the bootstrap wiring (which adapter each configuration binds), the admin and chat routes, the JSON shape
 * helpers, the OpenID Connect adapter, the builtin engine's video nodes and the ComfyUI protocol stand-in's server.
 */
const COINS_TEST = 'tests/integration/coins.test.ts';
const CHAT_TEST = 'tests/integration/chat.test.ts';
const ROUTES_AUDIT = 'tests/integration/admin-chat-routes-audit.test.ts';
const admin = (tests: string[]) => entriesOn('wiring: admin routes', 'adapters/http/routes/admin.routes.ts', tests);
const chat = (tests: string[]) => entriesOn('wiring: chat route', 'adapters/http/routes/chat.routes.ts', tests);
const VIDEO_AUDIT = 'tests/unit/video-nodes-audit.test.ts';
const video = (tests: string[]) => entriesOn('wiring: video nodes', 'adapters/builtin-engine/nodes/video-nodes.ts', tests);
const PROTOCOL_AUDIT = 'tests/integration/comfy-protocol-server-audit.test.ts';
const protocol = (tests: string[]) => entriesOn('wiring: comfyui protocol server', 'adapters/comfyui-protocol-server/comfy-protocol-server.ts', tests);
const OIDC_AUDIT = 'tests/integration/oidc-providers-audit.test.ts';
const oidc = entriesOn('wiring: oidc', 'adapters/openid/openid-client-providers.ts', [OIDC_AUDIT]);
const WIRING_AUDIT = 'tests/integration/wiring-audit.test.ts';
const events = (tests: string[]) => entriesOn('wiring: events module', 'bootstrap/modules/events.module.ts', tests);
const storage = entriesOn('wiring: storage module', 'bootstrap/modules/storage.module.ts', [WIRING_AUDIT]);
const social = entriesOn('wiring: social module', 'bootstrap/modules/social.module.ts', [WIRING_AUDIT]);
const generation = entriesOn('wiring: generation module', 'bootstrap/modules/generation.module.ts', [WIRING_AUDIT]);
const socialConfig = (tests: string[]) => entriesOn('wiring: social config', 'bootstrap/config/social.ts', tests);
const jsonShape = entriesOn('wiring: json shape', 'adapters/http/json-shape.ts', ['tests/unit/json-shape.test.ts']);

export const MUTATIONS: Mutation[] = [
  // adapters/http/routes/admin.routes.ts
  admin([COINS_TEST])("a non-admin adds or takes a user's coins", "        tag: 'admin',\n        auth: 'admin',\n        validate:", "        tag: 'admin',\n        auth: 'access',\n        validate:"),
  admin([COINS_TEST])('a non-admin lists every user', "      auth: 'admin',\n      query: { ...pageQuery, q:", "      auth: 'access',\n      query: { ...pageQuery, q:"),
  admin([COINS_TEST])("a non-admin reads another user's coin ledger", "      auth: 'admin',\n      query: pageQuery,\n      responses: { 200: { description: 'A page of transactions'", "      auth: 'access',\n      query: pageQuery,\n      responses: { 200: { description: 'A page of transactions'"),
  admin([COINS_TEST])("a non-admin reads the administrators' audit log", "      auth: 'admin',\n      query: pageQuery,\n      responses: { 200: { description: 'A page of audit entries'", "      auth: 'access',\n      query: pageQuery,\n      responses: { 200: { description: 'A page of audit entries'"),

  admin([ROUTES_AUDIT])("an admin reading a user's ledger by an upper-case id gets a 404", 'execute({ userId: userId.toLowerCase(), page: req.query.page, limit: req.query.limit });', 'execute({ userId, page: req.query.page, limit: req.query.limit });'),
  admin([ROUTES_AUDIT])('a user list page out of range is a 500, not a 400', '      if (!result.ok) return sendFail(res, result);\n      res.json({ ...result.value, items: result.value.items.map(userDto) });', '      res.json({ ...result.value, items: result.value.items.map(userDto) });'),
  admin([ROUTES_AUDIT])('a ledger page out of range is a 500, not a 400', '      if (!result.ok) return sendFail(res, result);\n      res.json({ ...result.value, items: result.value.items.map(transactionDto) });', '      res.json({ ...result.value, items: result.value.items.map(transactionDto) });'),
  admin([ROUTES_AUDIT])('an audit page out of range is a 500, not a 400', '      if (!result.ok) return sendFail(res, result);\n      res.json({ ...result.value, items: result.value.items.map(auditEntryDto) });', '      res.json({ ...result.value, items: result.value.items.map(auditEntryDto) });'),

  // adapters/http/routes/chat.routes.ts
  chat([CHAT_TEST])('the chat answers without a session', "      tag: 'chat',\n      auth: 'access',", "      tag: 'chat',\n      auth: 'public',"),
  chat([CHAT_TEST])('a 429 carries no Retry-After', "if ('retryAfterSeconds' in result && result.retryAfterSeconds) res.setHeader(", "if (false as boolean) res.setHeader("),
  chat([CHAT_TEST])('Accept: text/event-stream does not stream', "const stream = (req.get('accept') ?? '').includes('text/event-stream');", 'const stream = false as boolean;'),
  chat([CHAT_TEST])('a failure after the stream began is sent as a status the client can no longer get', '        if (res.headersSent) {\n', '        if (false as boolean) {\n'),
  chat([CHAT_TEST])('the stream headers are set again for every piece (the second piece fails)', '        if (!res.headersSent) res.status(200).set(', '        res.status(200).set('),

  chat([CHAT_TEST])('a plain request is answered as a stream', '      if (!stream) return void res.json({ response: result.value.response });\n', ''),
  chat([CHAT_TEST])('a plain request streams its pieces', '...(stream ? { onText } : {})', '...{ onText }'),
  chat([ROUTES_AUDIT])('a streamed answer with no piece is sent without the event-stream headers', "      begin();\n      event('done',", "      event('done',"),

  // adapters/http/json-shape.ts
  jsonShape('a scalar counts as one level of nesting', "    if (current === null || typeof current !== 'object') continue;\n", ''),
  jsonShape('an array is written with a comma before its first item', "        stack.push({ value: current[i] });\n        if (i > 0) stack.push({ text: ',' });", "        stack.push({ value: current[i] });\n        stack.push({ text: ',' });"),
  jsonShape('an object is written with a comma before its first member', "        stack.push({ text: `${JSON.stringify(key)}:` });\n        if (i > 0) stack.push({ text: ',' });", "        stack.push({ text: `${JSON.stringify(key)}:` });\n        stack.push({ text: ',' });"),

  // adapters/builtin-engine/nodes/video-nodes.ts
  video([VIDEO_AUDIT])('CreateVideo makes a video longer than the video length limit', '      ensureSeconds(ctx.env, video.frames.frames.length / video.fps);\n', ''),
  video([VIDEO_AUDIT])('SaveWEBM encodes a clip longer than the video length limit', "      ensureSeconds(ctx.env, img.frames.length / (i['fps'] as number));\n", ''),
  video(['tests/unit/builtin-video.test.ts'])("CreateVideo drops the audio it is given (a silent mp4)", "      if (audio?.kind === 'AUDIO') video.audio = audio;\n", ''),
  video(['tests/unit/builtin-video.test.ts'])('SaveVideo does not pad odd sizes to even (yuv420p refuses them)', "            '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2',\n", ''),
  video([VIDEO_AUDIT])('SaveWEBM with codec av1 writes VP9', "const av1 = i['codec'] === 'av1';", 'const av1 = false as boolean;'),
  video([VIDEO_AUDIT])('the video encoders report no per-frame progress', '  ctx.progress(k + 1, n);\n', ''),
  video([VIDEO_AUDIT])("SaveVideo leaves each video's raw audio in the temp folder", '        if (audio) await rm(audio.file, { force: true });\n', ''),

  // adapters/comfyui-protocol-server/comfy-protocol-server.ts
  protocol([PROTOCOL_AUDIT])('a WebSocket upgrade on any path is accepted', '  if (!WS_PATHS.has(url.pathname)) {\n', '  if (false as boolean) {\n'),
  protocol([PROTOCOL_AUDIT])('the WebSocket is not served at /api/ws', "const WS_PATHS = new Set(['/ws', '/api/ws']);", "const WS_PATHS = new Set(['/ws']);"),
  protocol(['tests/integration/comfy-protocol-server.test.ts'])('a WebSocket from a foreign Origin to a loopback Host is accepted', '  if (await isForeignOrigin(req.headers.host, req.headers.origin)) {\n', '  if (false as boolean) {\n'),
  protocol(['tests/integration/comfy-protocol-server.test.ts'])('the HTTP routes are not served under /api', "  app.use('/api', routes);\n", ''),
  protocol([PROTOCOL_AUDIT])('the temp folder keeps old previews across a restart', '      await rm(dirs.temp, { recursive: true, force: true });\n', ''),
  protocol([PROTOCOL_AUDIT])("idle connections close after Node's 5 s, racing a client's reuse", 'createServer({ keepAliveTimeout: 75_000 }, app)', 'createServer({}, app)'),
  protocol([PROTOCOL_AUDIT])('the upload limit has no 100 MB default', 'const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;', 'const DEFAULT_MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;'),

  // adapters/openid/openid-client-providers.ts
  oidc('the email and name are not read from userinfo (code-flow ID tokens carry neither)', "if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {", 'if (false as boolean) {'),
  oidc("a provider's name is kept with its surrounding spaces", 'name: name?.trim() ?? null,', 'name: name ?? null,'),
  oidc('a blank name is taken as the name', "typeof value === 'string' && value.trim().length > 0);", "typeof value === 'string');"),
  oidc('a refused callback throws instead of answering a failure', '    try {\n      const config = await this.configuration(provider);', '    {\n      const config = await this.configuration(provider);', [
    { file: 'adapters/openid/openid-client-providers.ts', find: '    } catch (error) {\n      return { ok: false, cause: describe(error) };\n    }\n', replace: '    }\n' },
  ]),
  oidc('any provider name is taken as configured', '    return this.settings.has(provider);', '    return true;'),
  oidc('a plain-http issuer (allowed by configuration) cannot be reached', '        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),\n', ''),

  // bootstrap/modules/events.module.ts
  events([WIRING_AUDIT])('EVENT_BUS_DRIVER=memory binds the Redis bus', "      if (bus.driver === 'redis') {\n        return new RedisEventBus(", '      if (true as boolean) {\n        return new RedisEventBus('),
  events([WIRING_AUDIT])('EVENT_BUS_DRIVER=rabbitmq binds the in-process bus (no events across processes)', "      if (bus.driver === 'rabbitmq') {\n        return new RabbitEventBus(", '      if (false as boolean) {\n        return new RabbitEventBus('),
  events([WIRING_AUDIT])('the RabbitMQ bus has no events health check', "  if (bus.driver === 'rabbitmq') {\n    container.bind(TOKENS.HealthCheck)", '  if (false as boolean) {\n    container.bind(TOKENS.HealthCheck)'),
  events([WIRING_AUDIT])('the RabbitMQ bus is not opened at start', "      if (bus.driver === 'rabbitmq') {\n        const rabbit = rabbitBus();", '      if (false as boolean) {\n        const rabbit = rabbitBus();'),
  events([WIRING_AUDIT])("an unreachable broker for the bus fails start-up with the library's bare error", "        await rabbit?.open().catch(async (error: unknown) => {\n          await rabbit.close();\n          throw new Error(`EVENT_BUS_DRIVER=rabbitmq: RabbitMQ (AMQP_URL) is not reachable: ${(error as Error).message}`);\n        });", '        await rabbit?.open();'),
  events(['tests/integration/event-bus-startup.test.ts'])('the Redis bus has no events health check', "  if (bus.driver === 'redis') {\n    container.bind(TOKENS.HealthCheck)", '  if (false as boolean) {\n    container.bind(TOKENS.HealthCheck)'),
  events(['tests/integration/event-bus-startup.test.ts'])('a single-role process with the in-process bus does not warn that events stay in it', '      } else if (config.roles.length === 1) {', '      } else if (false as boolean) {'),

  // bootstrap/modules/storage.module.ts
  storage('STORAGE_DRIVER=s3 binds the local store', "  if (storageConfig.driver === 's3') {\n    container", '  if (false as boolean) {\n    container'),
  storage('with S3 a local files route is served (and fails)', "...(config.storage.driver === 's3' ? [] : [filesRoutesOf(", '...(false as boolean ? [] : [filesRoutesOf('),
  storage('S3_ENDPOINT is not passed on (the store is looked for at AWS)', '            ...(storageConfig.endpoint ? { endpoint: storageConfig.endpoint } : {}),\n', ''),
  storage('the configured S3 keys are not passed on', '            ...(storageConfig.credentials ? { credentials: storageConfig.credentials } : {}),\n', ''),

  // bootstrap/modules/social.module.ts
  social('YouTube is a platform without its credentials', '  if (social.youtube) clients.set(', '  if (true as boolean) clients.set('),
  social('TikTok is a platform without its credentials', '  if (social.tiktok) {\n', '  if (true as boolean) {\n'),

  // bootstrap/modules/generation.module.ts
  generation('ENGINE_DRIVER=builtin binds a ComfyUI engine', "  if (engine.driver === 'builtin') {\n    container\n      .bind(TOKENS.Engine)", '  if (false as boolean) {\n    container\n      .bind(TOKENS.Engine)'),
  generation('an api-only process checks the GPU servers in /health (unhealthy without them)', "  if (config.roles.includes('worker')) {\n    container.bind(TOKENS.HealthCheck)", '  if (true as boolean) {\n    container.bind(TOKENS.HealthCheck)'),
  generation('the ComfyUI node catalogue is a second engine with its own connections and refreshes', '  container.bind(TOKENS.NodeCatalog).toDynamicValue(() => container.get<ComfyEngine>(COMFY_ENGINE));', '  container.bind(TOKENS.NodeCatalog).toDynamicValue(() => createComfyEngine(engine, undefined));'),

  // bootstrap/config/social.ts
  socialConfig(['tests/unit/social-config.test.ts'])('a platform with neither value set is reported as missing one', '    if (!id && !secret) return null;\n', ''),
  socialConfig(['tests/unit/social-config.test.ts'])('a half-set platform names the value that is set as missing', '`${id ? secretName : idName} is required when ${id ? idName : secretName} is set`', '`${idName} is required when ${secretName} is set`'),
  socialConfig(['tests/unit/social-config-audit.test.ts'])('TikTok alone runs without TOKEN_ENCRYPTION_KEY in production', '  if (!given && (youtube || tiktok)) {', '  if (!given && youtube) {'),
  socialConfig(['tests/unit/social-config-audit.test.ts'])('SOCIAL_TIMEOUT_MS takes one above its highest value', "read.int('SOCIAL_TIMEOUT_MS', 30_000, 100, 600_000)", "read.int('SOCIAL_TIMEOUT_MS', 30_000, 100, 600_001)"),
  socialConfig(['tests/unit/social-config-audit.test.ts'])('TIKTOK_POLL_INTERVAL_MS takes one above its highest value', "read.int('TIKTOK_POLL_INTERVAL_MS', 5_000, 10, 600_000)", "read.int('TIKTOK_POLL_INTERVAL_MS', 5_000, 10, 600_001)"),
];
