import type { Container } from 'inversify';
import type { Cache } from '../../core/ports/cache.port.ts';
import type { Clock } from '../../core/ports/clock.port.ts';
import type { CoinLedger } from '../../core/ports/coin-ledger.port.ts';
import type { IdGenerator } from '../../core/ports/id-generator.port.ts';
import type { Logger } from '../../core/ports/logger.port.ts';
import type { PasswordHasher } from '../../core/ports/password-hasher.port.ts';
import type { SessionRepository } from '../../core/ports/session-repository.port.ts';
import type { TokenIssuer } from '../../core/ports/token-issuer.port.ts';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.ts';
import type { UserRepository } from '../../core/ports/user-repository.port.ts';
import type { SequelizeDatabase } from '../../adapters/sequelize/sequelize-database.ts';
import type { Config } from '../config.ts';
import { TOKENS } from '../tokens.ts';

/** Typed lookups of the shared ports, so feature modules build their use cases without casts. */
export const portsOf = (container: Container) => ({
  config: () => container.get<Readonly<Config>>(TOKENS.Config),
  logger: () => container.get<Logger>(TOKENS.Logger),
  clock: () => container.get<Clock>(TOKENS.Clock),
  ids: () => container.get<IdGenerator>(TOKENS.Ids),
  db: () => container.get<SequelizeDatabase>(TOKENS.Database),
  uow: () => container.get<UnitOfWork>(TOKENS.UnitOfWork),
  cache: () => container.get<Cache>(TOKENS.Cache),
  users: () => container.get<UserRepository>(TOKENS.UserRepository),
  sessions: () => container.get<SessionRepository>(TOKENS.SessionRepository),
  ledger: () => container.get<CoinLedger>(TOKENS.CoinLedger),
  hasher: () => container.get<PasswordHasher>(TOKENS.PasswordHasher),
  tokens: () => container.get<TokenIssuer>(TOKENS.TokenIssuer),
});
