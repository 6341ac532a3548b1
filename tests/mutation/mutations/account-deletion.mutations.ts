import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Deleting accounts (ADR 063). Each guard here keeps an account from ending when it should not (a wrong proof, a key, an
 * administrator on their own), or keeps something alive that a deletion ends (a job, a login, a key, an identity, a
 * file), or keeps the purge from losing a file or deleting a live account.
 *
 * The proof of the password is shared with the password change: its entries are in account.mutations.ts and run the
 * tests of both. Not listed: the admin route's UUID check (an id that is not one matches no row: the same 404 without
 * it); the scheduled sweep's registration (the deletion starts the purge itself; the sweep's purge is the same code, tested
 * by `execute` in the unit test).
 */
const ROUTES = 'tests/integration/account-deletion.test.ts';
const UNIT = 'tests/unit/account-deletion.test.ts';
const USERS = 'tests/contract/user-repository.test.ts';
const removal = entriesOn('account-deletion', 'core/use-cases/auth/delete-account.use-case.ts', [UNIT, ROUTES]);
const purge = entriesOn('account-deletion', 'core/use-cases/auth/purge-deleted-accounts.use-case.ts', [UNIT]);
const sqlUsers = entriesOn('account-deletion', 'adapters/sequelize/sequelize-user-repository.ts', [USERS]);
const memUsers = entriesOn('account-deletion', 'adapters/memory/memory-user-repository.ts', [USERS]);

export const MUTATIONS: Mutation[] = [
  removal('an account is deleted twice (refunds and audit again)', '    if (!(await tx.users.markDeleted(userId, clock.now()))) return null;', '    await tx.users.markDeleted(userId, clock.now());'),
  removal('a deletion leaves the jobs queued and running', '    const cancelled = await cancelActiveJobs(tx, lifecycle, userId);', '    const cancelled: string[] = [];'),
  removal('the cancel loop stops after one round', '    if (endedThisRound === 0) return cancelled;', '    return cancelled;'),
  removal('the forfeited coins are read before the refunds', '    const balance = await tx.ledger.sum(userId);\n', '', [
    { file: 'core/use-cases/auth/delete-account.use-case.ts', find: '    if (!(await tx.users.markDeleted(userId, clock.now()))) return null;\n', replace: '    if (!(await tx.users.markDeleted(userId, clock.now()))) return null;\n    const balance = await tx.ledger.sum(userId);\n' },
  ]),
  removal('a deletion leaves the other logins alive', '    await revocations.endOtherLogins(tx, userId, null);\n', ''),
  removal('a deletion leaves the API keys live', '    for (const keyId of await tx.apiKeys.revokeAllForUser(userId, clock.now())) tx.afterCommit(() => revocations.keyRevoked(userId, keyId));\n', ''),
  removal("a deletion leaves the API keys' sockets open", '    for (const keyId of await tx.apiKeys.revokeAllForUser(userId, clock.now())) tx.afterCommit(() => revocations.keyRevoked(userId, keyId));', '    await tx.apiKeys.revokeAllForUser(userId, clock.now());'),
  removal('a deletion leaves the provider identities linked', '    await tx.identities.unlinkAll(userId);\n', ''),
  removal('the audit row is written after the commit', '    await alsoInTx?.(tx, removed);\n    return { removed, cancelled };\n  });', '    return { removed, cancelled };\n  });\n  if (outcome) await uow.run((tx) => alsoInTx?.(tx, outcome.removed) ?? Promise.resolve());'),
  removal('running jobs are not interrupted', '    await deps.requestCancel(jobId).catch(', '    await Promise.resolve(jobId).catch('),
  removal('the purge waits for the sweep', '  deps.purgeSoon(userId);\n', ''),
  removal("a session deletes another user's account when the email names them", '    if (!user || user.id !== input.userId) return', '    if (!user) return'),
  removal('a missing password is taken as empty', "      if (typeof password !== 'string' || password.length === 0 || password.length > 1024) return", "      if (typeof password !== 'string' && (false as boolean)) return"),
  removal('a deletion goes on when the password is refused', '      if (refused) return refused;\n', ''),
  removal('an account without a password is deleted without the email typed out', "    } else if (typeof input.confirmEmail !== 'string' || normalizeEmail(input.confirmEmail) !== user.email) {", '    } else if (false as boolean) {'),
  removal('the typed email must match in case and spaces', '    } else if (typeof input.confirmEmail !== \'string\' || normalizeEmail(input.confirmEmail) !== user.email) {', "    } else if (typeof input.confirmEmail !== 'string' || input.confirmEmail !== user.email) {"),
  removal('an administrator deletes their own account without a password', "    if (input.actorId === input.userId) return fail('CONFLICT',", "    if (false as boolean) return fail('CONFLICT',"),
  removal("the operator's deletion writes an audit row with no actor", '      if (input.actorId === null) return;\n', ''),
  entriesOn('account-deletion', 'adapters/http/routes/account-deletion.routes.ts', [ROUTES])('the deletion leaves the browser signed in', '      clearSessionCookies(res, deps.cookies);\n', ''),
  entriesOn('account-deletion', 'adapters/http/api-key-scopes.ts', [ROUTES, 'tests/integration/api-keys.test.ts'])(
    'an admin API key deletes accounts',
    "const SESSION_ONLY_ADMIN_ROUTES = new Set(['post /admin/users/:id/password-reset', 'delete /admin/users/:id']);",
    "const SESSION_ONLY_ADMIN_ROUTES = new Set(['post /admin/users/:id/password-reset']);",
  ),
  entriesOn('account-deletion', 'core/domain/user.ts', [ROUTES])('the address a husk keeps can be registered', ' && !email.toLowerCase().endsWith(DELETED_DOMAIN);', ';'),

  purge("a purge of a live account cancels its jobs and deletes its files", '    if (await users.findById(userId)) {\n      logger.warn', '    if (false as boolean) {\n      logger.warn'),
  purge('a job that committed as the account was deleted is left queued', '    const late = await uow.run((tx) => cancelActiveJobs(tx, lifecycle, userId));', '    const late: string[] = [];'),
  purge("a purge leaves a test run's outputs (the history page's list)", '      () => history.listAllForUser(userId, BATCH),', '      async () => (await history.listForUser(userId, { page: 1, limit: BATCH })).items,'),
  purge('a purge of one account runs twice in parallel', '    if (running) return running;\n', ''),
  purge('an output row is deleted before its file', '        await storage.delete(item.storageKey);\n        await history.delete(item.id);', '        await history.delete(item.id);\n        await storage.delete(item.storageKey);'),
  purge('an upload row is deleted before its file', '        await storage.delete(upload.storageKey);\n        await uploads.delete(upload.id);', '        await uploads.delete(upload.id);\n        await storage.delete(upload.storageKey);'),
  purge('the uploads are not deleted', '      () => uploads.listForUser(userId, BATCH),', '      async () => (await uploads.listForUser(userId, BATCH)).slice(0, 0),'),
  purge('a row that will not go loops for ever', '      if (removed.has(row.id)) throw new Error', '      if (false as boolean) throw new Error'),
  purge('a failed purge stops the sweep', "        this.deps.logger.warn('deleted account not purged yet; the next sweep retries', { userId, error: String(error) });\n        return false;", '        throw error;'),

  sqlUsers('a husk is deleted again', 'email_change_expires_at = NULL, updated_at = ? WHERE id = ? AND deleted_at IS NULL`,', 'email_change_expires_at = NULL, updated_at = ? WHERE id = ?`,'),
  sqlUsers('a husk keeps its email', '`UPDATE users SET deleted_at = ?, email = ?, display_name = ?,', '`UPDATE users SET deleted_at = ?, email = email, display_name = ?,', [
    { file: 'adapters/sequelize/sequelize-user-repository.ts', find: '      [at, deletedEmail(id), DELETED_DISPLAY_NAME, at, id],', replace: '      [at, DELETED_DISPLAY_NAME, at, id],' },
  ]),
  sqlUsers('a husk keeps its password', 'display_name = ?, password_hash = NULL, password_reset_hash', 'display_name = ?, password_reset_hash'),
  sqlUsers('a husk is found by id', 'FROM users WHERE id = ? AND deleted_at IS NULL', 'FROM users WHERE id = ?'),
  sqlUsers('a husk is found by its email', 'where: { email, deleted_at: null }', 'where: { email }'),
  sqlUsers('a husk gets a new name', '{ display_name: displayName, updated_at: at }, { where: { id, deleted_at: null }', '{ display_name: displayName, updated_at: at }, { where: { id }'),
  sqlUsers('a husk gets a reset link', 'password_reset_expires_at: reset.expiresAt, updated_at: at }, { where: { id, deleted_at: null }', 'password_reset_expires_at: reset.expiresAt, updated_at: at }, { where: { id }'),
  sqlUsers('a husk is listed', ': { deleted_at: null };', ': {};'),
  sqlUsers('a husk is found by a search', '? { deleted_at: null, [Op.or]:', '? { [Op.or]:'),
  sqlUsers('a live account is purged', 'DELETE FROM users WHERE id = ? AND deleted_at IS NOT NULL', 'DELETE FROM users WHERE id = ?'),
  sqlUsers('an account with outputs is purged', '         AND NOT EXISTS (SELECT 1 FROM history_items WHERE user_id = ?)\n', '         AND ? IS NOT NULL\n'),
  sqlUsers('an account with uploads is purged', '         AND NOT EXISTS (SELECT 1 FROM uploads WHERE user_id = ?)\n', '         AND ? IS NOT NULL\n'),
  sqlUsers("an account with unfinished jobs is purged", "         AND NOT EXISTS (SELECT 1 FROM generation_jobs WHERE user_id = ? AND status IN ('queued', 'running'))", '         AND ? IS NOT NULL'),
  sqlUsers('listDeleted lists live accounts', 'SELECT id FROM users WHERE deleted_at IS NOT NULL ORDER BY', 'SELECT id FROM users ORDER BY'),
  sqlUsers('listDeleted lists newest deletions first', 'ORDER BY deleted_at ASC, id ASC LIMIT', 'ORDER BY deleted_at DESC, id ASC LIMIT'),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-history-repository.ts', ['tests/contract/history-repository.test.ts'])(
    "listAllForUser lists another user's outputs",
    "const rows = await this.items.findAll({ where: { user_id: userId }, order: [['created_at', 'ASC'], ['id', 'ASC']], limit: max,",
    "const rows = await this.items.findAll({ where: {}, order: [['created_at', 'ASC'], ['id', 'ASC']], limit: max,",
  ),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-history-repository.ts', ['tests/contract/history-repository.test.ts'])(
    'listAllForUser lists newest first',
    "where: { user_id: userId }, order: [['created_at', 'ASC'], ['id', 'ASC']], limit: max,",
    "where: { user_id: userId }, order: [['created_at', 'DESC'], ['id', 'ASC']], limit: max,",
  ),
  entriesOn('account-deletion', 'adapters/memory/memory-history-repository.ts', ['tests/contract/history-repository.test.ts'])(
    "listAllForUser lists another user's outputs (memory)",
    '      .filter((item) => item.userId === userId)\n      .sort(',
    '      .sort(',
  ),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-session-repository.ts', [USERS])('a login of a husk is active', 'AS revoked FROM users WHERE id = ? AND deleted_at IS NULL`;', 'AS revoked FROM users WHERE id = ?`;'),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-session-repository.ts', [USERS])('a batched login of a husk is active', 'FROM users WHERE id IN ${inList(userIds.length)} AND deleted_at IS NULL` +', 'FROM users WHERE id IN ${inList(userIds.length)}` +'),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-api-key-repository.ts', [USERS])('a revoked key is listed as revoked again', "'SELECT id FROM api_keys WHERE user_id = :userId AND revoked_at IS NULL'", "'SELECT id FROM api_keys WHERE user_id = :userId'"),

  entriesOn('account-deletion', 'adapters/sequelize/sequelize-upload-repository.ts', [USERS])(
    "listForUser lists another user's uploads",
    "const rows = await this.uploads.findAll({ where: { user_id: userId }, order: [['created_at', 'ASC'], ['id', 'ASC']], limit,",
    "const rows = await this.uploads.findAll({ where: {}, order: [['created_at', 'ASC'], ['id', 'ASC']], limit,",
  ),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-identity-repository.ts', [USERS])(
    "unlinkAll unlinks another user's identities",
    'identityModel(s.sequelize).destroy({ where: { user_id: userId }, ...s.options }));\n  }\n}',
    'identityModel(s.sequelize).destroy({ where: {}, ...s.options }));\n  }\n}',
  ),
  entriesOn('account-deletion', 'adapters/sequelize/sequelize-api-key-repository.ts', [USERS])(
    "revokeAllForUser revokes another user's keys",
    "'UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', {\n        replacements: [sqlTime(at, s.dialect), userId],",
    "'UPDATE api_keys SET revoked_at = ? WHERE ? IS NOT NULL AND revoked_at IS NULL', {\n        replacements: [sqlTime(at, s.dialect), userId],",
  ),
  entriesOn('account-deletion', 'adapters/memory/memory-identity-repository.ts', [USERS])(
    "unlinkAll unlinks another user's identities (memory)",
    'if (identity.userId === userId && this.identities.delete(key)) removed += 1;',
    'if (this.identities.delete(key)) removed += 1;',
  ),
  memUsers('a husk is deleted again (memory)', '    const user = this.live(id);\n    if (!user) return false;\n    Object.assign(', '    const user = this.store.users.get(id);\n    if (!user) return false;\n    Object.assign('),
  memUsers('a husk keeps its email, name and password (memory)', "    Object.assign(user, { deletedAt: at, email: deletedEmail(id), displayName: DELETED_DISPLAY_NAME, passwordHash: null, passwordReset: null, emailChange: null, updatedAt: at });", '    Object.assign(user, { deletedAt: at, emailChange: null, updatedAt: at });'),
  memUsers('a husk is found (memory)', '    return user && !user.deletedAt ? user : undefined;', '    return user;'),
  memUsers('a husk is found by its email (memory)', 'if (user.email === email && !user.deletedAt) return', 'if (user.email === email) return'),
  memUsers('a husk is listed (memory)', '      .filter((user) => !user.deletedAt)\n', ''),
  memUsers('a live account is purged (memory)', '    if (!user?.deletedAt) return false;', '    if (!user) return false;'),
  memUsers('an account with outputs is purged (memory)', "    if (owns('history_items') || owns('uploads') ||", '    if (owns(\'uploads\') ||'),
  memUsers('an account with uploads is purged (memory)', "    if (owns('history_items') || owns('uploads') ||", "    if (owns('history_items') ||"),
  memUsers('an account with unfinished jobs is purged (memory)', " || owns('generation_jobs', (job: GenerationJob) => job.status === 'queued' || job.status === 'running')) return false;", ') return false;'),
  entriesOn('account-deletion', 'adapters/memory/memory-session-repository.ts', [USERS])('a login of a husk is active (memory)', "    if (!stored || stored.deletedAt) return { state: 'no-user' };", "    if (!stored) return { state: 'no-user' };"),
  entriesOn('account-deletion', 'adapters/memory/memory-store.ts', [USERS])('a purge leaves the ledger (memory)', '    const kept = this.coinTransactions.filter((entry) => entry.userId !== id);', '    const kept = [...this.coinTransactions];'),
  entriesOn('account-deletion', 'adapters/memory/memory-store.ts', [USERS])('a purge leaves the rows that name the user (memory)', '      for (const [key, row] of table) if ((row as { userId?: unknown } | null)?.userId === id) table.delete(key);', '      void table;'),
  entriesOn('account-deletion', 'adapters/memory/memory-api-key-repository.ts', [USERS])('a revoked key is listed as revoked again (memory)', '.filter((key) => key.revokedAt === null && key.userId === userId);', '.filter((key) => key.userId === userId);'),
];
