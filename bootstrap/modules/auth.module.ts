import type { Container } from 'inversify';
import { JwtTokenIssuer } from '../../adapters/crypto/jwt-token-issuer.ts';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.ts';
import type { RouteModule } from '../../adapters/http/http-app.ts';
import { authRoutes } from '../../adapters/http/routes/auth.routes.ts';
import { SequelizeCoinLedger } from '../../adapters/sequelize/sequelize-coin-ledger.ts';
import { SequelizeSessionRepository } from '../../adapters/sequelize/sequelize-session-repository.ts';
import { SequelizeUserRepository } from '../../adapters/sequelize/sequelize-user-repository.ts';
import { Authenticate } from '../../core/use-cases/auth/authenticate.use-case.ts';
import { GetProfile } from '../../core/use-cases/auth/get-profile.use-case.ts';
import { LoginUser } from '../../core/use-cases/auth/login-user.use-case.ts';
import { LogoutUser } from '../../core/use-cases/auth/logout-user.use-case.ts';
import { RefreshSession } from '../../core/use-cases/auth/refresh-session.use-case.ts';
import { RegisterUser } from '../../core/use-cases/auth/register-user.use-case.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';
import { portsOf } from './ports.ts';

export function bindAuth(container: Container, config: Readonly<Config>): void {
  const ports = portsOf(container);
  container.bind(TOKENS.UserRepository).toDynamicValue(() => new SequelizeUserRepository(ports.db())).inSingletonScope();
  container.bind(TOKENS.SessionRepository).toDynamicValue(() => new SequelizeSessionRepository(ports.db())).inSingletonScope();
  container.bind(TOKENS.CoinLedger).toDynamicValue(() => new SequelizeCoinLedger(ports.db())).inSingletonScope();
  container.bind(TOKENS.PasswordHasher).toConstantValue(new ScryptPasswordHasher());
  container.bind(TOKENS.TokenIssuer).toConstantValue(
    new JwtTokenIssuer({
      secret: config.auth.jwtSecret,
      issuer: config.auth.issuer,
      audience: config.auth.audience,
      accessTokenTtlSeconds: config.auth.accessTokenTtlSeconds,
    }),
  );
  container.bind(TOKENS.Authenticate).toDynamicValue(() => new Authenticate({ tokens: ports.tokens(), cache: ports.cache() })).inSingletonScope();

  container.bind<RouteModule>(TOKENS.RouteModule).toDynamicValue(() => {
    const sessionDeps = {
      sessions: ports.sessions(),
      tokens: ports.tokens(),
      ids: ports.ids(),
      clock: ports.clock(),
      refreshTokenTtlSeconds: config.auth.refreshTokenTtlSeconds,
    };
    return authRoutes({
      register: new RegisterUser({
        users: ports.users(),
        ledger: ports.ledger(),
        hasher: ports.hasher(),
        uow: ports.uow(),
        ids: ports.ids(),
        clock: ports.clock(),
        adminEmails: config.auth.adminEmails,
        signupBonusCoins: config.signupBonusCoins,
      }),
      login: new LoginUser({
        ...sessionDeps,
        users: ports.users(),
        hasher: ports.hasher(),
        cache: ports.cache(),
        adminEmails: config.auth.adminEmails,
        maxFailures: config.auth.loginMaxFailures,
        windowSeconds: config.auth.loginWindowSeconds,
      }),
      refresh: new RefreshSession({ ...sessionDeps, users: ports.users() }),
      logout: new LogoutUser({ sessions: ports.sessions(), tokens: ports.tokens(), cache: ports.cache(), clock: ports.clock() }),
      profile: new GetProfile({ users: ports.users() }),
      authenticate: container.get(TOKENS.Authenticate),
      cookies: { secure: config.auth.secureCookies },
    });
  });
}
