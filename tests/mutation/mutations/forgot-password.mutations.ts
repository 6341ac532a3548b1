import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * "Forgot your password?" (ADR 064): the reset link mailed to the account's own address. Each guard here keeps the
 * answer from telling who has an account, a mailbox from adding a password to an account made through a provider, the
 * requests within their limits, or a mail from being lost to a relay that was busy once.
 *
 * Not listed: the SMTP timeouts (a relay that hangs for 15 s is not worth a test that waits as long), the lookup's
 * `no-account` branch (without it the delivery reads a property of null, and ends `failed` with nothing sent: the
 * same for the user), and a link refused for an account deleted between the lookup and the link (the same again).
 */
const UNIT = 'tests/unit/request-password-reset.test.ts';
const ROUTES = 'tests/integration/password-reset-mail.test.ts';
const CONFIG = 'tests/unit/integrations-config.test.ts';
const request = entriesOn('forgot-password', 'core/use-cases/auth/request-password-reset.use-case.ts', [UNIT, ROUTES]);
const route = entriesOn('forgot-password', 'adapters/http/routes/account.routes.ts', [ROUTES]);
const wiring = entriesOn('forgot-password', 'bootstrap/modules/auth.module.ts', [ROUTES]);
const config = entriesOn('forgot-password', 'bootstrap/config/mail.ts', [CONFIG]);

export const MUTATIONS: Mutation[] = [
  request('what is not an email is asked for', "    if (typeof input.email !== 'string' || !isValidEmail(input.email.trim())) return validationFailed", "    if (typeof input.email !== 'string') return validationFailed"),
  request('the email asked for is not normalised (the limits count each spelling apart)', '    const email = normalizeEmail(input.email);', '    const email = input.email;'),
  request('the limits refuse nothing', "    if (!reserved.ok) return { ...fail('AUTH.RATE_LIMITED'", "    if (false as boolean) return { ...fail('AUTH.RATE_LIMITED'"),
  request('no limit per client address', '        { key: `reset-mail:address:${input.clientAddress}`, max: limits.perAddress },\n', ''),
  request('no limit per email', '        { key: `reset-mail:email:${email}`, max: limits.perEmail },\n', ''),
  request(
    'the answer waits for the lookup, the link and the mail (its timing tells who has an account)',
    '    return ok({ delivery: this.deliver(email) });',
    '    const outcome = await this.deliver(email);\n    return ok({ delivery: Promise.resolve(outcome) });',
  ),
  request('an account without a password gets a link: a mailbox adds a password to it', '      if (user.passwordHash === null) return', '      if (false as boolean) return'),
  request('a refused mail is not tried again', '        if (attempt >= retryDelaysMs.length) {', '        if (attempt >= 0) {'),
  request('the tries come one after another without a wait', '        await sleep(retryDelaysMs[attempt]!);\n', ''),
  request("a failure after the answer rejects the delivery nobody awaits (the process's unhandled rejection)", "      logger.error('password reset request failed', { error });\n      return 'failed';", '      throw error;'),
  route('the route exists without a mailer (and fails there)', '  if (deps.requestReset) {', '  if (true as boolean) {'),
  route('a refusal past the limits does not say when to come back', "        if (!result.ok) return sendLimitedFail(res, result);\n        res.status(202).json({ message: 'If an account", "        if (!result.ok) return sendFail(res, result);\n        res.status(202).json({ message: 'If an account"),
  wiring('the features never offer reset links by mail', 'toConstantValue({ passwordResetByMail: mail,', 'toConstantValue({ passwordResetByMail: false,'),
  wiring('SMTP_URL set, and still no route', '    const mailer: Mailer | null = config.mail.smtpUrl === null ? null :', '    const mailer: Mailer | null = (true as boolean) ? null :'),
  entriesOn('forgot-password', 'adapters/http/routes/features.routes.ts', ['tests/unit/config-audit-runtime.test.ts'])(
    'the last contribution decides whether reset links are mailed',
    '    merged.passwordResetByMail ||= part.passwordResetByMail ?? false;',
    '    merged.passwordResetByMail = part.passwordResetByMail ?? false;',
  ),
  entriesOn('forgot-password', 'adapters/mail/smtp-mailer.ts', [UNIT])('mails go out with no From', '      { from: options.from },\n', ''),
  config('SMTP_URL without MAIL_FROM is taken', "read.required('MAIL_FROM', 'when SMTP_URL is set')", "read.string('MAIL_FROM', '')"),
  config('a MAIL_FROM that names no address is taken', '  if (from && !FROM.test(from)) read.problems.push', '  if (false as boolean) read.problems.push'),
  config('an SMTP_URL of another scheme is taken', "  if (smtpUrl !== null) read.url('SMTP_URL', smtpUrl, ['smtp:', 'smtps:']);\n", ''),
];
