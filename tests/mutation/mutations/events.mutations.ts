import { entriesOn, type Mutation } from '../mutation.ts';

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
  ...eventBusMutations(),
  ...eventPathAuditMutations(),
];

/** What a running attempt's engine events write (core/use-cases/generation/progress-relay.service.ts). */
function progressRelayMutations(): Mutation[] {
  const file = 'core/use-cases/generation/progress-relay.service.ts';
  const tests = ['tests/unit/progress-relay.test.ts'];
  const entry = entriesOn('progress relay', file, tests);
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

/** The three event buses (tests/contract/event-bus.test.ts holds each to the EventBus contract, and a few adapter-specific cases). */
function eventBusMutations(): Mutation[] {
  const tests = ['tests/contract/event-bus.test.ts'];
  const REDIS = 'adapters/redis/redis-event-bus.ts';
  const RABBIT = 'adapters/rabbitmq/rabbit-event-bus.ts';
  const MEMORY = 'adapters/memory/in-process-event-bus.ts';
  const redis = entriesOn('event bus (redis)', REDIS, tests);
  const rabbit = entriesOn('event bus (rabbitmq)', RABBIT, tests);
  const memory = entriesOn('event bus (in-process)', MEMORY, tests);
  return [
    // Redis
    redis('a second handler of a channel replaces the first', 'if (!entry) {\n      // Commands', '{\n      // Commands'),
    redis('a message of another channel delivered to a subscriber', 'for (const { handler } of [...entry.subscriptions]) {', 'for (const { handler } of [...this.channels.values()].flatMap((one) => [...one.subscriptions])) {'),
    redis('a handler that throws stops the handlers after it', '      } catch (error) {\n        this.onHandlerError(error, channel);\n      }', '      } catch (error) {\n        this.onHandlerError(error, channel);\n        break;\n      }'),
    redis('a handler that rejects is not reported', 'if (returned instanceof Promise) returned.catch((error: unknown) => this.onHandlerError(error, channel));', 'if (returned instanceof Promise) returned.catch(() => undefined);'),
    redis('foreign (non-JSON) text on a channel is handed to the handlers as a string instead of being reported', '      this.onHandlerError(new Error(`not JSON: ${(error as Error).message}`), channel);\n      return;', '      void error;\n      payload = text;'),
    redis('listeners are not told of a reconnection', '      for (const listener of this.reconnectListeners) listener();\n    });', '    });'),
    redis('the first connection is announced as a reconnection', '      if (first) {\n        first = false;\n        return;\n      }\n      for (const listener', '      for (const listener'),
    redis('a listener that stopped listening is still told of reconnections', 'return () => this.reconnectListeners.delete(listener);', 'return () => false;'),
    redis('a failed SUBSCRIBE leaves its channel entry behind (every later subscribe to it fails)', '      await remove().catch(() => undefined);\n      throw error;', '      throw error;'),
    redis('a payload without a JSON form is published as nothing', "if (text === undefined) throw new TypeError(`the payload for ${channel} has no JSON form`);\n    await this.publisher", 'await this.publisher'),
    redis('every failed reconnection attempt is reported', '    if (!connected) return;\n    connected = false;', '    connected = false;'),
    // RabbitMQ
    rabbit('a closed listening channel (a channel-level error) is not replaced: the bus hears nothing more', "    channel.on('close', () => setImmediate(() => void this.channelLost(model, channel)));\n", ''),
    rabbit('a closed listening channel replaced without telling the reconnect listeners', '    await this.subscriber?.catch(() => null);\n    for (const listener of this.reconnectListeners) listener();\n  }\n\n  private dispatch', '  }\n\n  private dispatch'),
    rabbit('a listening channel that closed with its connection is replaced on the dead connection too', 'if (this.closed || this.link.live !== model) return;', 'if (this.closed) return;'),
    rabbit('a payload without a JSON form not refused as such', "    if (text === undefined) throw new TypeError(`the payload for ${channel} has no JSON form`);\n    const publisher", '    const publisher'),
    rabbit('a message of another channel delivered to a subscriber', 'for (const handler of [...set]) {', 'for (const handler of [...this.handlers.values()].flatMap((one) => [...one])) {'),
    rabbit('a second channel of the process is never bound', 'if (first) await listening.channel.bindQueue(listening.queue, this.exchange, channel);', 'if (false) await listening.channel.bindQueue(listening.queue, this.exchange, channel);'),
    rabbit('after a reconnection the handlers are not listened for again', 'if (this.handlers.size > 0) this.subscriber = this.listen(model);\n      else this.subscriber = null;', 'this.subscriber = null;'),
    rabbit('after a reconnection the new queue is bound to no channel', 'for (const name of this.handlers.keys()) await channel.bindQueue(queue, this.exchange, name);', ''),
    rabbit('listeners are not told of a reconnection', '      for (const listener of this.reconnectListeners) listener();\n    });', '    });'),
    rabbit('listeners are told of a reconnection before the new queue is bound', '      await this.subscriber?.catch(() => null);\n      for (const listener', '      for (const listener'),
    rabbit('the first connection is announced as a reconnection', '      if (first) {\n        first = false;\n        return;\n      }\n      await this.subscriber', '      await this.subscriber'),
    rabbit('a listener that stopped listening is still told of reconnections', 'return () => this.reconnectListeners.delete(listener);', 'return () => false;'),
    rabbit('a publish before anyone subscribed goes to an exchange never declared', '    if (!this.declaredOn.has(publisher)) {\n      await publisher.assertExchange', '    if (false) {\n      await publisher.assertExchange'),
    rabbit('foreign (non-JSON) text on the exchange is handed to the handlers as a string instead of being reported', '      report(new Error(`not JSON: ${(error as Error).message}`), channel);\n      return;', '      void error;\n      payload = text;'),
    rabbit('a handler that throws stops the handlers after it', '      } catch (error) {\n        report(error, channel);\n      }', '      } catch (error) {\n        report(error, channel);\n        break;\n      }'),
    rabbit('a handler that rejects is not reported', 'if (returned instanceof Promise) returned.catch((error: unknown) => report(error, channel));', 'if (returned instanceof Promise) returned.catch(() => undefined);'),
    rabbit('a failed subscribe leaves its handler registered', '      await this.remove(channel, entry).catch(() => undefined);\n      throw error;', '      throw error;'),
    rabbit('a failed listen is kept, so every later subscribe fails too', 'if (this.subscriber === pending) this.subscriber = null;', 'void pending;'),
    // In-process
    memory('a closed bus still publishes', "    if (this.closed) throw new Error('the event bus is closed');\n    const text", '    const text'),
    memory('a closed bus still subscribes', "    if (this.closed) throw new Error('the event bus is closed');\n    const listener", '    const listener'),
    memory('a handler that throws is not reported', '      } catch (error) {\n        this.onHandlerError(error, channel);\n      }', '      } catch {\n        // swallowed\n      }'),
    memory('a handler that rejects is not reported', 'if (returned instanceof Promise) returned.catch((error: unknown) => this.onHandlerError(error, channel));', 'if (returned instanceof Promise) returned.catch(() => undefined);'),
    memory('close leaves the handlers attached (a message published before close is delivered after it)', '    this.emitter.removeAllListeners();\n', ''),
    memory('unsubscribe leaves the handler attached', '      this.emitter.off(channel, listener);\n', ''),
    memory('a payload without a JSON form accepted (and thrown later, uncaught, where it is delivered)', "    if (text === undefined) throw new TypeError(`the payload for ${channel} has no JSON form`);\n    setImmediate", '    setImmediate'),
    memory('a payload is handed over as the same object, not its JSON form', 'this.emitter.emit(channel, JSON.parse(text));', 'this.emitter.emit(channel, payload);'),
  ];
}

/** Audit of the event path (core/use-cases/events, adapters/ws): guards no entry above deleted. */
function eventPathAuditMutations(): Mutation[] {
  return [
    {
      name: 'events: gateway: a malformed user event from the bus is sent to the sockets of its user',
      file: GATEWAY,
      find: '    const envelope = asEnvelope(payload);\n    if (!envelope) {',
      replace: '    const envelope = payload as UserEventEnvelope;\n    if (!envelope) {',
      tests: [GATEWAY_UNIT],
    },
    {
      name: 'events: gateway: a replay keeps reading the store for a socket that closed',
      file: GATEWAY,
      find: '        if (client.ws.readyState !== WebSocket.OPEN) return;\n',
      replace: '',
      tests: [GATEWAY_UNIT],
    },
    {
      name: 'events: gateway: a failed sync gets no error reply',
      file: GATEWAY,
      find: "      this.sendError(client, 'Sync failed; try again');",
      replace: '',
      tests: [GATEWAY_UNIT],
    },
    {
      name: 'events: gateway: a replay whose store read fails leaves the socket syncing for good (every later sync refused)',
      file: GATEWAY,
      find: '    } finally {\n      const held = client.held;',
      replace: '    } catch (error) {\n      throw error;\n    }\n    {\n      const held = client.held;',
      tests: [GATEWAY_UNIT],
    },
    {
      name: 'events: gateway: a closed socket stays in the registry',
      file: GATEWAY,
      find: '      set.delete(client);\n',
      replace: '',
      tests: [GATEWAY_UNIT],
    },
    {
      name: 'events: gateway: a sync from an earlier seq skips the events the socket already got live',
      file: GATEWAY,
      find: '      client.lastSeq = since; // the client asks',
      replace: '      void since; // the client asks',
      tests: [GATEWAY_UNIT],
    },
    {
      name: 'events: feed: a stream refused as not found leaves its bus subscription behind',
      file: FEED,
      find: '    if (!job) {\n      await unsubscribe();',
      replace: '    if (!job) {',
      tests: [FEED_UNIT],
    },
    {
      name: 'events: feed: a job id in upper case is not normalized (the job is not found, its events never match)',
      file: FEED,
      find: 'const jobId = input.jobId.toLowerCase();',
      replace: 'const jobId = input.jobId;',
      tests: [FEED_UNIT],
    },
  ];
}
