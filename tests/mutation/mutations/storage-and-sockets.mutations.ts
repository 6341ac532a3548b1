import { entriesOn, type Mutation } from '../mutation.ts';

const GATEWAY = 'adapters/ws/ws-gateway.ts';
const UPGRADE = 'adapters/ws/upgrade-request.ts';
const WS_AUDIT = 'tests/integration/ws-audit.test.ts';
const UPGRADE_UNIT = 'tests/unit/upgrade-request.test.ts';

const FILES = 'adapters/http/routes/files.routes.ts';
const LOCAL = 'adapters/local-storage/local-object-storage.ts';
const MEMORY = 'adapters/memory/memory-object-storage.ts';
const VIEW = 'adapters/comfyui-protocol-server/view-variants.ts';
const STORAGE_AUDIT = 'tests/integration/storage-audit.test.ts';

const files = entriesOn('storage audit', FILES, [STORAGE_AUDIT]);
const local = entriesOn('storage audit', LOCAL, [STORAGE_AUDIT]);
const memory = entriesOn('storage audit', MEMORY, [STORAGE_AUDIT]);
const view = entriesOn('storage audit', VIEW, [STORAGE_AUDIT]);
const S3 = 'adapters/s3/s3-object-storage.ts';
const s3 = entriesOn('s3 audit', S3, [STORAGE_AUDIT]);
const REDIS_BUS = 'adapters/redis/redis-event-bus.ts';
const bus = entriesOn('bus audit', REDIS_BUS, [WS_AUDIT]);
const gateway = entriesOn('ws audit', GATEWAY, [WS_AUDIT]);
const upgrade = entriesOn('ws audit', UPGRADE, [WS_AUDIT, UPGRADE_UNIT]);

export const MUTATIONS: Mutation[] = [
  // --- adapters/ws/ws-gateway.ts ---
  gateway('a binary frame is read as a JSON message', "    if (isBinary) return this.sendError(client, 'Binary messages are not supported; send JSON text');\n", ''),
  gateway('a message that is not JSON gets no reply', "      return this.sendError(client, 'Message is not valid JSON');", '      return;'),
  // Deleting this check outright crashes the process on {"type":7} (message.type.slice): the runner calls that
  // "crashed", so the entry weakens the answer instead.
  gateway('a JSON message without a string type gets no reply', "return this.sendError(client, 'Message must be a JSON object with a string \"type\"');", 'return;'),
  gateway('an unknown message type is taken for a sync', "    if (message.type !== 'sync') return this.sendError(client, `Unknown message type", "    if (false) return this.sendError(client, `Unknown message type"),
  gateway('a sync with since null is refused as an invalid since', 'const since = message.since ?? undefined;', 'const since = message.since;'),
  gateway('an in-band auth keeps the old expiry: the socket closes when its first token expires', "    this.expireAt(client, claims.expiresAt);\n    this.send(client, JSON.stringify({ type: 'auth.ok'", "    this.send(client, JSON.stringify({ type: 'auth.ok'"),
  gateway('a renewed expiry leaves the old expiry timer armed (the socket closes at the old expiry)', '    if (client.expiry) clearTimeout(client.expiry);\n    const delay', '    const delay'),
  gateway('an in-band token over 8 KiB is sent to authentication', ' || token.length > 8192) return', ') return'),
  gateway('an in-band auth with no token string breaks instead of getting an error', "if (typeof token !== 'string' || token.length === 0", 'if (token.length === 0'),
  gateway('an in-band auth whose authentication throws gets no reply', 'const claims = await this.deps.authenticate(token).catch(() => null);', 'const claims = await this.deps.authenticate(token);'),
  gateway('an upgrade whose authentication throws is left hanging instead of 500', "      rejectUpgrade(socket, 500, 'Internal Server Error');\n", ''),
  gateway('the gateway claims upgrades to every path (the ComfyUI /ws among them)', '    if (!WS_PATHS.includes(pathOf(req.url))) return;\n', ''),
  gateway('a request without Origin (not a browser) is refused with 403', 'if (origin !== undefined && !sameOrigin(origin, req.headers.host)) {', 'if (!sameOrigin(origin as string, req.headers.host)) {'),
  gateway('CORS_ORIGINS entries are compared as written (https://App.Example.com/ never matches)', 'new Set(deps.allowedOrigins.map(normalizeOrigin).filter(', 'new Set(deps.allowedOrigins.map((origin) => origin).filter('),
  gateway('a page served by the service itself is refused its socket', '    return new URL(origin).host.toLowerCase() === host.toLowerCase();', '    return false;'),
  gateway('a socket that answers pings is dropped anyway', '    ws.on(\'pong\', () => {\n      client.alive = true;\n    });', "    ws.on('pong', () => {});"),
  gateway('stopping drops the sockets (1006) instead of closing them with 1001', "    for (const ws of sockets) ws.close(GOING_AWAY, 'server shutting down');\n", ''),
  gateway('a stopped gateway stays subscribed to the bus', '    for (const unsubscribe of unsubscribes) {', '    for (const unsubscribe of [] as typeof unsubscribes) {'),
  gateway('a stopped gateway keeps its bus reconnect listener', '    this.forgetReconnects?.();\n', ''),
  gateway('stopping a stopped gateway throws', '    if (!this.server) return;\n    this.stopping = true;', '    this.stopping = true;'),
  gateway('a second start subscribes again and claims each upgrade twice', "    if (this.server) throw new Error('the WebSocket gateway is already started');\n", ''),
  gateway('a user event for a user with no socket makes the bus handler throw', '    if (!clients) return;\n    const text = eventText', '    const text = eventText'),
  // --- adapters/ws/upgrade-request.ts ---
  upgrade('the path check keeps the query: /api/v1/ws?x=1 is not the gateway', 'return end < 0 ? raw : raw.slice(0, end);', 'return raw;'),
  upgrade('a quoted access cookie is read with its quotes', "    if (value.startsWith('\"') && value.endsWith('\"') && value.length >= 2) value = value.slice(1, -1);\n", ''),
  upgrade('a percent-encoded access cookie is not decoded', '      return decodeURIComponent(value);', '      return value;'),
  upgrade('an access cookie with a malformed escape is no token', '    } catch {\n      return value;\n    }', '    } catch {\n      return null;\n    }'),
  upgrade('the Bearer header is ignored (only the cookie counts)', "  if (header?.startsWith('Bearer ')) return header.slice(7).trim() || null;\n", ''),
  // --- adapters/http/routes/files.routes.ts ---
  files('files: a link with a bad signature is not refused with 403', '  if (!verdict.ok) {', '  if (false) {'),
  files('files: a Range on an empty file is 416 instead of the empty file', "if (!req.headers.range || file.sizeBytes === 0) return 'whole';", "if (!req.headers.range) return 'whole';"),
  files('files: If-Range with the current ETag gets the whole file instead of the range', 'if (ifRange && ifRange !== etag && Date.parse', 'if (ifRange && Date.parse'),
  files('files: a multi-range request is served its first range only', " || ranges.type !== 'bytes' || ranges.length !== 1) return 'whole';", " || ranges.type !== 'bytes') return 'whole';"),
  files('files: a Range in a unit other than bytes is served as bytes', "ranges === undefined || ranges.type !== 'bytes' ||", 'ranges === undefined ||'),
  files('files: a conditional request for the current version gets the whole file again, not 304', '  if (req.fresh) {', '  if (false) {'),
  files('files: a served file lacks Cross-Origin-Resource-Policy (the front end cannot embed it)', "  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');\n", ''),
  files('files: a served file lacks Last-Modified', "  res.setHeader('Last-Modified', file.modifiedAt.toUTCString());\n", ''),
  files('files: a served file lacks its ETag (no revalidation, no If-Range)', "  res.setHeader('ETag', etag);\n", ''),
  files('files: a 206 announces the whole file length (the download breaks)', "range === 'whole' ? file.sizeBytes : range.end - range.start + 1", 'file.sizeBytes'),
  files('files: a 416 does not name the file size in Content-Range', "    res.setHeader('Content-Range', `bytes */${file.sizeBytes}`);\n", ''),
  // --- adapters/local-storage/local-object-storage.ts ---
  local('local storage: head of a missing key throws instead of null', '      if (isMissing(error)) return null;\n      throw error;\n    }\n  }\n\n  async delete(', '      throw error;\n    }\n  }\n\n  async delete('),
  local('local storage: opening a missing key throws instead of null (files route 500, get throws)', '      if (isMissing(error)) return null;\n      throw error;\n    }\n    try {', '      throw error;\n    }\n    try {'),
  local('local storage: deleting a missing key throws', '        if (!isMissing(error)) throw error;', '        throw error;'),
  local('local storage: a key below an object (a/b.png/c) throws instead of being missing', "['ENOENT', 'ENOTDIR', 'EISDIR']", "['ENOENT']"),
  local('local storage: delete leaves the sidecar (and so the folder) behind', 'for (const file of [target, this.metaPath(target)]) {', 'for (const file of [target]) {'),
  local('local storage: delete leaves empty folders behind', '    await this.pruneEmptyFolders(path.dirname(target));\n', ''),
  local('local storage: a sidecar with a non-string or empty type is served as that type', "return typeof meta.contentType === 'string' && meta.contentType ? meta.contentType : FALLBACK_TYPE;", 'return meta.contentType as string;'),
  local('local storage: an object without a readable sidecar cannot be read', '    } catch {\n      return FALLBACK_TYPE;\n    }', '    } catch (error) {\n      throw error;\n    }'),
  local('local storage: check fails on a storage folder not created yet', '    await mkdir(this.root, { recursive: true });\n', ''),
  // --- adapters/memory/memory-object-storage.ts ---
  memory('memory storage: put takes a bad key', '    assertStorageKey(key);\n    if (!info.contentType)', '    if (!info.contentType)'),
  memory('memory storage: get takes a bad key', '    assertStorageKey(key);\n    const object = this.objects.get(key);\n    if (!object) return null;', '    const object = this.objects.get(key);\n    if (!object) return null;'),
  memory('memory storage: head takes a bad key', '    assertStorageKey(key);\n    const object = this.objects.get(key);\n    return object ?', '    const object = this.objects.get(key);\n    return object ?'),
  memory('memory storage: delete takes a bad key', '    assertStorageKey(key);\n    this.objects.delete(key);', '    this.objects.delete(key);'),
  memory('memory storage: signedUrl takes a bad key', '    assertStorageKey(key);\n    const query', '    const query'),
  memory('memory storage: a put without a content type is stored', "    if (!info.contentType) throw new Error('put needs a content type');\n", ''),
  memory('memory storage: a body of another length than announced is stored', 'if (info.contentLength !== undefined && bytes.length !== info.contentLength) {', 'if (false) {'),
  memory('memory storage: the stored object shares the caller’s buffer', 'bytes = Buffer.from(body);', 'bytes = body;'),
  memory('memory storage: signed URLs carry the key unencoded', "key.split('/').map(encodeURIComponent).join('/')", 'key'),
  memory('memory storage: signed URLs carry type=undefined when no type was asked', '...(options.contentType ? { type: options.contentType } : {}),', 'type: String(options.contentType),'),
  memory('memory storage: signed URL expiry ignores the injected clock', 'Math.floor(this.now().getTime() / 1000)', 'Math.floor(Date.now() / 1000)'),
  // --- adapters/comfyui-protocol-server/view-variants.ts ---
  view('stand-in view: a plain /view (no channel) is re-encoded as an rgb PNG', "if ((channelParam ?? 'rgba') === 'rgb') {", "if ((channelParam ?? 'rgb') === 'rgb') {"),
  view('stand-in view: a jpeg preview without a channel is webp', "const channel = channelParam ?? '';", "const channel = channelParam ?? 'rgba';"),
  view('stand-in view: an unknown preview format is sent under its own name', "(parts[0] === 'webp' || parts[0] === 'jpeg') && !channel", '!channel'),
  view('stand-in view: a preview without a quality is not encoded at 90', 'Number(last))) : 90;', 'Number(last))) : 80;'),
  // --- adapters/redis/redis-event-bus.ts ---
  bus('redis bus: without a prefix option the bus listens on the bare channel names (other applications’ messages arrive)', "this.prefix = options.prefix ?? 'mgs:';", "this.prefix = options.prefix ?? '';"),
  bus('redis bus: a foreign message is reported under the prefixed Redis channel name', 'const channel = key.slice(this.prefix.length);', 'const channel = key;'),
  // No entry for quit()'s `redis.status !== 'ready'` check: ioredis answers a QUIT on a connection that is not ready
  // at once by itself (seen surviving in the runner), so the check changes nothing a caller sees.
  // --- adapters/s3/s3-object-storage.ts ---
  s3('s3 storage: an S3-compatible endpoint is addressed virtual-host style (bucket.host: unreachable)', 'forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),', 'forcePathStyle: options.forcePathStyle ?? false,'),
  s3('s3 storage: presigned URLs carry the internal endpoint instead of S3_PUBLIC_ENDPOINT', 'this.presigner = options.publicEndpoint ? new S3Client({ ...config, endpoint: options.publicEndpoint }) : this.client;', 'this.presigner = this.client;'),
  // Without the listener, a body whose caller does not listen for errors crashes the process (uncaught 'error');
  // the test's body has a listener of its own, so the put is seen hanging instead.
  s3('s3 storage: a failing body stream leaves the put hanging', '    body.on(\'error\', (error) => counter.destroy(error));\n', ''),
  s3('s3 storage: the configured KMS key is not sent with writes', '...(kmsKeyId ? { SSEKMSKeyId: kmsKeyId } : {})', ''),
  // --- string chunks (added after the first storage run) ---
  local('local storage (utf8): a string chunk is counted in characters, not bytes', "const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;", 'const bytes = chunk as Buffer;'),
  memory('memory storage (utf8): a string chunk is kept as a string (the put fails)', 'const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);', 'const piece = chunk as Buffer;'),
  // --- envelope checks (added after the first ws run) ---
  gateway('(envelope) a user event with a fractional seq is sent', "typeof payload.userId !== 'string' || !Number.isSafeInteger(payload.seq)) return null;", "typeof payload.userId !== 'string' || typeof payload.seq !== 'number') return null;"),
  gateway('(envelope) a user event without a type is sent', "if (!isRecord(payload.event) || typeof payload.event.type !== 'string') return null;", 'if (!isRecord(payload.event)) return null;'),
];
