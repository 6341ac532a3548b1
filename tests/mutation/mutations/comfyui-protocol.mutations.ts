import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the ComfyUI protocol on both sides: the production path that follows a prompt on a real ComfyUI (its watch
 * and its HTTP client), and the protocol stand-in (the builtin engine behind ComfyUI's HTTP and WebSocket API) that the
 * tests and `comfy-serve` use.
 */
const watch = entriesOn('comfyui protocol', 'adapters/comfyui/prompt-watch.ts', ['tests/unit/prompt-watch.test.ts']);
const client = entriesOn('comfyui protocol', 'adapters/comfyui/comfy-client.ts', ['tests/unit/comfy-client.test.ts']);
const STAND_IN = 'adapters/comfyui-protocol-server';
const PROMPTS_TEST = 'tests/integration/comfy-protocol-prompts.test.ts';
const SOCKET_TEST = 'tests/integration/comfy-protocol-socket.test.ts';
const FILES_TEST = 'tests/integration/comfy-protocol-files.test.ts';
/** The older suite of the stand-in, for guards it already pins. */
const SERVER_TEST = 'tests/integration/comfy-protocol-server.test.ts';
const py = entriesOn('comfyui protocol: the stand-in', `${STAND_IN}/py-values.ts`, ['tests/unit/comfy-py-values.test.ts']);
const routes = (tests: string[]) => entriesOn('comfyui protocol: the stand-in', `${STAND_IN}/prompt-routes.ts`, tests);
const hub = (tests: string[]) => entriesOn('comfyui protocol: the stand-in', `${STAND_IN}/ws-hub.ts`, tests);
const origin = entriesOn('comfyui protocol: the stand-in', `${STAND_IN}/origin-check.ts`, ['tests/unit/comfy-origin-check.test.ts']);
const executor = (tests: string[]) => entriesOn('comfyui protocol: the stand-in', `${STAND_IN}/prompt-executor.ts`, tests);
const files = (tests: string[]) => entriesOn('comfyui protocol: the stand-in', `${STAND_IN}/file-routes.ts`, tests);

const serve = entriesOn('comfyui protocol: comfy-serve', 'bootstrap/comfy-serve.ts', ['tests/integration/comfy-serve.test.ts']);

export const MUTATIONS: Mutation[] = [
  // adapters/comfyui/prompt-watch.ts
  watch('a text frame of valid JSON that is no object (null) throws in the socket handler and crashes the worker', "    if (message === null || typeof message !== 'object') return;\n", ''),
  watch(
    'a prompt just queued is polled before its end event though its socket is live',
    'const outcome = first && !this.socketDown && cancelledAt === null ? null : await this.look();',
    'const outcome = await this.look();',
  ),
  watch(
    'the end event shows as a step of node "null" and does not wake the watch',
    "if (data['node'] === null || data['node'] === undefined) {",
    "if (data['node'] === undefined) {",
  ),
  watch('an end event that comes while the watch looks is lost (the job waits for the slow poll)', '    else this.poked = true;', ''),
  watch('a poke that came while the watch looked is not acted on', 'if (this.poked) {', 'if (false as boolean) {'),
  watch(
    'the watch opens a new socket at every look and leaves the old ones open',
    'if (this.socketDown) await this.reconnect().catch(() => undefined);',
    'await this.reconnect().catch(() => undefined);',
  ),
  watch(
    'a dropped socket is never reopened (the events after the drop are lost)',
    'if (this.socketDown) await this.reconnect().catch(() => undefined);',
    'if (false as boolean) await this.reconnect().catch(() => undefined);',
  ),
  watch(
    'a socket that cannot reopen counts as an unreachable server (the job fails over though HTTP answers)',
    'if (this.socketDown) await this.reconnect().catch(() => undefined);',
    'if (this.socketDown) await this.reconnect();',
  ),
  watch('a watch started without a socket never opens one', '    else this.socketDown = true;', ''),
  watch('a socket that opens after the watch was closed stays open and passes events on', '    if (this.ended) {\n      socket.close();\n      return;\n    }\n', ''),
  watch('frames that arrive after the watch ended reach the job', "      socket.removeAllListeners('message');\n", ''),
  watch(
    'a frame that is not JSON throws in the socket handler',
    '    try {\n      message = JSON.parse(raw.toString()) as typeof message;\n    } catch {\n      return;\n    }',
    '    message = JSON.parse(raw.toString()) as typeof message;',
  ),
  watch('a frame without data throws in the socket handler', 'const data = message.data ?? {};', 'const data = message.data as Record<string, unknown>;'),
  watch(
    'an execution_cached frame without a node list throws in the socket handler',
    "for (const node of Array.isArray(data['nodes']) ? data['nodes'] : [])",
    "for (const node of data['nodes'] as unknown[])",
  ),
  watch('a prompt with nothing cached says "0 cached nodes"', 'if (this.cached.size > 0) onEvent(', 'if (true as boolean) onEvent('),
  watch(
    "a node's own steps are mixed into the prompt's percent",
    "if (!this.snapshots && typeof data['value'] === 'number'",
    "if (typeof data['value'] === 'number'",
  ),
  watch(
    'a progress frame without numbers shows as a step',
    "&& typeof data['value'] === 'number' && typeof data['max'] === 'number') {",
    ') {',
  ),
  watch('a cached node counts twice in the percent', 'if (this.cached.has(id)) continue;', ''),
  watch('a running node without a step count makes the percent NaN', '&& node.max > 0) {', ') {'),
  watch(
    'the percent goes past 100',
    'const percent = Math.min(100, Math.floor((done / total) * 100));',
    'const percent = Math.floor((done / total) * 100);',
  ),
  watch('the percent goes back and repeats itself', 'if (percent <= this.lastPercent) return;', ''),
  watch('a prompt that failed on the server counts as a success', 'if (failure) return { ok: false, error: failure, transient: false };', ''),
  watch(
    'a failure on the server is reported as a cancel there',
    "!result.ok && result.error.code === 'ENGINE.INTERRUPTED'",
    '!result.ok',
  ),
  watch('an output file gone from the server is waited on as an outage', 'if (!(error instanceof ComfyUnavailable)) throw error;', ''),
  watch('two short outages far apart add up to a failover', '          unreachableSince = null;\n', ''),
  watch(
    'a server that stays unreachable is waited for without end (the window restarts at each failed look)',
    'unreachableSince ??= Date.now();',
    'unreachableSince = Date.now();',
  ),
  watch(
    'without a socket the watch polls at the slow cadence',
    'this.socketDown || unreachableSince !== null ? this.options.pollMs',
    'unreachableSince !== null ? this.options.pollMs',
  ),
  watch(
    'after a failed look the watch waits the slow cadence',
    'this.socketDown || unreachableSince !== null ? this.options.pollMs',
    'this.socketDown ? this.options.pollMs',
  ),
  watch('a cancel waits for the next poll', "signal?.addEventListener('abort', onAbort);", ''),
  watch('a cancelled prompt is confirmed only at the slow cadence', 'if (this.request.signal?.aborted) ms = Math.min(ms, this.options.pollMs);', ''),
  watch('a cancel is sent again at every look and never times out', 'if (signal?.aborted && cancelledAt === null) {', 'if (signal?.aborted) {'),
  watch('closing the watch waits out its poll pause', '    this.ended = true;\n    this.poke();', '    this.ended = true;'),
  // adapters/comfyui/comfy-client.ts
  client('credentials in the server URL are not sent as basic auth', 'if (parsed.username || parsed.password) {', 'if (false as boolean) {'),
  client('COMFYUI_TOKEN is not sent', '} else if (options.token) {', '} else if (false as boolean) {'),
  client(
    'a server without credentials gets an authorization header "undefined"',
    "if (this.authorization) headers['authorization'] = this.authorization;",
    "headers['authorization'] = this.authorization as string;",
  ),
  client('a server URL ending in / gets request paths with //', "this.base = parsed.toString().replace(/\\/+$/, '');", 'this.base = parsed.toString();'),
  client('the socket goes without the credentials of the server URL', '...(this.authorization ? { headers: { authorization: this.authorization } } : {}),', '...({}),'),
  client('the socket of an https server is plain text', "url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';", "url.protocol = 'ws:';"),
  client(
    'a refused socket upgrade does not name its status',
    "ws.once('unexpected-response', (_req, res) => failed(new Error(`upgrade answered ${res.statusCode}`)));",
    '',
  ),
  client('an accepted prompt whose answer names no id is followed as "undefined"', "promptId: String(body['prompt_id'] ?? promptId)", "promptId: String(body['prompt_id'])"),
  client(
    'an accepted prompt whose answer lists no node errors has them undefined',
    "nodeErrors: (body['node_errors'] ?? {}) as Record<string, ComfyNodeError> };",
    "nodeErrors: body['node_errors'] as Record<string, ComfyNodeError> };",
  ),
  client('a rejection without an error object has it undefined', "error: (body['error'] ?? {}) as", "error: body['error'] as"),
  client(
    'a rejection without node errors has them undefined',
    "nodeErrors: (body['node_errors'] ?? {}) as Record<string, ComfyNodeError>,\n",
    "nodeErrors: body['node_errors'] as Record<string, ComfyNodeError>,\n",
  ),
  client("any answer of POST /prompt but 400 counts as accepted", "if (res.status === 200) return { kind: 'accepted'", "if (res.status !== 400) return { kind: 'accepted'"),
  client(
    'an answer that is not JSON escapes as a SyntaxError instead of an unreachable server',
    '    try {\n      return await res.json();\n    } catch {\n      throw this.unavailable(`${pathOf(res.url)} answered ${res.status} without JSON`);\n    }',
    '    return await res.json();',
  ),
  client('a 401 or 403 from a proxy is reported without its status', 'if (res.status >= 500 || res.status === 401 || res.status === 403) {', 'if (res.status >= 500) {'),
  client('a 5xx is reported as an answer without JSON', 'if (res.status >= 500 || res.status === 401 || res.status === 403) {', 'if (res.status === 401 || res.status === 403) {'),
  client('an unreachable-server error is wrapped again, naming the call twice', 'if (error instanceof ComfyUnavailable) throw error;', ''),
  client(
    'a queue answer without its lists has them undefined',
    'return { running: body.queue_running ?? [], pending: body.queue_pending ?? [] };',
    'return { running: body.queue_running!, pending: body.queue_pending! };',
  ),
  client(
    'a GET answered 404 is read as an empty queue or history',
    '    if (res.status !== 200) {\n      await res.body?.cancel();\n      throw this.unavailable(`GET ${path} answered ${res.status}`);\n    }\n',
    '',
  ),
  client('an output file gone from the server is an outage, not a missing file', 'if (res.status === 404) return false;', ''),
  client('an error answer of /view counts as the file being there', 'if (res.status !== 200) throw this.unavailable(`GET /view of', 'if (false as boolean) throw this.unavailable(`GET /view of'),
  client(
    'a refused upload is read as a file name',
    '    if (res.status !== 200) {\n      await res.body?.cancel();\n      throw this.unavailable(`POST /upload/image',
    '    if (false as boolean) {\n      await res.body?.cancel();\n      throw this.unavailable(`POST /upload/image',
  ),
  client('an upload at the top folder is named "/name"', 'return body.subfolder ? `${body.subfolder}/${body.name}` : body.name;', 'return `${body.subfolder}/${body.name}`;'),
  client('a delete or an interrupt the server refused counts as done', 'if (res.status !== 200) throw this.unavailable(`${pathOf(res.url)} answered ${res.status}`);', ''),
  // adapters/comfyui-protocol-server/py-values.ts
  py('a query number Python refuses is read anyway', 'if (!INT_TEXT.test(text)) throw new PyValueError(', 'if (false as boolean) throw new PyValueError('),
  py('a numeric priority fails', "if (typeof value === 'number') return value;", ''),
  py('a boolean priority fails instead of counting as 1 or 0', "if (typeof value === 'boolean') return value ? 1 : 0;", ''),
  py('an "inf" priority fails', "if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;", ''),
  py('a "-inf" priority is read as inf', "return t.startsWith('-') ? -Infinity : Infinity;", 'return Infinity;'),
  py('a "nan" priority fails', 'if (/^[+-]?nan$/i.test(t)) return Number.NaN;', ''),
  py('any string is read as a priority', ".test(t)) return Number(t.replaceAll('_', ''));", ".test(t) || true) return Number(t.replaceAll('_', ''));"),
  py('a priority with misplaced underscores is read', "const t = value.trim();\n    if (/^[+-]?(inf", "const t = value.trim();\n    if (/^[+-]?\\d*(_\\d*)*$/.test(t)) return Number(t.replaceAll('_', ''));\n    if (/^[+-]?(inf"),
  py('a null prompt_id becomes "null", not "None"', "if (value === null || value === undefined) return 'None';", ''),
  py('a true prompt_id becomes "true", not "True"', "if (value === true) return 'True';", ''),
  py('a false prompt_id becomes "false", not "False"', "if (value === false) return 'False';", ''),
  py('a string prompt_id is quoted', "if (typeof value === 'string') return value;\n  // A number", "// A number"),
  py('null counts as a JSON object', "typeof value === 'object' && value !== null && !Array.isArray(value);", "typeof value === 'object' && !Array.isArray(value);"),
  py('a JSON list counts as an object', "typeof value === 'object' && value !== null && !Array.isArray(value);", "typeof value === 'object' && value !== null;"),
  py('an empty list is truthy', 'if (Array.isArray(value)) return value.length > 0;', ''),
  py('an empty dict is truthy', 'if (isPlainObject(value)) return Object.keys(value).length > 0;', ''),
  py('a key in a JSON list raises instead of matching its items', 'if (Array.isArray(container)) return container.includes(key);', ''),
  py('a key in a JSON string raises instead of matching a substring', "if (typeof container === 'string') return container.includes(key);", ''),
  py('a JSON list cannot be iterated', 'if (Array.isArray(value)) return value;', ''),
  py('a JSON string cannot be iterated', "if (typeof value === 'string') return Array.from(value);", ''),
  py('a JSON dict cannot be iterated', 'if (isPlainObject(value)) return Object.keys(value);', ''),

  // adapters/comfyui-protocol-server/prompt-routes.ts
  routes([PROMPTS_TEST])(
    'a falsy clear empties the pending queue',
    "if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.queue.wipe();",
    "if (pyIn('clear', json)) deps.queue.wipe();",
  ),
  routes([PROMPTS_TEST])(
    'POST /queue {clear: true} clears nothing',
    "if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.queue.wipe();",
    'if (false as boolean) deps.queue.wipe();',
  ),
  routes([PROMPTS_TEST])(
    'a falsy clear empties the history',
    "if (pyIn('clear', json) && pyTruthy((json as Record<string, unknown>)['clear'])) deps.history.clear();",
    "if (pyIn('clear', json)) deps.history.clear();",
  ),
  routes([SERVER_TEST])('POST /queue {delete} removes nothing', "if (typeof id === 'string') deps.queue.delete(id);", ''),
  routes([SERVER_TEST])('POST /history {delete} removes nothing', "if (typeof id === 'string') deps.history.delete(id);", ''),
  routes([SERVER_TEST])('GET /history without max_items fails', 'maxItems === null ? null : pyInt(maxItems)', 'pyInt(maxItems as string)'),
  routes([SERVER_TEST])('GET /history?max_items=N without an offset gives the oldest N', 'offset === null ? -1 : pyInt(offset)', 'offset === null ? 0 : pyInt(offset)'),
  routes([PROMPTS_TEST])(
    'POST /interrupt without a body fails instead of interrupting',
    '    try {\n      json = parseJsonBody(req);\n    } catch {\n      json = {};\n    }',
    '    json = parseJsonBody(req);',
  ),
  routes([PROMPTS_TEST])('a POST /interrupt body that is no object interrupts everything', `if (!isPlainObject(json)) throw new TypeError("'json_data' has no attribute 'get'");`, ''),
  routes([PROMPTS_TEST])('an empty prompt_id is taken as an id (nothing is interrupted)', 'if (pyTruthy(promptId)) {', 'if (promptId !== undefined) {'),
  routes([PROMPTS_TEST])('a global interrupt interrupts nothing', '    } else {\n      deps.executor.interrupt();\n    }', '    }'),
  routes([PROMPTS_TEST])(
    'a falsy free_memory empties the cache',
    "if (pyIn('free_memory', json) && pyTruthy((json as Record<string, unknown>)['free_memory'])) deps.executor.freeMemory();",
    "if (pyIn('free_memory', json)) deps.executor.freeMemory();",
  ),
  routes([PROMPTS_TEST])('an explicit number is ignored', "if (pyIn('number', json)) {", 'if (false as boolean) {'),
  routes([PROMPTS_TEST])(
    'front: false puts a prompt ahead',
    "if (pyIn('front', json) && pyTruthy((json as Record<string, unknown>)['front'])) number = -number;",
    "if (pyIn('front', json)) number = -number;",
  ),
  routes([PROMPTS_TEST])('a body without prompt is read further before it is refused', "if (!isPlainObject(json) || !Object.hasOwn(json, 'prompt')) {", 'if (!isPlainObject(json)) {'),
  routes([PROMPTS_TEST])(
    'a client_id with an extra_data that is no object is queued',
    `if (!isPlainObject(extraData)) throw new TypeError("'extra_data' does not support item assignment");`,
    '',
  ),
  routes([SERVER_TEST])(
    'a prompt without prompt_id is named "None" instead of a fresh uuid',
    "const promptId = Object.hasOwn(json, 'prompt_id') ? pyStr(json['prompt_id']) : randomUUID();",
    "const promptId = pyStr(json['prompt_id']);",
  ),
  routes([PROMPTS_TEST])(
    'a client_id without extra_data fails (500)',
    "const extraData = Object.hasOwn(json, 'extra_data') ? json['extra_data'] : {};",
    "const extraData = json['extra_data'];",
  ),
  routes([PROMPTS_TEST])('a prompt without client_id is refused when its extra_data is no object', "  if (Object.hasOwn(json, 'client_id')) {", '  if (true as boolean) {'),
  routes([SERVER_TEST])('an invalid prompt is queued', '  if (!valid.ok) {', '  if (false as boolean) {'),
  routes([PROMPTS_TEST])(
    "a null extra_data stops the stand-in's worker",
    'extraData: structuredClone(isPlainObject(extraData) ? extraData : {}),',
    'extraData: structuredClone(extraData) as Record<string, unknown>,',
  ),

  // adapters/comfyui-protocol-server/ws-hub.ts
  hub([SOCKET_TEST])('an empty clientId is taken as the id', "const sid = clientId || randomUUID().replaceAll('-', '');", "const sid = clientId ?? randomUUID().replaceAll('-', '');"),
  hub([SOCKET_TEST])(
    "every client connecting is told the running prompt's node",
    'if (state.runningClientId === sid && state.lastNodeId !== null) {',
    'if (state.lastNodeId !== null) {',
  ),
  hub([SOCKET_TEST])(
    'a client reconnecting after its prompt ended is told of node null',
    'if (state.runningClientId === sid && state.lastNodeId !== null) {',
    'if (state.runningClientId === sid) {',
  ),
  hub([SOCKET_TEST])('feature_flags is answered after other messages', "if (wasFirst && typeof message === 'object'", "if (typeof message === 'object'"),
  hub([SOCKET_TEST])('a binary frame counts as the first message', '      if (isBinary) return;\n      let message: unknown;', '      let message: unknown;'),
  hub([SOCKET_TEST])('a replaced socket closing cuts its successor off the events', 'if (this.sockets.get(sid) === ws) this.sockets.delete(sid);', 'this.sockets.delete(sid);'),
  hub([PROMPTS_TEST])('events of a prompt without client_id are broadcast to nobody', 'if (sid === null || sid === undefined) {', 'if (false as boolean) {'),
  hub([PROMPTS_TEST])('an event for a client without a socket fails its prompt', 'if (ws) sendQuietly(ws, text);', 'sendQuietly(ws!, text);'),

  // adapters/comfyui-protocol-server/origin-check.ts
  origin('userinfo in the Origin is taken as part of its host', "const hostPart = netloc.slice(netloc.lastIndexOf('@') + 1);", 'const hostPart = netloc;'),
  origin('an IPv6 loopback Host ([::1]) is not guarded', '  if (bracket) return {', '  if (false as boolean) return {'),
  origin('only 127.0.0.1 of 127.0.0.0/8 is guarded', "if (isIP(a) === 4) return a.startsWith('127.');", "if (isIP(a) === 4) return a === '127.0.0.1';"),
  origin('the IPv6 loopback ::1 is not guarded', "return a === '::1' || a.startsWith('::ffff:127.');", "return a.startsWith('::ffff:127.');"),
  origin('a loopback name (localhost) is not guarded', 'const addresses = await lookup(hostname, { all: true });', 'const addresses: { address: string }[] = [];'),
  origin('an Origin without a port is refused by a Host with one', 'if (originParsed.port === null) hostDomain = hostParsed.hostname;', ''),
  origin('a Host without a port refuses an Origin with one', 'if (hostParsed.port === null) originDomain = originParsed.hostname;', ''),
  origin('a request without a Host header fails', 'if (host === undefined || origin === undefined) return false;', ''),
  origin('an Origin without a host ("null") is refused', '&& !!originDomain && hostDomain !== originDomain', '&& hostDomain !== originDomain'),
  origin('a CORS preflight goes on to the routes', "if (req.method === 'OPTIONS') {", 'if (false as boolean) {'),

  // adapters/comfyui-protocol-server/prompt-executor.ts
  executor([PROMPTS_TEST])(
    "free_memory during a run empties the cache at once (the running prompt's results stay cached)",
    '    if (this.running) this.freeRequested = true;\n    else this.cache.clear();',
    '    this.cache.clear();',
  ),
  executor([PROMPTS_TEST])('free_memory during a run never empties the cache', 'if (this.freeRequested) this.cache.clear();', ''),
  executor([PROMPTS_TEST])('after one free_memory the cache is emptied after every prompt', 'this.freeRequested = false;', ''),
  executor([PROMPTS_TEST])('an interrupt sent while idle stops the next prompt', 'this.interruptFlag = false;', ''),
  executor([PROMPTS_TEST])(
    'a prompt without client_id broadcasts all its events',
    "const clientId = item.extraData['client_id'] ?? null;",
    "const clientId = item.extraData['client_id'];",
  ),
  executor([PROMPTS_TEST])(
    'the interrupt of a prompt without client_id is broadcast to nobody',
    'if (hasClient || broadcast) this.events.send(event, stamped, clientId);',
    'if (hasClient) this.events.send(event, stamped, clientId);',
  ),
  executor([PROMPTS_TEST])(
    'a prompt without client_id broadcasts its execution_* events',
    'if (hasClient || broadcast) this.events.send(event, stamped, clientId);',
    'if (true as boolean) this.events.send(event, stamped, clientId);',
  ),
  executor([SERVER_TEST])('execution_start is sent more than once', 'if (started) return;', ''),
  executor([SERVER_TEST])('execution_cached is sent more than once', 'if (cachedSent) return;', ''),
  executor([PROMPTS_TEST])(
    'a prompt without client_id broadcasts its executing events',
    'if (hasClient) {\n              this.lastNodeId = nodeId;',
    'if (true as boolean) {\n              this.lastNodeId = nodeId;',
  ),
  executor([PROMPTS_TEST])(
    'a prompt without client_id broadcasts its executed events',
    "if (hasClient) {\n              this.events.send('executed'",
    "if (true as boolean) {\n              this.events.send('executed'",
  ),
  executor([PROMPTS_TEST])(
    'a prompt without client_id broadcasts its end',
    "if (hasClient) this.events.send('executing', { node: null",
    "if (true as boolean) this.events.send('executing', { node: null",
  ),
  executor([PROMPTS_TEST])(
    "a runtime that throws stops the stand-in's worker",
    '      // The runtime should report failures as values; an escaped exception still ends the prompt cleanly.\n',
    '      throw error;\n',
  ),
  executor([PROMPTS_TEST])(
    'a history entry of a runtime that failed before it started lacks execution_start and execution_cached',
    "    ensureCached();\n    if (result.status === 'success') {",
    "    if (result.status === 'success') {",
  ),
  executor([PROMPTS_TEST])(
    'the last node of a successful prompt shows as running',
    "      progress.finishRunning();\n      addMessage('execution_success'",
    "      addMessage('execution_success'",
  ),
  executor([PROMPTS_TEST])(
    'a node without UI output shows as running after the next one started',
    '            progress.finishRunning();\n            progress.start(nodeId);',
    '            progress.start(nodeId);',
  ),
  executor([SERVER_TEST])('an interrupted prompt is reported as an execution error', "if (result.status === 'interrupted') {", 'if (false as boolean) {'),
  executor([PROMPTS_TEST])(
    'the node that failed shows as finished in the last progress_state',
    'if (progress.runningNode() !== result.nodeId) progress.finishRunning();',
    'progress.finishRunning();',
  ),
  executor([SOCKET_TEST])('a client reconnecting after its prompt ended is told its last node', '    this.lastNodeId = null;\n    this.queue.done', '    this.queue.done'),
  executor([PROMPTS_TEST])('paid-API keys reach the history', 'for (const key of SENSITIVE_EXTRA_DATA_KEYS) delete extraData[key];', ''),

  // adapters/comfyui-protocol-server/file-routes.ts
  files([FILES_TEST])(
    "/view refuses an empty subfolder (the folder's top)",
    'const isInside = (base: string, path: string): boolean => path === base || ',
    'const isInside = (base: string, path: string): boolean => ',
  ),
  files([FILES_TEST])('/view without a filename fails (500)', 'if (requested === null) {', 'if (false as boolean) {'),
  files([FILES_TEST])('/view looks up a name that is only a folder suffix', "if (!name || name.startsWith('/')", "if (name.startsWith('/')"),
  files([FILES_TEST])('/view ignores a " [temp]" or " [input]" suffix', 'let dir = annotatedDir ?? dirByType(', 'let dir = dirByType('),
  files([SERVER_TEST])('/view of an unknown type fails (500) instead of 400', '  if (dir === null) {', '  if (false as boolean) {'),
  files([SERVER_TEST])('/view ignores preview (a jpeg preview is sent as the png)', '  if (variant) {', '  if (false as boolean) {'),
  files([FILES_TEST])('/view without a subfolder fails', 'if (subfolder !== null) {', 'if (true as boolean) {'),
  files([FILES_TEST])('/view serves a folder as a file', '!existsSync(file) || !statSync(file).isFile()', '!existsSync(file)'),
  files([FILES_TEST])(
    'an upload whose body is no form fails (500) instead of 400',
    "    try {\n      parser = busboy({ headers: req.headers, limits: { fileSize: maxBytes }, defParamCharset: 'utf8', preservePath: true });\n    } catch {\n      // Not a form body: aiohttp's post() reads it as an empty form, so \"image\" is missing (400).\n      req.resume();\n      req.on('end', () => done(form));\n      return;\n    }",
    "    parser = busboy({ headers: req.headers, limits: { fileSize: maxBytes }, defParamCharset: 'utf8', preservePath: true });",
  ),
  files([FILES_TEST])('the last of a repeated upload field counts', 'if (!form.fields.has(name)) form.fields.set(name, value);', 'form.fields.set(name, value);'),
  files([FILES_TEST])('an "image" that is a plain field is no upload (400)', "if (name === 'image' && form.image === null) form.image = 'field';", ''),
  files([FILES_TEST])(
    'a file under another field name is the upload',
    "if (name === 'image' && form.image === null) form.image = info.filename ?",
    'if (form.image === null) form.image = info.filename ?',
  ),
  files([FILES_TEST])(
    'the last image file of the form is the upload',
    "if (name === 'image' && form.image === null) form.image = info.filename ?",
    "if (name === 'image') form.image = info.filename ?",
  ),
  files([FILES_TEST])('an upload with overwrite "true" is renamed', "if (overwrite !== 'true' && overwrite !== '1') {", "if (overwrite !== '1') {"),
  files([FILES_TEST])('an upload with overwrite "1" is renamed', "if (overwrite !== 'true' && overwrite !== '1') {", "if (overwrite !== 'true') {"),
  // bootstrap/comfy-serve.ts
  serve('a port out of range is tried', 'if (!Number.isInteger(port) || port < 0 || port > 65535) fail(', 'if (false as boolean) fail('),
  serve('a fractional port is tried', 'if (!Number.isInteger(port) || port < 0', 'if (port < 0'),
  serve('a negative port is tried', ' || port < 0 || port > 65535) fail(', ' || port > 65535) fail('),
  serve('a port above 65535 is tried', ' || port > 65535) fail(', ') fail('),
  serve('COMFY_PORT wins over --port', "args.port ?? process.env['COMFY_PORT'] ?? '8188'", "process.env['COMFY_PORT'] ?? args.port ?? '8188'"),
  serve('an upload size of 0 or not a number is taken', 'if (!Number.isFinite(uploadMb) || uploadMb <= 0) fail(', 'if (false as boolean) fail('),
  serve('an upload size of 0 is taken', 'uploadMb <= 0) fail(', 'uploadMb < 0) fail('),
  serve('a negative or non-numeric cost is taken', 'if (!Number.isFinite(value) || value < 0) fail(', 'if (false as boolean) fail('),
  serve('checkpoint names are not trimmed and blanks are kept', ".split(',').map((name) => name.trim()).filter(Boolean);", ".split(',');"),
  serve('a loader is offered without --checkpoints', '...(checkpoints.length > 0 ? { extraNodes: [checkpointLoaderNode(checkpoints)] } : {})', 'extraNodes: [checkpointLoaderNode(checkpoints)]'),
  serve('--node-ms and --model-load-ms are not paid', '...(costs.modelLoadMs > 0 || costs.nodeMs > 0 ? { costs } : {}),', ''),
  serve('--input-directory is ignored', "inputDir: resolve(args['input-directory'] ?? resolve(dataDir, 'input')),", "inputDir: resolve(resolve(dataDir, 'input')),"),
  serve('COMFY_HOST wins over --listen', "listenHost(args.listen ?? process.env['COMFY_HOST'] ?? '127.0.0.1')", "listenHost(process.env['COMFY_HOST'] ?? args.listen ?? '127.0.0.1')"),
  serve('a bare --listen takes the next flag as its address', "(arg === '--listen' && (all[i + 1] ?? '--').startsWith('--') ? '--listen=0.0.0.0,::' : arg)", '(arg)'),
  serve('a blank --listen list listens on no address', "if (hosts.length === 0) return '127.0.0.1';", ''),
  serve('a --listen list holding :: listens on its first address only', "return hosts.includes('::') ? '::' : (hosts[0] as string);", 'return hosts[0] as string;'),
  serve('--listen addresses are not trimmed', ".split(',').map((h) => h.trim()).filter(Boolean);", ".split(',').filter(Boolean);"),
  serve('a failed start is not logged', "log('error', 'start-up failed', {", "log('error', 'failed', {"),
];
