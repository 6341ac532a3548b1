import type { Container } from 'inversify';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.ts';
import { accountRoutes } from '../../adapters/http/routes/account.routes.ts';
import { authRoutes } from '../../adapters/http/routes/auth.routes.ts';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.ts';
import { shippedCommonPasswords } from '../../adapters/system/common-password-file.ts';
import { Authenticate } from '../../core/use-cases/auth/authenticate.use-case.ts';
import { ChangePassword } from '../../core/use-cases/auth/change-password.use-case.ts';
import { ConfirmEmailChange } from '../../core/use-cases/auth/confirm-email-change.use-case.ts';
import { IssuePasswordReset } from '../../core/use-cases/auth/issue-password-reset.use-case.ts';
import { RequestEmailChange } from '../../core/use-cases/auth/request-email-change.use-case.ts';
import { RequestPasswordReset } from '../../core/use-cases/auth/request-password-reset.use-case.ts';
import { ResetPassword } from '../../core/use-cases/auth/reset-password.use-case.ts';
import { UpdateProfile } from '../../core/use-cases/auth/update-profile.use-case.ts';
import { LoginUser, type LoginLimits } from '../../core/use-cases/auth/login-user.use-case.ts';
import { LogoutUser } from '../../core/use-cases/auth/logout-user.use-case.ts';
import { RefreshSession } from '../../core/use-cases/auth/refresh-session.use-case.ts';
import { RegisterUser } from '../../core/use-cases/auth/register-user.use-case.ts';
import { SessionRevocations } from '../../core/use-cases/auth/session-revocations.service.ts';
import type { Mailer } from '../../core/ports/mailer.port.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';
import { bindFeature, forApi, type Feature, type FeaturePorts } from './feature.ts';

export type AuthFeature = Feature<{ authenticate: Authenticate; revocations: SessionRevocations }>;

/** The login limits (ADR 020), which every proof of a password counts on: login, password change, account deletion. */
export const loginLimitsOf = (config: Readonly<Config>): LoginLimits => ({
  perAccountAndAddress: config.auth.loginMaxFailures,
  perAccount: config.auth.loginMaxFailuresPerAccount,
  perAddress: config.auth.loginMaxFailuresPerAddress,
  windowSeconds: config.auth.loginWindowSeconds,
});

/** Sign-up, login, refresh and logout: the access-token check and the revocations are built once, the routes for the api role. */
export function authFeature(ports: FeaturePorts, config: Readonly<Config>): AuthFeature {
  const { users, sessions } = ports.repos();
  const authenticate = new Authenticate({ tokens: ports.tokens(), sessions });
  const revocations = new SessionRevocations({ sessions, bus: ports.bus(), clock: ports.clock(), logger: ports.logger() });
  const loginLimits = loginLimitsOf(config);
  const sessionDeps = { sessions, tokens: ports.tokens(), ids: ports.ids(), clock: ports.clock(), refreshTokenTtlSeconds: config.auth.refreshTokenTtlSeconds };
  const routes = forApi(config, () => {
    const mailer: Mailer | null = config.mail.smtpUrl === null ? null : new SmtpMailer({ url: config.mail.smtpUrl, from: config.mail.from, timeoutMs: config.mail.timeoutMs, requireTls: config.mail.requireTls });
    const issueReset = new IssuePasswordReset({
      uow: ports.uow(),
      tokens: ports.tokens(),
      ids: ports.ids(),
      clock: ports.clock(),
      frontendUrl: config.frontendUrl,
      ttlSeconds: config.auth.passwordResetTtlSeconds,
    });
    return [
      authRoutes({
        register: new RegisterUser({
          users,
          hasher: ports.hasher(),
          uow: ports.uow(),
          ids: ports.ids(),
          clock: ports.clock(),
          adminEmails: config.auth.adminEmails,
          signupBonusCoins: config.signupBonusCoins,
          cache: ports.cache(),
          limits: { perAddress: config.auth.registerMaxPerAddress, windowSeconds: config.auth.registerWindowSeconds },
          commonPasswords: shippedCommonPasswords(),
        }),
        login: new LoginUser({
          ...sessionDeps,
          users,
          hasher: ports.hasher(),
          cache: ports.cache(),
          adminEmails: config.auth.adminEmails,
          limits: loginLimits,
        }),
        refresh: new RefreshSession({ ...sessionDeps, uow: ports.uow(), revocations }),
        logout: new LogoutUser({ sessions, tokens: ports.tokens(), revocations }),
        authenticate,
        cookies: { secure: config.auth.secureCookies },
      }),
      accountRoutes({
        updateProfile: new UpdateProfile({ users, clock: ports.clock() }),
        changePassword: new ChangePassword({ users, uow: ports.uow(), hasher: ports.hasher(), cache: ports.cache(), clock: ports.clock(), revocations, commonPasswords: shippedCommonPasswords(), limits: loginLimits }),
        issueReset,
        requestReset: mailer && resetByMail(ports, config, issueReset, mailer),
        emailChange: mailer && emailChangeByMail(ports, config, mailer, loginLimits),
        resetPassword: new ResetPassword({ users, uow: ports.uow(), hasher: ports.hasher(), tokens: ports.tokens(), clock: ports.clock(), revocations, commonPasswords: shippedCommonPasswords() }),
      }),
    ];
  });
  return { exports: { authenticate, revocations }, routes, scheduled: [] };
}

/** The waits before a reset mail's second and third try (the server refused it or could not be reached). */
const RESET_MAIL_RETRY_DELAYS_MS = [2_000, 10_000];

/** Changes of email one user may ask for per hour: each mails an address the user chose. */
const EMAIL_CHANGES_PER_HOUR = 5;
/** Confirmations per hour mailed to one address, and asked for from one client address (each account has its own 5). */
const EMAIL_CHANGE_MAILS_PER_HOUR = { mailed: 3, client: 20 };

/** "Forgot your password?", where mail is configured (ADR 064). */
function resetByMail(ports: FeaturePorts, config: Readonly<Config>, issueReset: IssuePasswordReset, mailer: Mailer): RequestPasswordReset {
  const { resetRequestsPerEmail, resetRequestsPerAddress } = config.mail;
  return new RequestPasswordReset({
    users: ports.repos().users,
    issueReset,
    mailer,
    cache: ports.cache(),
    logger: ports.logger(),
    frontendUrl: config.frontendUrl,
    limits: { perEmail: resetRequestsPerEmail, perAddress: resetRequestsPerAddress, windowSeconds: 3600 },
    retryDelaysMs: RESET_MAIL_RETRY_DELAYS_MS,
  });
}

/** Changing one's email, confirmed by a link mailed to the new address, where mail is configured (ADR 065). */
function emailChangeByMail(ports: FeaturePorts, config: Readonly<Config>, mailer: Mailer, limits: LoginLimits) {
  const common = { users: ports.repos().users, tokens: ports.tokens(), clock: ports.clock(), mailer, logger: ports.logger(), frontendUrl: config.frontendUrl, adminEmails: config.auth.adminEmails };
  return {
    request: new RequestEmailChange({
      ...common,
      hasher: ports.hasher(),
      cache: ports.cache(),
      limits,
      ttlSeconds: config.mail.emailChangeTtlSeconds,
      perUser: { max: EMAIL_CHANGES_PER_HOUR, windowSeconds: 3600 },
      perAddress: EMAIL_CHANGE_MAILS_PER_HOUR,
    }),
    confirm: new ConfirmEmailChange(common),
  };
}

export function bindAuth(container: Container, config: Readonly<Config>): void {
  // The web client offers "Forgot your password?" and a change of email where the service can mail the links.
  const mail = config.mail.smtpUrl !== null;
  container.bind(TOKENS.FeatureContribution).toConstantValue({ passwordResetByMail: mail, emailChange: mail });
  container.bind(TOKENS.PasswordHasher).toConstantValue(new ScryptPasswordHasher());
  container.bind(TOKENS.TokenIssuer).toConstantValue(
    new JwtTokenIssuer({
      secret: config.auth.jwtSecret,
      issuer: config.auth.issuer,
      audience: config.auth.audience,
      accessTokenTtlSeconds: config.auth.accessTokenTtlSeconds,
    }),
  );
  const auth = bindFeature(container, 'auth', (ports) => authFeature(ports, config));
  container.bind(TOKENS.Authenticate).toDynamicValue(() => auth().exports.authenticate);
  container.bind(TOKENS.SessionRevocations).toDynamicValue(() => auth().exports.revocations);
}
