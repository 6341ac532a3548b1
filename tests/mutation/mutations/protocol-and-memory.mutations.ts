import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the ComfyUI protocol stand-in's queue, heap, progress snapshots, run costs and HTTP plumbing, and of the
 * in-memory adapters (cache, users, identities, coin ledger) and the Sequelize unit of work.
 */
const STAND_IN = 'adapters/comfyui-protocol-server';
const AUDIT = 'tests/integration/protocol-server-audit.test.ts';
const COSTS_AUDIT = 'tests/unit/protocol-run-costs-audit.test.ts';
const MEMORY_AUDIT = 'tests/integration/memory-adapters-audit.test.ts';
const queue = (tests: string[]) => entriesOn('protocol-and-memory: prompt queue', `${STAND_IN}/prompt-queue.ts`, tests);
const heap = (tests: string[]) => entriesOn('protocol-and-memory: prompt heap', `${STAND_IN}/prompt-heap.ts`, tests);
const progress = (tests: string[]) => entriesOn('protocol-and-memory: progress tracker', `${STAND_IN}/progress-tracker.ts`, tests);
const costs = (tests: string[]) => entriesOn('protocol-and-memory: run costs', `${STAND_IN}/run-costs.ts`, tests);
const http = (tests: string[]) => entriesOn('protocol-and-memory: http support', `${STAND_IN}/http-support.ts`, tests);
const CACHE_TEST = 'tests/contract/cache.test.ts';
const USERS_TEST = 'tests/contract/user-repository.test.ts';
const IDENTITIES_TEST = 'tests/contract/identity-repository.test.ts';
const LEDGER_TEST = 'tests/contract/coin-ledger.test.ts';
const UOW_TEST = 'tests/contract/unit-of-work.test.ts';
const OUTBOX_TEST = 'tests/contract/outbox.test.ts';
const cache = (tests: string[]) => entriesOn('protocol-and-memory: memory cache', 'adapters/memory/memory-cache.ts', tests);
const users = (tests: string[]) => entriesOn('protocol-and-memory: memory users', 'adapters/memory/memory-user-repository.ts', tests);
const identities = (tests: string[]) => entriesOn('protocol-and-memory: memory identities', 'adapters/memory/memory-identity-repository.ts', tests);
const ledger = (tests: string[]) => entriesOn('protocol-and-memory: memory coin ledger', 'adapters/memory/memory-coin-ledger.ts', tests);
const uow = (tests: string[]) => entriesOn('protocol-and-memory: sequelize unit of work', 'adapters/sequelize/sequelize-unit-of-work.ts', tests);

export const MUTATIONS: Mutation[] = [
  // adapters/comfyui-protocol-server/prompt-queue.ts
  queue([AUDIT])('a queued prompt sends no status broadcast', '    heapPush(this.pending, item);\n    this.changed();', '    heapPush(this.pending, item);'),
  queue([AUDIT])('a prompt queued while the worker waits is never run', '    this.changed();\n    this.wake?.();\n', '    this.changed();\n'),
  queue([AUDIT])('closing an idle stand-in never ends (the worker waits again)', '      if (signal.stopped) return null;\n      await', '      await'),
  queue([AUDIT])('the worker takes a prompt after the stand-in was closed', '    if (signal.stopped) return null;\n    const item', '    const item'),
  queue([AUDIT])('a prompt starting sends no status broadcast', '    this.running = structuredClone(item);\n    this.changed();', '    this.running = structuredClone(item);'),
  queue([AUDIT])('a finished prompt stays running', '    this.running = null;\n    if (item)', '    if (item)'),
  queue([AUDIT])('a finished prompt never reaches history', '    if (item) record(item);\n', ''),
  queue([AUDIT])('a finished prompt sends no status broadcast', '    if (item) record(item);\n    this.changed();', '    if (item) record(item);'),
  queue([AUDIT])('queue_remaining leaves out the running prompt', 'return this.pending.length + (this.running ? 1 : 0);', 'return this.pending.length;'),
  queue([AUDIT])('GET /queue lists no running prompt', 'running: this.running ? [toWire(this.running)] : [],', 'running: [],'),
  queue([AUDIT])('a clear removes nothing', '    this.pending = [];\n', ''),
  queue([AUDIT])('a clear sends no status broadcast', '    this.pending = [];\n    this.changed();', '    this.pending = [];'),
  queue([AUDIT])('deleting an unknown id removes the last pending prompt', '    if (index < 0) return false;\n', ''),
  queue([AUDIT])('deleting the last pending prompt reports once, not twice', 'if (this.pending.length === 1) {', 'if (false as boolean) {'),
  queue([AUDIT])('a delete leaves the heap out of order', '      this.pending.splice(index, 1);\n      heapify(this.pending);', '      this.pending.splice(index, 1);'),
  queue([AUDIT])('a delete sends no status broadcast', '    }\n    this.changed();\n    return true;', '    }\n    return true;'),

  // adapters/comfyui-protocol-server/prompt-heap.ts
  heap([AUDIT])('prompts of one number run in queue order, not by prompt_id', 'a.number !== b.number ? a.number < b.number : a.promptId < b.promptId', 'a.number < b.number'),
  heap([AUDIT])('a pushed item climbs past smaller parents', '    if (!less(item, parent)) break;\n', ''),
  heap([AUDIT])('a pop follows the larger child', 'if (right < end && !less(heap[child] as T, heap[right] as T)) child = right;', 'if (right < end && less(heap[child] as T, heap[right] as T)) child = right;'),
  heap([AUDIT])('a pop ignores the right child', 'if (right < end && !less(heap[child] as T, heap[right] as T)) child = right;', ''),
  heap([AUDIT])('the only pending prompt is never taken', 'if (last === undefined || heap.length === 0) return last;', 'if (last === undefined) return last;'),
  heap([AUDIT])('heapify skips the last parent', 'for (let i = (heap.length >> 1) - 1; i >= 0; i--)', 'for (let i = (heap.length >> 1) - 2; i >= 0; i--)'),

  // adapters/comfyui-protocol-server/progress-tracker.ts
  progress([AUDIT])('a node that starts shows as finished', "this.nodes.set(nodeId, { value: 0, max: 1, state: 'running' });\n    this.running = nodeId;", "this.nodes.set(nodeId, { value: 0, max: 1, state: 'finished' });\n    this.running = nodeId;"),
  progress([AUDIT])('a node that starts shows its max as 0', "this.nodes.set(nodeId, { value: 0, max: 1, state: 'running' });\n    this.running = nodeId;", "this.nodes.set(nodeId, { value: 0, max: 0, state: 'running' });\n    this.running = nodeId;"),
  progress([AUDIT])('a step is not in the snapshot', "    this.nodes.set(nodeId, { value, max, state: 'running' });\n", ''),
  progress([AUDIT])('a finished node shows the value of its last step, not its max', 'this.nodes.set(nodeId, { value: entry.max, max: entry.max, state:', 'this.nodes.set(nodeId, { value: entry.value, max: entry.max, state:'),
  progress([AUDIT])('an output node answered from the cache breaks its prompt', "const entry = this.nodes.get(nodeId) ?? { value: 0, max: 1, state: 'running' };", 'const entry = this.nodes.get(nodeId)!;'),
  progress([AUDIT])('a finished node still counts as running', '    if (this.running === nodeId) this.running = null;\n', ''),
  progress([AUDIT])('finishing with no node running adds a node "null"', 'if (this.running !== null) this.finish(this.running);', 'this.finish(this.running as string);'),
  progress([AUDIT])('a snapshot names no prompt', '    this.publish({ prompt_id: this.promptId, nodes });', '    this.publish({ nodes });'),

  // adapters/comfyui-protocol-server/run-costs.ts
  costs([COSTS_AUDIT])('a prompt without models counts as a model switch', "if (models !== '' && models !== this.loaded) {", 'if (models !== this.loaded) {'),
  costs([COSTS_AUDIT])('every prompt pays the model load', "if (models !== '' && models !== this.loaded) {", "if (models !== '') {"),
  costs([COSTS_AUDIT])('the loaded model is forgotten', '        this.loaded = models;\n', ''),
  costs([COSTS_AUDIT])('a model switch costs no time', '        await sleep(this.costs.modelLoadMs ?? 0);\n', ''),
  costs([COSTS_AUDIT])('a prompt pays one node whatever it executed', 'await sleep((this.costs.nodeMs ?? 0) * result.executed.length);', 'await sleep(this.costs.nodeMs ?? 0);'),
  costs([COSTS_AUDIT])('busy time is not counted', 'this.busyMs += performance.now() - began;', 'void began;'),

  // adapters/comfyui-protocol-server/http-support.ts
  http([AUDIT])('a JSON body sent without a JSON content type is not read', 'express.raw({ type: () => true, limit: limitBytes })', "express.raw({ type: 'application/json', limit: limitBytes })"),
  http([AUDIT])('an unknown path answers 200', "res.status(404).type('text/plain').send('404: Not Found');", "res.status(200).type('text/plain').send('404: Not Found');"),
  http([AUDIT])('a body over the upload limit is a 500', '    if (status === 413) {', '    if (false as boolean) {'),
  http(['tests/integration/comfy-protocol-server.test.ts'])('an error answer is JSON, not the plain-text 500', 'res.status(500).type(\'text/plain\').send(INTERNAL_ERROR_TEXT);', 'res.status(500).json({ error: String(error) });'),

  // adapters/memory/memory-cache.ts
  cache([CACHE_TEST])('an expired value is still read', '    if (entry.expiresAt <= this.now()) {', '    if (false as boolean) {'),
  cache([CACHE_TEST])('a ttl is read as milliseconds', 'this.entries.set(key, { value, expiresAt: this.now() + ttlSeconds * 1000 });', 'this.entries.set(key, { value, expiresAt: this.now() + ttlSeconds });'),
  cache([CACHE_TEST])('every hit starts a new window (a rate limit never trips)', '    const entry = this.live(key);\n    if (!entry) {', '    const entry = null as Entry | null;\n    if (!entry) {'),
  cache([CACHE_TEST])('a window never ends', "this.entries.set(key, { value: '1', expiresAt: this.now() + windowSeconds * 1000 });", "this.entries.set(key, { value: '1', expiresAt: Infinity });"),
  cache([CACHE_TEST])('a later hit reports the whole window as left', "    return { count: Number(entry.value), ttlSeconds: Math.ceil((entry.expiresAt - this.now()) / 1000) };\n  }\n\n  async decrement", "    return { count: Number(entry.value), ttlSeconds: windowSeconds };\n  }\n\n  async decrement"),
  cache([CACHE_TEST])('a decrement goes below zero', 'entry.value = String(Math.max(0, Number(entry.value) - 1));', 'entry.value = String(Number(entry.value) - 1);'),
  cache([CACHE_TEST])('a decrement of a missing counter throws', 'if (entry) entry.value = String(', 'entry!.value = String('),
  cache([CACHE_TEST])('a counter read of a missing key fails', 'return entry ? { count: Number(entry.value), ttlSeconds: Math.ceil((entry.expiresAt - this.now()) / 1000) } : null;', 'return { count: Number(entry!.value), ttlSeconds: Math.ceil((entry!.expiresAt - this.now()) / 1000) };'),
  cache([MEMORY_AUDIT])('the sweep drops live values too', 'for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);', 'for (const [key] of this.entries) this.entries.delete(key);'),

  // adapters/memory/memory-user-repository.ts
  users([USERS_TEST])('a taken email makes a second account', '    for (const existing of this.store.users.values()) if (existing.email === user.email) return false;\n', ''),
  users([USERS_TEST])('findById carries the password hash', 'return user ? publicUser(user) : null;', 'return user ? { ...user } : null;'),
  users([USERS_TEST])('setRole of an unknown id throws', '    if (!user) return;\n    user.role = role;', '    user!.role = role;'),
  users([USERS_TEST])('a list without a search finds nobody', '.filter((user) => !needle || user.email', '.filter((user) => user.email'),
  users([USERS_TEST])('a display-name search is case-sensitive', 'user.displayName.toLowerCase().includes(needle)', 'user.displayName.includes(needle!)'),
  users([USERS_TEST])('the user list is oldest first', '.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());', '.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());'),
  users([USERS_TEST])('every page of users is the first', '    const start = offsetOf(request);\n    return pageOf(matches', '    const start = 0;\n    return pageOf(matches'),

  // adapters/memory/memory-identity-repository.ts
  identities([IDENTITIES_TEST])("a subject linked to one user is linked to another too", '    if (this.identities.has(keyOf(identity.provider, identity.subject))) return false;\n', ''),
  identities([IDENTITIES_TEST])('a user links two identities at one provider', '    for (const existing of this.identities.values()) if (existing.userId === identity.userId && existing.provider === identity.provider) return false;\n', ''),
  identities([MEMORY_AUDIT])('provider and subject are keyed as one text ("git"+"hub-1" is "github"+"-1")', 'const keyOf = (provider: string, subject: string) => `${provider}\\u0000${subject}`;', 'const keyOf = (provider: string, subject: string) => `${provider}${subject}`;'),
  identities([IDENTITIES_TEST])("a user's identities list everyone's", '      .filter((identity) => identity.userId === userId)\n', ''),
  identities([IDENTITIES_TEST])("a user's identities are not listed oldest first", 'a.createdAt.getTime() - b.createdAt.getTime() || ', ''),
  identities([IDENTITIES_TEST])("unlink removes another user's identity at that provider", 'if (identity.userId === userId && identity.provider === provider) return this.identities.delete(key);', 'if (identity.provider === provider) return this.identities.delete(key);'),

  // adapters/memory/memory-coin-ledger.ts
  ledger([LEDGER_TEST])('an entry for an unknown user throws', "    if (!user) return { ok: false, reason: 'user_not_found' };\n", ''),
  ledger([LEDGER_TEST])('a debit larger than the balance is applied', "    if (user.coinBalance + entry.amount < 0) return { ok: false, reason: 'insufficient' };\n", ''),
  ledger([LEDGER_TEST])('spending the whole balance is refused', 'if (user.coinBalance + entry.amount < 0) return', 'if (user.coinBalance + entry.amount <= 0) return'),
  ledger([MEMORY_AUDIT])("an applied entry leaves the user's update time", '    user.updatedAt = entry.createdAt;\n', ''),
  ledger([LEDGER_TEST])("a user's ledger lists everyone's rows", 'const mine = this.store.coinTransactions.filter((t) => t.userId === userId).reverse();', 'const mine = [...this.store.coinTransactions].reverse();'),
  ledger([LEDGER_TEST])('the ledger lists oldest first', 'const mine = this.store.coinTransactions.filter((t) => t.userId === userId).reverse();', 'const mine = this.store.coinTransactions.filter((t) => t.userId === userId);'),
  ledger([LEDGER_TEST])("the rows of an entity include other users' rows", 'this.store.coinTransactions.filter((t) => t.userId === userId && t.relatedEntityId === relatedEntityId)', 'this.store.coinTransactions.filter((t) => t.relatedEntityId === relatedEntityId)'),
  ledger([LEDGER_TEST])("a user's sum adds everyone's rows", 'return this.store.coinTransactions.filter((t) => t.userId === userId).reduce(', 'return this.store.coinTransactions.reduce('),

  // adapters/sequelize/sequelize-unit-of-work.ts
  uow([UOW_TEST])('afterCommit hooks run at once (also before a rollback)', '    this.txScope.afterCommit(hook);', '    void hook();'),
  uow([UOW_TEST])('a unit of work writes outside its transaction (nothing rolls back)', 'return this.db.transaction((scope) => work(new SequelizeTransaction(scope, this.writer)));', 'return this.db.transaction(() => work(new SequelizeTransaction(this.db.autocommit, this.writer)));'),
  uow([MEMORY_AUDIT])('the outbox writer of a database queue is ignored (messages go through the outbox table)', 'this.writer = options.outboxWriter ?? ((scope) => new SequelizeOutbox(scope, signal));', 'this.writer = (scope) => new SequelizeOutbox(scope, signal);'),
  uow([OUTBOX_TEST])("relays are not woken by a transaction's outbox entries", 'this.outbox = new SequelizeOutbox(db.autocommit, signal);', 'this.outbox = new SequelizeOutbox(db.autocommit, new OutboxSignal());'),
  uow(['tests/integration/queue-ack-in-transaction.test.ts'])("a job's queue ack is not part of its transaction", '    this[SCOPE] = txScope;\n', ''),
];
