import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of the Sequelize persistence adapters (SQLite and MariaDB) that the shared contracts leave open: the coin
 * ledger, the database queue's publish and diagnostics, the output history, refresh sessions, API keys, templates,
 * the SQL time text and the plain SQLite statements. All pinned by tests/integration/sequelize-audit.test.ts.
 */
const AUDIT = ['tests/integration/sequelize-audit.test.ts'];
const ledger = entriesOn('persistence', 'adapters/sequelize/sequelize-coin-ledger.ts', AUDIT);
const queue = entriesOn('persistence', 'adapters/sequelize/sequelize-message-queue.ts', AUDIT);
const history = entriesOn('persistence', 'adapters/sequelize/sequelize-history-repository.ts', AUDIT);
const sessions = entriesOn('persistence', 'adapters/sequelize/sequelize-session-repository.ts', AUDIT);
const apiKeys = entriesOn('persistence', 'adapters/sequelize/sequelize-api-key-repository.ts', AUDIT);
const templates = entriesOn('persistence', 'adapters/sequelize/sequelize-template-repository.ts', AUDIT);
const sqlScope = entriesOn('persistence', 'adapters/sequelize/sql-scope.ts', AUDIT);
const plainReader = entriesOn('persistence', 'adapters/sequelize/plain-reader.ts', AUDIT);

export const MUTATIONS: Mutation[] = [
  // adapters/sequelize/sequelize-coin-ledger.ts
  ledger('SQL ledger: a fractional amount moves fractional coins', 'const amount = Math.trunc(entry.amount);', 'const amount = entry.amount;'),
  ledger("SQL ledger: a debit of the user's whole balance is refused", "const guard = amount < 0 ? ' AND coin_balance >= ?' : '';", "const guard = amount < 0 ? ' AND coin_balance > ?' : '';"),
  ledger(
    'SQL ledger (MariaDB): a balance change stays although its ledger row was refused (not one transaction)',
    'return this.scope.atomic(async (scope) => {\n      const guard',
    'return this.scope.write(async (scope) => {\n      const guard',
  ),
  ledger('SQL ledger: the first page of the ledger holds every row', '      limit: request.limit,\n', ''),
  ledger('SQL ledger: page 2 of the ledger repeats page 1', '      offset: offsetOf(request),\n', ''),
  ledger("SQL ledger: an entity's rows come newest first (a refund before its charge)", "order: [['created_at', 'ASC'], ['id', 'ASC']],", "order: [['created_at', 'DESC'], ['id', 'DESC']],"),

  // adapters/sequelize/sequelize-message-queue.ts
  queue('database queue: a message published without an id fails the publish', 'const messageId = message.messageId ?? id;', 'const messageId = message.messageId as string;'),
  queue('database queue: a message published without a body fails the publish', 'JSON.stringify(message.body ?? null), now, fairKey', 'JSON.stringify(message.body), now, fairKey'),
  queue('database queue: consume() takes options it cannot honour', '    validateConsumeOptions(options);\n', ''),
  queue('database queue: publishing a message id again fails the publish', '      if (isUniqueViolation(error)) return { messageId };\n', ''),
  queue(
    "database queue: an owner's dead and acknowledged messages push its next message back",
    "WHERE fair_key = ? AND status = 'ready'\", [fairKey]",
    'WHERE fair_key = ?", [fairKey]',
  ),
  queue(
    "database queue: other owners' waiting messages push an owner's message back",
    "WHERE fair_key = ? AND status = 'ready'\", [fairKey]",
    "WHERE (fair_key = ? OR 1 = 1) AND status = 'ready'\", [fairKey]",
  ),
  queue('database queue: peek lists dead letters and tombstones', "where: { status: 'ready', [Op.or]:", 'where: { [Op.or]:'),
  queue('database queue: peek lists messages a consumer holds', ", [Op.or]: [{ claim_token: null }, { visible_at: { [Op.lte]: this.clock.now() } }] },", ' },'),
  queue('database queue: peek leaves out messages whose hold ran out', '[{ claim_token: null }, { visible_at: { [Op.lte]: this.clock.now() } }]', '[{ claim_token: null }]'),
  queue('database queue: the dead letters list waiting and acknowledged messages', "where: { status: 'dead' },", 'where: {},'),
  queue('database queue: a dead letter without a reason shows reason null', '...(row.last_error !== null ? { reason: row.last_error } : {})', 'reason: row.last_error'),
  queue(
    'database queue: a redriven dead letter keeps its used-up attempts (it is never handled again)',
    "{ status: 'ready', attempts: 0, claim_token: null,",
    "{ status: 'ready', claim_token: null,",
  ),
  queue('database queue: a redriven dead letter waits out the visibility of its last delivery', 'last_error: null, visible_at: now, updated_at: now', 'last_error: null, updated_at: now'),
  queue('database queue: a redriven dead letter waits for the next poll (a minute)', '    if (changed) this.wakeConsumers();\n', ''),
  queue('database queue: redrive and discard of an unknown id answer true', 'return changed === 1;', 'return changed >= 0;'),
  queue("database queue: stats count other environments' messages", 'WHERE environment = :environment AND (', 'WHERE (environment = :environment OR 1 = 1) AND ('),
  queue('database queue: stats count no dead letters', "(status = 'dead' OR (status = 'ready'", "((status = 'ready'"),

  // adapters/sequelize/sequelize-history-repository.ts
  history("history: a duplicate output is an error, not false (the job's finish fails on a redelivery)", '      if (isUniqueViolation(error)) return false;\n', ''),
  history("history: a job's outputs include every other job's outputs", "where: { job_id: jobId }, order: [['created_at', 'ASC'], ['file_name', 'ASC']]", "where: {}, order: [['created_at', 'ASC'], ['file_name', 'ASC']]"),
  history('history: outputs of an empty job list fail the read', '    if (jobIds.length === 0) return [];\n', ''),
  history('history: deleting one output deletes every output', 'destroy({ where: { id }, ...s.options })', 'destroy({ where: {}, ...s.options })'),
  history('history: the expiry sweep takes more than it was asked for', "order: [['expires_at', 'ASC']], limit: max,", "order: [['expires_at', 'ASC']],"),

  // adapters/sequelize/sequelize-session-repository.ts
  sessions('sessions: store: an unknown refresh token hash finds some session', 'where: { token_hash: tokenHash }', 'where: {}'),
  sessions("sessions: store: a lone login check of a deleted user fails (500, not 401)", "return [!row ? { state: 'no-user' } : row.revoked", 'return [row!.revoked'),
  sessions('sessions: store: a lone login check of a revoked login is active', "row.revoked === null ? { state: 'active', user: toUser(row) }", "true ? { state: 'active', user: toUser(row) }"),
  sessions('sessions: store: a batch of login checks without a family fails on MariaDB (an empty IN list)', '(familyIds.length === 0', '(false'),

  // adapters/sequelize/sequelize-api-key-repository.ts
  apiKeys('api keys: store: an unknown prefix finds some key', 'FROM api_keys WHERE prefix = ?', 'FROM api_keys WHERE prefix = ? OR 1 = 1'),
  apiKeys("api keys: store: one key's use is recorded on every key", 'SET last_used_at = ? WHERE id = ? AND', 'SET last_used_at = ? WHERE (id = ? OR 1 = 1) AND'),

  // adapters/sequelize/sequelize-template-repository.ts
  templates('templates: SQL create with a taken name is an error, not false', '        if (isUniqueViolation(error)) return false;\n', ''),
  templates('templates: SQL nameTaken counts the template being renamed', ', ...(exceptId ? { id: { [Op.ne]: exceptId } } : {})', ''),
  templates("templates: SQL update to a taken name is an error, not 'name_taken'", "        if (isUniqueViolation(error)) return 'name_taken';\n", ''),
  templates('templates: SQL update with a new version writes no version row', 'if (options.newVersion) {', 'if (false as boolean) {'),
  templates('templates: SQL findById for update fails on SQLite (FOR UPDATE sent to a dialect without it)', "options.forUpdate && this.scope.dialect === 'mysql' ? ' FOR UPDATE' : ''", "options.forUpdate ? ' FOR UPDATE' : ''"),
  templates('templates: SQL names of no templates fail the read (an empty IN list)', '    if (ids.length === 0) return new Map();\n', ''),
  templates('templates: SQL an unknown version of a known template fails the read', '    if (!row) return null;\n', ''),
  templates('templates: SQL list comes in no set order', "      order: [['created_at', 'ASC'], ['name', 'ASC'], ['id', 'ASC']],\n", ''),
  templates('templates: SQL soft delete answers true for an unknown or deleted template', 'return changed === 1;', 'return true;'),

  // adapters/sequelize/sql-scope.ts
  sqlScope('SQL times: raw statements drop the milliseconds', 'const text = `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;', 'const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;'),

  sqlScope("SQL pages: page 2 of a user's outputs repeats page 1", ' OFFSET ${Math.max(0, Math.floor(offsetOf(request)))}`', '`'),

  // adapters/sequelize/plain-reader.ts
  plainReader('plain SQLite statements: one that failed to prepare keeps failing after its table exists', '        if (this.statements.get(sql) === preparing) this.statements.delete(sql);\n', ''),
];
