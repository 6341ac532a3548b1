import { entriesOn, type Mutation, webGuard } from '../mutation.ts';

/**
 * Accounts (ADR 062): a user's display name and password, and the one-time reset links administrators make. Each guard
 * here keeps a password from changing when it should not (a wrong proof, a dead link, a second use), or a session alive
 * that should end, or a link in hands that should not make one.
 *
 * Not listed: the reset route's UUID check (an id that is not one matches no row, and answers the same 404 without it),
 * and the token's length check (the body schema refuses a longer one first, and a longer one matches no hash).
 */
const ROUTES = 'tests/integration/account.test.ts';
const UNIT = 'tests/unit/account-use-cases.test.ts';
const USERS = 'tests/contract/user-repository.test.ts';
const SESSIONS = 'tests/contract/session-repository.test.ts';
const BROWSER = 'tests/browser/account.test.ts';
const change = entriesOn('account', 'core/use-cases/auth/change-password.use-case.ts', [ROUTES, UNIT]);
const reset = entriesOn('account', 'core/use-cases/auth/reset-password.use-case.ts', [ROUTES, UNIT]);
const issue = entriesOn('account', 'core/use-cases/auth/issue-password-reset.use-case.ts', [ROUTES, UNIT]);
const sqlUsers = entriesOn('account', 'adapters/sequelize/sequelize-user-repository.ts', [USERS]);
const memUsers = entriesOn('account', 'adapters/memory/memory-user-repository.ts', [USERS]);
const sqlSessions = entriesOn('account', 'adapters/sequelize/sequelize-session-repository.ts', [SESSIONS]);
const memSessions = entriesOn('account', 'adapters/memory/memory-session-repository.ts', [SESSIONS]);
/** The proof of a password a change and a deletion share (ADR 062, 063): the tests of both. */
const proof = entriesOn('account', 'core/use-cases/auth/password-proof.service.ts', [ROUTES, UNIT, 'tests/unit/account-deletion.test.ts', 'tests/integration/account-deletion.test.ts']);
const web = (source: string) => webGuard('account', source, [BROWSER]);

export const MUTATIONS: Mutation[] = [
  proof('a wrong password passes the proof (a change, a deletion)', '  if (!(await hasher.verify(proof.password, account.passwordHash))) return', '  if (false as boolean) return'),
  change('a change goes on when the current password is refused', '    if (refused) return refused;\n', ''),
  change('a missing current password is taken as empty', "    if (typeof currentPassword !== 'string' || currentPassword.length === 0 || currentPassword.length > 1024) {", '    if (typeof currentPassword !== \'string\' && (false as boolean)) {'),
  change('the new password may be the current one', '    if (newPassword === currentPassword) return', '    if (false as boolean) return'),
  change('a weak new password is taken', '    if (weak) return validationFailed([{ field: \'newPassword\', message: weak }]);\n    if (newPassword', '    if (false as boolean) return validationFailed([{ field: \'newPassword\', message: weak }]);\n    if (newPassword'),
  change('an account without a password gets one from a session alone', '    if (!user.passwordHash) {', '    if (false as boolean) {'),
  change("a change changes another user's password when the email names them", '    if (!user || user.id !== input.userId) return', '    if (!user) return'),
  proof('wrong passwords are not limited (a change, a deletion)', '  if (!reserved.ok) return', '  if (false as boolean) return'),
  proof('a right password counts as a failed login', '  await reserved.release();\n', ''),
  change('a change ends no other session', '      return revocations.endOtherLogins(tx, user.id, input.sessionId);', '      return 0;'),
  change(
    'a change commits the new password before the other sessions end',
    '    const otherSessionsEnded = await uow.run(async (tx) => {\n      if (!(await tx.users.setPasswordHash(user.id, passwordHash, previousHash, clock.now()))) return null;\n',
    '    const set = await uow.run((tx) => tx.users.setPasswordHash(user.id, passwordHash, previousHash, clock.now()));\n    const otherSessionsEnded = await uow.run(async (tx) => {\n      if (!set) return null;\n',
  ),
  entriesOn('account', 'core/use-cases/auth/session-revocations.service.ts', [ROUTES])(
    'a change of password ends the session that made it too',
    '.filter((family) => family !== keep);',
    ';',
  ),
  entriesOn('account', 'core/use-cases/auth/session-revocations.service.ts', [UNIT])(
    'the sockets of logins a rolled-back reset did not end are closed',
    "      tx.afterCommit(() => this.announce({ type: 'session.revoked', userId, sessionId: family }));",
    "      void this.announce({ type: 'session.revoked', userId, sessionId: family });",
  ),
  reset('a made-up token reaches the hashing', '    if (!user) return validationFailed([{ field: \'token\', message: DEAD_LINK }]);', "    if (!user) {\n      await hasher.hash(String(input.newPassword));\n      return validationFailed([{ field: 'token', message: DEAD_LINK }]);\n    }"),
  reset('a link used, replaced or expired while the password was hashed reports success', '      if (!(await tx.users.resetPassword(user.id, tokenHash, passwordHash, clock.now()))) return false;', '      await tx.users.resetPassword(user.id, tokenHash, passwordHash, clock.now());'),
  reset('a weak password is set by a reset link', '    if (weak) return validationFailed([{ field: \'newPassword\', message: weak }]);\n    const passwordHash', '    if (false as boolean) return validationFailed([{ field: \'newPassword\', message: weak }]);\n    const passwordHash'),
  reset('a reset leaves the sessions of the account alive', '      await revocations.endOtherLogins(tx, user.id, null);\n', ''),
  reset(
    'a reset commits the new password before the sessions end',
    '    const used = await uow.run(async (tx) => {\n      if (!(await tx.users.resetPassword(user.id, tokenHash, passwordHash, clock.now()))) return false;\n',
    '    const set = await uow.run((tx) => tx.users.resetPassword(user.id, tokenHash, passwordHash, clock.now()));\n    const used = await uow.run(async (tx) => {\n      if (!set) return false;\n',
  ),
  reset('a token that is no string is hashed anyway', "    if (typeof input.token !== 'string' || input.token.length === 0 || input.token.length > 256)", "    if (typeof input.token !== 'string' && (false as boolean))"),
  issue('a link for a user who is gone is made and audited', "      if (!(await tx.users.setPasswordReset(input.userId, { tokenHash: tokens.hashOpaqueToken(token), expiresAt }, now))) return fail('NOT_FOUND', 'User not found');", '      await tx.users.setPasswordReset(input.userId, { tokenHash: tokens.hashOpaqueToken(token), expiresAt }, now);'),
  issue("an administrator's link is not audited", '      if (input.actorId !== null) {', '      if (false as boolean) {'),
  entriesOn('account', 'adapters/http/api-key-scopes.ts', [ROUTES, 'tests/integration/api-keys.test.ts'])(
    'an admin API key makes reset links',
    "  if (route.auth === 'admin') return SESSION_ONLY_ADMIN_ROUTES.has(`${route.method} ${route.path}`) ? null : 'admin';",
    "  if (route.auth === 'admin') return 'admin';",
  ),
  entriesOn('account', 'adapters/http/routes/account.routes.ts', [ROUTES])('a reset link may be cached on the way', "      res.setHeader('Cache-Control', 'no-store');\n", ''),
  entriesOn('account', 'core/use-cases/auth/update-profile.use-case.ts', [ROUTES])(
    'a blank or too long display name is stored',
    "    if (problem) return validationFailed([{ field: 'displayName', message: problem }]);",
    "    if (false as boolean) return validationFailed([{ field: 'displayName', message: problem }]);",
  ),
  sqlUsers('a reset link works past its expiry', "{ where: { id, password_reset_hash: tokenHash, password_reset_expires_at: { [Op.gt]: at } }", '{ where: { id, password_reset_hash: tokenHash }'),
  sqlUsers("a reset link works with any token", "{ where: { id, password_reset_hash: tokenHash, password_reset_expires_at", '{ where: { id, password_reset_expires_at'),
  sqlUsers('an expired reset link is found', "{ where: { password_reset_hash: tokenHash, password_reset_expires_at: { [Op.gt]: now } }", '{ where: { password_reset_hash: tokenHash }'),
  sqlUsers(
    'a password change leaves the reset link live',
    "        { password_hash: passwordHash, password_reset_hash: null, password_reset_expires_at: null, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },\n        { where: { id, password_hash: previousHash }",
    "        { password_hash: passwordHash, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },\n        { where: { id, password_hash: previousHash }",
  ),
  sqlUsers('a password change overwrites a password set meanwhile', '{ where: { id, password_hash: previousHash }', '{ where: { id }'),
  memUsers('a password change overwrites a password set meanwhile (memory)', "    if (!user || user.passwordHash !== previousHash) return false;", '    if (!user) return false;'),
  change('a change undoes a reset that committed while it hashed', '      if (!(await tx.users.setPasswordHash(user.id, passwordHash, previousHash, clock.now()))) return null;', '      await tx.users.setPasswordHash(user.id, passwordHash, previousHash, clock.now());'),
  sqlUsers('a used reset link stays live', "        { password_hash: passwordHash, password_reset_hash: null, password_reset_expires_at: null, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },\n        { where: { id, password_reset_hash", "        { password_hash: passwordHash, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },\n        { where: { id, password_reset_hash"),
  sqlUsers("a display name changes every user's", "update({ display_name: displayName, updated_at: at }, { where: { id, deleted_at: null }", "update({ display_name: displayName, updated_at: at }, { where: { deleted_at: null }"),
  memUsers('a reset link works past its expiry (memory)', ' || !(user.passwordReset.expiresAt > at)) return false;', ') return false;'),
  memUsers('an expired reset link is found (memory)', 'user.passwordReset?.tokenHash === tokenHash && user.passwordReset.expiresAt > now', 'user.passwordReset?.tokenHash === tokenHash'),
  sqlSessions("activeFamilies lists another user's logins", 'FROM refresh_sessions s WHERE user_id = ? AND expires_at > ?', 'FROM refresh_sessions s WHERE ? IS NOT NULL AND expires_at > ?'),
  sqlSessions('activeFamilies lists expired logins', 'WHERE user_id = ? AND expires_at > ? AND NOT EXISTS', 'WHERE user_id = ? AND ? IS NOT NULL AND NOT EXISTS'),
  sqlSessions('activeFamilies lists revoked logins', ' AND NOT EXISTS (SELECT 1 FROM refresh_sessions r WHERE r.family_id = s.family_id AND r.revoked_at IS NOT NULL)', ''),
  memSessions('activeFamilies lists revoked logins (memory)', '!revoked.has(session.familyId) && session.expiresAt > now', 'session.expiresAt > now'),
  web('web/src/pages/account.ts')('the reset token stays in the address bar', ["history.replaceState(null, '', '/reset-password');", '']),
  web('web/src/pages/account.ts')('a dead reset link, where nothing is mailed, does not say who makes the next', ["byMail ? askAgain('Forgot your password?') : h('span', null, 'An administrator can make you a new one.')", "byMail ? askAgain('Forgot your password?') : h('span', null, '')"]),
  web('web/src/pages/account.ts')('the tab stays signed in after a reset that ended its session', ['if (ctx.user) ctx.setUser(null);', '']),
  web('web/src/pages/account.ts')('the account page counts the other sessions wrong', ["const others = done.otherSessionsEnded;", 'const others = 0;']),
  web('web/src/pages/auth.ts')('the sign-in page leaves the email of a reset empty', ["required: true, value: givenEmail });", 'required: true });']),
  web('web/src/main.ts')('a signed-in user opening a reset link is sent to the start', ["  { path: '/reset-password', title: 'Set a new password', page: resetPasswordPage, access: 'open' },", "  { path: '/reset-password', title: 'Set a new password', page: resetPasswordPage, access: 'public' },"]),
  web('web/src/pages/account.ts')('an account without a password is offered the password form', ["const hasPassword = identities?.hasPassword ?? true;", 'const hasPassword = true;']),
  web('web/src/pages/account.ts')('a linked provider is offered for linking again', ['.filter((provider) => !linkedKeys.has(provider))', '']),
  web('web/src/main.ts')('a provider linked comes back to the start page, not to Account', ["(location.pathname === '/' && back.has('linked')) || ", '']),
  web('web/src/main.ts')('a link refused while signed in ends on the start page, its reason lost', [" || (location.pathname === '/login' && back.has('error'))", '']),
  entriesOn('account', 'adapters/sequelize/migrations/026-password-resets.ts', ['tests/integration/migration-password-resets.test.ts'])(
    "026's down on SQLite copies and drops users, cascading to every row that references a user",
    "    if (dialect === 'sqlite') {\n      // SQLite's own DROP COLUMN",
    "    if (false as boolean) {\n      // SQLite's own DROP COLUMN",
  ),
  entriesOn('account', 'bootstrap/cli.ts', ['tests/integration/cli.test.ts'])('the reset-link command is refused as unknown', "const COMMANDS = ['promote', 'reset-link', 'delete-user'];", "const COMMANDS = ['promote', 'delete-user'];"),
  entriesOn('account', 'bootstrap/cli.ts', ['tests/integration/cli.test.ts'])('the delete-user command is refused as unknown', "const COMMANDS = ['promote', 'reset-link', 'delete-user'];", "const COMMANDS = ['promote', 'reset-link'];"),
];
