import type { Mutation } from '../mutation.ts';

const FEED = 'core/use-cases/events/job-event-feed.service.ts';
const LOG = 'core/use-cases/events/user-event-log.service.ts';
const STORE = 'adapters/sequelize/sequelize-user-event-store.ts';
const GATEWAY = 'adapters/ws/ws-gateway.ts';
const FEED_UNIT = 'tests/unit/job-event-feed.test.ts';
const LOG_UNIT = 'tests/unit/user-event-log.test.ts';
const STORE_CONTRACT = 'tests/contract/user-event-store.test.ts';
const WS = 'tests/integration/websocket.test.ts';
const GATEWAY_UNIT = 'tests/unit/events-ws-gateway.test.ts';
const FILES_ROUTE = 'adapters/http/routes/files.routes.ts';
const UPLOADS = 'tests/integration/uploads.test.ts';

export const MUTATIONS: Mutation[] = [
  // The job event feed (Comfy API v2 job streams, ADR 040).
  {
    name: 'events: feed: a job stream opened without since replays the stored history',
    file: FEED,
    find: 'if (since !== undefined) {\n          for (let cursor = since; ; ) {',
    replace: '{\n          for (let cursor = since ?? 0; ; ) {',
    tests: [FEED_UNIT],
  },
  {
    name: "events: feed: a job stream's replay includes the user's other jobs' events",
    file: FEED,
    find: 'replayed.push(...page.filter((stored) => stored.event.jobId === jobId));',
    replace: 'replayed.push(...page);',
    tests: [FEED_UNIT],
  },
  {
    name: "events: feed: a job stream's replay reads one page only",
    file: FEED,
    find: 'if (page.length < pageSize) break;',
    replace: 'break;',
    tests: [FEED_UNIT],
  },
  {
    name: "events: feed: a job stream's replay stops at a full page (boundary)",
    file: FEED,
    find: 'if (page.length < pageSize) break;',
    replace: 'if (page.length <= pageSize) break;',
    tests: [FEED_UNIT],
  },
  {
    name: 'events: feed: a job stream hands over replayed and held events unsorted (a late lower seq is dropped)',
    file: FEED,
    find: 'for (const event of [...replayed, ...held.splice(0)].sort((a, b) => a.seq - b.seq)) forward(event);',
    replace: 'for (const event of [...replayed, ...held.splice(0)]) forward(event);',
    tests: [FEED_UNIT],
  },
  // Producing and purging the log.
  {
    name: 'events: log: purge removes events inside the retention window',
    file: 'core/use-cases/events/purge-user-events.use-case.ts',
    find: 'this.deps.clock.now().getTime() - this.deps.retentionMs',
    replace: 'this.deps.clock.now().getTime()',
    tests: [LOG_UNIT],
  },
  {
    name: 'events: log: the fan-out queue has no bound when the bus hangs',
    file: LOG,
    find: 'if (this.pending + stored.length > MAX_PENDING_FAN_OUT) {',
    replace: 'if (false) {',
    tests: [LOG_UNIT],
  },
  {
    name: 'events: log: events fanned out are never counted off (the fan-out stops for good after 10 000)',
    file: LOG,
    find: '      this.pending -= 1;\n',
    replace: '',
    tests: [LOG_UNIT],
  },
  {
    name: 'events: log: one failed publish stops the fan-out of every later event',
    file: LOG,
    find: 'await this.deps.bus.publish(USER_EVENTS_CHANNEL, envelopeOf(one)).catch((error: unknown) =>',
    replace: 'await this.deps.bus.publish(USER_EVENTS_CHANNEL, envelopeOf(one)).then((error: unknown) =>',
    tests: [LOG_UNIT],
  },
  // The SQL event store.
  {
    name: "events: store: listSince returns other users' events (SQL)",
    file: STORE,
    find: 'where: { user_id: userId, seq: { [Op.gt]: since } },',
    replace: 'where: { seq: { [Op.gt]: since } },',
    tests: [STORE_CONTRACT],
  },
  {
    name: 'events: store: listSince returns the event at since again (SQL, boundary)',
    file: STORE,
    find: 'where: { user_id: userId, seq: { [Op.gt]: since } },',
    replace: 'where: { user_id: userId, seq: { [Op.gte]: since } },',
    tests: [STORE_CONTRACT],
  },
  {
    name: 'events: store: listSince ignores max (SQL)',
    file: STORE,
    find: "order: [['seq', 'ASC']],\n      limit: max,",
    replace: "order: [['seq', 'ASC']],",
    tests: [STORE_CONTRACT],
  },
  {
    name: 'events: store: listSince with max 0 reads anyway (SQL)',
    file: STORE,
    find: 'if (max <= 0) return [];',
    replace: '',
    tests: [STORE_CONTRACT],
  },
  {
    name: 'events: store: purgeBefore removes every event (SQL)',
    file: STORE,
    find: 'destroy({ where: { created_at: { [Op.lt]: before } }, ...s.options })',
    replace: 'destroy({ where: {}, ...s.options })',
    tests: [STORE_CONTRACT],
  },
  {
    name: 'events: store: purgeBefore removes the events at the cut-off too (SQL, boundary)',
    file: STORE,
    find: 'destroy({ where: { created_at: { [Op.lt]: before } }, ...s.options })',
    replace: 'destroy({ where: { created_at: { [Op.lte]: before } }, ...s.options })',
    tests: [STORE_CONTRACT],
  },
  {
    name: 'events: store: appendAll of nothing bumps the counter and writes an empty insert (SQL)',
    file: STORE,
    find: 'if (events.length === 0) return Promise.resolve([]);',
    replace: '',
    tests: [STORE_CONTRACT],
  },
  // The WebSocket gateway.
  {
    name: 'events: socket: a socket from a foreign Origin is accepted',
    file: GATEWAY,
    find: "if (normalized === null || !this.origins.has(normalized)) return rejectUpgrade(socket, 403, 'Origin not allowed');",
    replace: '',
    tests: [WS],
  },
  {
    name: 'events: socket: every Origin counts as the same origin',
    file: GATEWAY,
    find: 'return new URL(origin).host.toLowerCase() === host.toLowerCase();',
    replace: 'return new URL(origin).host.length >= 0;',
    tests: [WS],
  },
  {
    name: 'events: socket: a socket without a token is authenticated anyway',
    file: GATEWAY,
    find: "if (!token) return rejectUpgrade(socket, 401, 'Authentication required');",
    replace: '',
    also: [{ file: GATEWAY, find: 'const claims = await this.deps.authenticate(token);', replace: 'const claims = await this.deps.authenticate(token ?? \'\');' }],
    tests: [WS],
  },
  {
    name: 'events: socket: a socket whose token does not authenticate is opened',
    file: GATEWAY,
    find: "if (!claims) return rejectUpgrade(socket, 401, 'Access token is invalid or expired');",
    replace: '',
    also: [{ file: GATEWAY, find: 'this.register(ws, claims);', replace: "this.register(ws, claims ?? { userId: 'nobody', sessionId: 'none', expiresAt: new Date(Date.now() + 60_000) });" }],
    tests: [WS],
  },
  {
    name: "events: socket: a user's event reaches every user's sockets",
    file: GATEWAY,
    find: 'const clients = this.byUser.get(envelope.userId);',
    replace: 'const clients = new Set([...this.byUser.values()].flatMap((set) => [...set]));',
    tests: [WS],
  },
  {
    name: 'events: socket: sync takes a negative or non-integer since',
    file: GATEWAY,
    find: 'if (since !== undefined && (!Number.isSafeInteger(since) || (since as number) < 0)) {',
    replace: 'if (false) {',
    tests: [WS],
  },
  {
    name: 'events: socket: a live event that skips ahead is sent without filling the gap from the store',
    file: GATEWAY,
    find: 'client.held === null && client.lastSeq !== null && envelope.seq > client.lastSeq + 1',
    replace: 'false',
    tests: [WS],
  },
  {
    name: 'events: socket: a socket sends an event it already sent again',
    file: GATEWAY,
    find: 'if (client.lastSeq !== null && seq <= client.lastSeq) return;',
    replace: '',
    tests: [WS],
  },
  {
    name: 'events: socket: a socket that stops answering pings is kept',
    file: GATEWAY,
    find: '        if (!client.alive) {\n          client.ws.terminate();\n          continue;\n        }\n',
    replace: '',
    tests: [WS],
  },
  {
    name: 'events: gateway: a sync replays the first page (500) of stored events only',
    file: GATEWAY,
    find: '        if (page.length === REPLAY_PAGE) continue;\n',
    replace: '',
    tests: [GATEWAY_UNIT],
  },
  {
    name: 'events: gateway: live events dropped from a full hold buffer are not read again from the store',
    file: GATEWAY,
    find: '        if (!client.overflowed) break;\n        client.overflowed = false;',
    replace: '        break;',
    tests: [GATEWAY_UNIT],
  },
  {
    name: 'events: gateway: live events held during a replay go out in arrival order',
    file: GATEWAY,
    find: 'for (const event of held.sort((a, b) => a.seq - b.seq)) if',
    replace: 'for (const event of held) if',
    tests: [GATEWAY_UNIT],
  },
  {
    name: 'events: gateway: a bus reconnect does not make sockets catch up from the store',
    file: GATEWAY,
    find: 'for (const client of clients) if (client.held === null && client.lastSeq !== null) this.catchUp(client, []);',
    replace: 'for (const client of clients) if (false) this.catchUp(client, []);',
    tests: [GATEWAY_UNIT],
  },
  {
    name: 'events: gateway: a second sync runs during the first (both checks gone)',
    file: GATEWAY,
    find: "if (client.held !== null && client.catchingUp === null) return this.sendError(client, 'A sync is already in progress');",
    replace: '',
    also: [{ file: GATEWAY, find: "after.then(() => (client.held !== null ? this.sendError(", replace: "after.then(() => (false ? this.sendError(" }],
    tests: [GATEWAY_UNIT],
  },
  {
    name: 'events: gateway: an in-band auth keeps the login the socket was opened with',
    file: GATEWAY,
    find: '    client.sessionId = claims.sessionId;\n',
    replace: '',
    tests: [GATEWAY_UNIT],
  },
  {
    name: 'events: gateway: a client that does not read is buffered without bound',
    file: GATEWAY,
    find: 'if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {',
    replace: 'if (false) {',
    tests: [GATEWAY_UNIT],
  },
  // Audit: the gateway's stop, its expiry timer, and the files route's reading of a signed link's verdict.
  {
    name: 'events: gateway: an upgrade authenticated while the gateway stops is opened instead of refused with 503 (audit)',
    file: GATEWAY,
    find: "if (this.stopping) return rejectUpgrade(socket, 503, 'Server shutting down');",
    replace: '',
    tests: [GATEWAY_UNIT, WS],
  },
  {
    name: 'events: gateway: a token expiring in more than 24.8 days arms an overflowing timer (1 ms, re-armed and warned about every ms) (audit)',
    file: GATEWAY,
    find: '}, Math.min(delay, MAX_TIMER_MS));',
    replace: '}, delay);',
    tests: [GATEWAY_UNIT, WS],
  },
  {
    name: 'events: gateway: a token expiring in more than 24.8 days closes its socket after 24.8 days (audit)',
    file: GATEWAY,
    find: 'if (delay > MAX_TIMER_MS) this.expireAt(client, expiresAt);\n      else client.ws.close(',
    replace: 'client.ws.close(',
    tests: [GATEWAY_UNIT, WS],
  },
  {
    name: 'events: files: an expired signed link is answered as a bad signature (audit)',
    file: FILES_ROUTE,
    find: "verdict.reason === 'expired' ?",
    replace: 'false ?',
    tests: [UPLOADS],
  },
  {
    name: 'events: files: a bad signature is answered as an expired link (audit)',
    file: FILES_ROUTE,
    find: "verdict.reason === 'expired' ?",
    replace: 'true ?',
    tests: [UPLOADS],
  },
  {
    name: "events: files: the content type signed into the link is ignored for the stored one (audit)",
    file: FILES_ROUTE,
    find: "res.setHeader('Content-Type', verdict.contentType ?? file.contentType);",
    replace: "res.setHeader('Content-Type', file.contentType);",
    tests: [UPLOADS],
  },
  {
    name: 'events: files: a signed attachment link is served inline (audit)',
    file: FILES_ROUTE,
    find: 'contentDisposition(verdict.disposition, verdict.fileName)',
    replace: "contentDisposition('inline', verdict.fileName)",
    tests: [UPLOADS],
  },
  {
    name: "events: files: the signed file name is not the download's name (audit)",
    file: FILES_ROUTE,
    find: 'contentDisposition(verdict.disposition, verdict.fileName)',
    replace: "contentDisposition(verdict.disposition, 'file')",
    tests: [UPLOADS],
  },
  {
    name: 'events: files: a signed file may be cached past the link\'s expiry (audit)',
    file: FILES_ROUTE,
    find: 'max-age=${verdict.remainingSeconds}',
    replace: 'max-age=86400',
    tests: [UPLOADS],
  },
  ...progressRelayMutations(),
];

/** What a running attempt's engine events write (core/use-cases/generation/progress-relay.service.ts). */
function progressRelayMutations(): Mutation[] {
  const file = 'core/use-cases/generation/progress-relay.service.ts';
  const tests = ['tests/unit/progress-relay.test.ts'];
  const entry = (name: string, find: string, replace: string): Mutation => ({ name: `progress relay: ${name}`, file, find, replace, tests });
  return [
    entry('progress not thinned', '    if (event.value < event.max && now - this.last < this.deps.intervalMs) return;\n', ''),
    entry("a bar's last step thinned away too", 'if (event.value < event.max && now - this.last < this.deps.intervalMs) return;', 'if (now - this.last < this.deps.intervalMs) return;'),
    entry('the time of the last sent step not kept', '    this.last = now;\n', ''),
    entry('events other than progress read as progress', "    if (event.type !== 'progress') return;\n", "    if (event.type === 'executing') { /* read as progress */ }\n"),
    entry('progress of an attempt that lost the job still reported', "      if (!(await tx.jobs.updateRunning(job.id, runId, { progress: { value: event.value, max: event.max } }, this.deps.clock.now()))) return;", "      await tx.jobs.updateRunning(job.id, runId, { progress: { value: event.value, max: event.max } }, this.deps.clock.now());"),
    entry('status of an attempt that lost the job still reported', '      if (!(await tx.jobs.updateRunning(job.id, runId, { statusText: text }, this.deps.clock.now()))) return;', '      await tx.jobs.updateRunning(job.id, runId, { statusText: text }, this.deps.clock.now());'),
    entry('the node of a progress step dropped', '...(event.nodeId ? { node: event.nodeId } : {})', ''),
    entry('one failed write stops every later one', '    this.chain = next.catch((error: unknown) =>', '    this.chain = next;\n    void next.catch((error: unknown) =>'),
  ];
}
