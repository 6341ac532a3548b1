import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Changing one's email (ADR 065): each guard here keeps an account's email from becoming an address its owner has not
 * shown to be theirs, or from being changed by someone who only holds a session of a password account, or keeps two
 * accounts from sharing an email, or a husk from keeping an address.
 *
 * Not listed: the account's check that the session's email still names the session's user, and `setEmailChange`
 * refusing an account that is gone (only a change of email or a deletion in another tab between the session's read and
 * this one's reaches either: the account is then not found, as without them),
 * the token's length check (as for reset links, ADR 062), and the migration's unique index on the token's hash (a hash
 * of 32 random bytes does not collide).
 */
const UNIT = 'tests/unit/email-change.test.ts';
const ROUTES = 'tests/integration/email-change.test.ts';
const USERS = 'tests/contract/user-repository.test.ts';
const request = entriesOn('email-change', 'core/use-cases/auth/request-email-change.use-case.ts', [UNIT, ROUTES]);
const confirm = entriesOn('email-change', 'core/use-cases/auth/confirm-email-change.use-case.ts', [UNIT, ROUTES]);
const sqlUsers = entriesOn('email-change', 'adapters/sequelize/sequelize-user-repository.ts', [USERS]);
const memUsers = entriesOn('email-change', 'adapters/memory/memory-user-repository.ts', [USERS]);
const wiring = entriesOn('email-change', 'bootstrap/modules/auth.module.ts', [ROUTES]);

export const MUTATIONS: Mutation[] = [
  request('what is not an email is asked for', "    if (typeof input.newEmail !== 'string' || !isValidEmail(input.newEmail.trim())) return", "    if (typeof input.newEmail !== 'string') return"),
  request("one's own email is asked for (a mail, a link, a change to nothing)", '    if (newEmail === account.email) return', '    if (false as boolean) return'),
  request('an account without a password changes its email on its session alone', '  if (!account.passwordHash) return fail(', '  if (false as boolean) return fail('),
  request("an email ADMIN_EMAILS lists is freed for anyone to sign up with as an administrator", '  if (deps.adminEmails.includes(account.email)) return', '  if (false as boolean) return'),
  entriesOn('email-change', 'core/use-cases/auth/confirm-email-change.use-case.ts', [UNIT])(
    'an email listed in ADMIN_EMAILS by the time of the confirmation is freed',
    '    if (this.deps.adminEmails.includes(found.user.email)) return',
    '    if (false as boolean) return',
  ),
  request(
    'a missing password is checked as a wrong one',
    "    if (typeof password !== 'string' || password.length === 0 || password.length > 1024) return validationFailed([{ field: 'password', message: 'is required' }]);\n    const refused = await provePassword(this.deps, { email: account.email",
    "    if (false as boolean) return validationFailed([{ field: 'password', message: 'is required' }]);\n    const refused = await provePassword(this.deps, { email: account.email",
  ),
  request('a wrong password changes the email', '    if (refused) return refused;\n    // Each request mails', '    // Each request mails'),
  request('the changes per user are not limited', "        { key: `email-change:user:${account.id}`, max: perUser.max },\n", ''),
  request('the mails to one address are not limited', "        { key: `email-change:to:${newEmail}`, max: perAddress.mailed },\n", ''),
  request('the requests from one client address are not limited', "        { key: `email-change:from:${input.clientAddress}`, max: perAddress.client },\n", ''),
  request('the limits refuse nothing', "    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED', 'Too many changes of email", "    if (false as boolean) return { ...fail('AUTH.RATE_LIMITED', 'Too many changes of email"),
  request(
    'a request is counted on the limits before its proof (a wrong password spends a change)',
    "    const { password } = input;\n    if (typeof password !== 'string'",
    "    await reserveAttempt(cache, [{ key: `email-change:user:${account.id}`, max: perUser.max }], perUser.windowSeconds);\n    const { password } = input;\n    if (typeof password !== 'string'",
  ),
  request('a request whose mail never left keeps its change (and kills the link that did leave)', '      await users.clearEmailChange(account.id, tokenHash, clock.now());\n', ''),
  request('a request whose mail never left spends a change of the limit', '      await reserved.release();\n      return fail(\'UPSTREAM.FAILED\'', "      return fail('UPSTREAM.FAILED'"),
  request("another account's email is asked for (a link mailed to its owner)", "    if (await users.findByEmail(newEmail)) return fail('USER.EMAIL_TAKEN'", "    if (false as boolean) return fail('USER.EMAIL_TAKEN'"),
  request('a mail the relay refused is reported as sent', "      return fail('UPSTREAM.FAILED', 'The mail to the new address could not be sent; try again later');\n", ''),
  confirm('a token nobody has reaches the change', '    if (!found) return validationFailed', '    if (false as boolean) return validationFailed'),
  confirm('an address taken meanwhile is reported as changed', "    if (outcome === 'taken') return", '    if (false as boolean) return'),
  confirm('a link used by a confirmation at the same moment is reported as changed again', "    if (outcome === 'dead') return", '    if (false as boolean) return'),
  confirm('the old address is not told', 'notified: this.notify(found.user.id, noticeOfChange(found.user.email, found.newEmail, this.deps.frontendUrl))', 'notified: Promise.resolve(true)'),
  confirm(
    'the answer waits for the notice to the old address',
    '    return ok({ email: found.newEmail, notified: this.notify(found.user.id, noticeOfChange(found.user.email, found.newEmail, this.deps.frontendUrl)) });',
    '    const notified = await this.notify(found.user.id, noticeOfChange(found.user.email, found.newEmail, this.deps.frontendUrl));\n    return ok({ email: found.newEmail, notified: Promise.resolve(notified) });',
  ),
  confirm("a notice the relay refused rejects a promise nobody awaits (the process's unhandled rejection)", "      this.deps.logger.error('email change notice not sent', { userId, error });\n      return false;", '      throw error;'),
  sqlUsers('a husk gets a pending change of email', '        { where: { id, deleted_at: null }, ...s.options },\n      ),\n    );\n    return changed === 1;\n  }\n\n  async findByEmailChange', '        { where: { id }, ...s.options },\n      ),\n    );\n    return changed === 1;\n  }\n\n  async findByEmailChange'),
  sqlUsers('an expired change of email is found', '        where: { email_change_hash: tokenHash, email_change_expires_at: { [Op.gt]: now }, deleted_at: null },', '        where: { email_change_hash: tokenHash, deleted_at: null },'),
  sqlUsers('any token applies the pending change', '{ where: { id, email_change_hash: tokenHash, pending_email: newEmail,', '{ where: { id, pending_email: newEmail,'),
  sqlUsers('a change applies an email other than the pending one', '{ where: { id, email_change_hash: tokenHash, pending_email: newEmail,', '{ where: { id, email_change_hash: tokenHash,'),
  sqlUsers('an expired change of email is applied', 'pending_email: newEmail, email_change_expires_at: { [Op.gt]: at }, deleted_at: null }', 'pending_email: newEmail, deleted_at: null }'),
  sqlUsers("an address another account has fails the change with the database's error", "      if (isUniqueViolation(error)) return 'taken';\n", ''),
  sqlUsers('a husk keeps its pending change of email', '\n         pending_email = NULL, email_change_hash = NULL, email_change_expires_at = NULL, updated_at = ? WHERE id = ? AND deleted_at IS NULL', ' updated_at = ? WHERE id = ? AND deleted_at IS NULL'),
  memUsers('a husk gets a pending change of email (memory)', '    const user = this.live(id);\n    if (!user) return false;\n    user.emailChange = { ...change };', '    const user = this.store.users.get(id);\n    if (!user) return false;\n    user.emailChange = { ...change };'),
  memUsers('an expired change of email is found (memory)', ' && user.emailChange.expiresAt > now) return', ') return'),
  memUsers('any token applies the pending change (memory)', " || change?.tokenHash !== tokenHash || change.email !== newEmail || !(change.expiresAt > at)) return 'dead';", " || !change || change.email !== newEmail || !(change.expiresAt > at)) return 'dead';"),
  memUsers('an expired change of email is applied (memory)', " || change.email !== newEmail || !(change.expiresAt > at)) return 'dead';", " || change.email !== newEmail) return 'dead';"),
  memUsers('two accounts share an email (memory)', "    for (const other of this.store.users.values()) if (other.id !== id && other.email === change.email) return 'taken';\n", ''),
  memUsers('a husk keeps its pending change of email (memory)', 'passwordHash: null, passwordReset: null, emailChange: null, updatedAt: at });', 'passwordHash: null, passwordReset: null, updatedAt: at });'),
  sqlUsers('a change of email leaves the reset link of the old address live', 'email_change_expires_at: null, password_reset_hash: null, password_reset_expires_at: null, updated_at: at },', 'email_change_expires_at: null, updated_at: at },'),
  sqlUsers(
    'a new password leaves a pending change of email',
    "password_reset_expires_at: null, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },\n        { where: { id, password_hash: previousHash }",
    "password_reset_expires_at: null, updated_at: at },\n        { where: { id, password_hash: previousHash }",
  ),
  sqlUsers(
    'a reset leaves a pending change of email',
    "password_reset_expires_at: null, pending_email: null, email_change_hash: null, email_change_expires_at: null, updated_at: at },\n        { where: { id, password_reset_hash",
    "password_reset_expires_at: null, updated_at: at },\n        { where: { id, password_reset_hash",
  ),
  sqlUsers('any hash clears the pending change of email', '{ where: { id, email_change_hash: tokenHash }, ...s.options }', '{ where: { id }, ...s.options }'),
  memUsers('a change of email leaves the reset link of the old address live (memory)', 'emailChange: null, passwordReset: null, updatedAt: at });\n    return \'changed\';', "emailChange: null, updatedAt: at });\n    return 'changed';"),
  memUsers('a new password leaves a pending change of email (memory)', '    if (!user || user.passwordHash !== previousHash) return false;\n    user.passwordHash = passwordHash;\n    user.passwordReset = null;\n    user.emailChange = null;\n', '    if (!user || user.passwordHash !== previousHash) return false;\n    user.passwordHash = passwordHash;\n    user.passwordReset = null;\n'),
  memUsers('a reset leaves a pending change of email (memory)', ' || !(user.passwordReset.expiresAt > at)) return false;\n    user.passwordHash = passwordHash;\n    user.passwordReset = null;\n    user.emailChange = null;\n', ' || !(user.passwordReset.expiresAt > at)) return false;\n    user.passwordHash = passwordHash;\n    user.passwordReset = null;\n'),
  memUsers('any hash clears the pending change of email (memory)', '    if (user?.emailChange?.tokenHash !== tokenHash) return false;', '    if (!user) return false;'),
  sqlUsers('a husk\'s pending change is found', "        where: { email_change_hash: tokenHash, email_change_expires_at: { [Op.gt]: now }, deleted_at: null },", "        where: { email_change_hash: tokenHash, email_change_expires_at: { [Op.gt]: now } },"),
  sqlUsers('a husk\'s pending change is applied', 'email_change_expires_at: { [Op.gt]: at }, deleted_at: null }, ...s.options },', 'email_change_expires_at: { [Op.gt]: at } }, ...s.options },'),
  memUsers('a husk\'s pending change is found (memory)', '      if (!user.deletedAt && user.emailChange?.tokenHash === tokenHash', '      if (user.emailChange?.tokenHash === tokenHash'),
  memUsers('a husk\'s pending change is applied (memory)', "    const user = this.live(id);\n    const change = user?.emailChange;", "    const user = this.store.users.get(id);\n    const change = user?.emailChange;"),
  entriesOn('email-change', 'adapters/mail/smtp-mailer.ts', ['tests/unit/request-password-reset.test.ts'])('mail crosses the network in clear text when TLS is required', '{ url: options.url, requireTLS: options.requireTls,', '{ url: options.url,'),
  wiring('SMTP_REQUIRE_TLS does not reach the mailer', 'requireTls: config.mail.requireTls })', 'requireTls: false })'),
  entriesOn('email-change', 'bootstrap/config/mail.ts', ['tests/unit/integrations-config.test.ts'])('a relay elsewhere is not required to use TLS', "read.bool('SMTP_REQUIRE_TLS', smtpUrl === null || !onLoopback(smtpUrl))", "read.bool('SMTP_REQUIRE_TLS', false)"),
  entriesOn('email-change', 'bootstrap/config/mail.ts', ['tests/unit/integrations-config.test.ts'])('a relay on this machine is required to use TLS by default', "read.bool('SMTP_REQUIRE_TLS', smtpUrl === null || !onLoopback(smtpUrl))", "read.bool('SMTP_REQUIRE_TLS', true)"),
  entriesOn('email-change', 'adapters/http/routes/account.routes.ts', [ROUTES])(
    'a refusal past the limits does not say when to come back',
    '        if (!result.ok) return sendLimitedFail(res, result);\n        res.status(202).json({ message: `A link to confirm',
    '        if (!result.ok) return sendFail(res, result);\n        res.status(202).json({ message: `A link to confirm',
  ),
  wiring('the features never offer a change of email', 'emailChange: mail });', 'emailChange: false });'),
  wiring('EMAIL_CHANGE_TTL is not the link\'s life', '      ttlSeconds: config.mail.emailChangeTtlSeconds,', '      ttlSeconds: 600,'),
  entriesOn('email-change', 'adapters/http/routes/features.routes.ts', ['tests/unit/config-audit-runtime.test.ts'])(
    'the last contribution decides whether the email can be changed',
    '    merged.emailChange ||= part.emailChange ?? false;',
    '    merged.emailChange = part.emailChange ?? false;',
  ),
  entriesOn('email-change', 'bootstrap/config/mail.ts', ['tests/unit/integrations-config.test.ts'])('EMAIL_CHANGE_TTL is not read', "    emailChangeTtlSeconds: read.duration('EMAIL_CHANGE_TTL', 24 * 3600),", '    emailChangeTtlSeconds: 24 * 3600,'),
];
