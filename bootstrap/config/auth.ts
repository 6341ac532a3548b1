import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reader } from './reader.ts';
import type { AppEnv } from './server.ts';

export interface AuthConfig {
  jwtSecret: string;
  issuer: string;
  audience: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  secureCookies: boolean;
  adminEmails: string[];
  loginMaxFailures: number;
  loginMaxFailuresPerAccount: number;
  loginMaxFailuresPerAddress: number;
  loginWindowSeconds: number;
  registerMaxPerAddress: number;
  registerWindowSeconds: number;
  /** Requests one API key may make per minute, counted on the cache (ADR 035). */
  apiKeyRateLimitPerMinute: number;
  /** How long a password reset link an administrator made stays usable (ADR 062). */
  passwordResetTtlSeconds: number;
}

/** What a generated local secret needs: APP_ENV=local generates one, kept under DATA_DIR unless `persistLocalSecret` is false. */
export interface LocalSecretContext {
  appEnv: AppEnv;
  dataDir: string;
  persistLocalSecret: boolean;
}

/** The shortest JWT signing secret taken, given or kept. */
const MIN_JWT_SECRET = 32;

/**
 * JWT_SECRET (at least 32 characters), required outside APP_ENV=local. It is read before the URLs and the rest of
 * the auth section (`readAuth`), so its problem comes first.
 */
export function readJwtSecret(read: Reader, ctx: LocalSecretContext): string {
  const given = read.raw('JWT_SECRET');
  if (given !== undefined) {
    if (given.length < MIN_JWT_SECRET) read.problems.push(`JWT_SECRET must be at least ${MIN_JWT_SECRET} characters`);
    return given;
  }
  if (ctx.appEnv !== 'local') {
    read.problems.push(`JWT_SECRET is required when APP_ENV=${ctx.appEnv}`);
    return '';
  }
  const kept = localSecret(ctx.dataDir, ctx.persistLocalSecret);
  // A kept file cut short (an empty one: anyone could sign tokens) is refused, as a short JWT_SECRET is.
  if (kept.secret.length < MIN_JWT_SECRET) read.problems.push(`the JWT secret kept in ${kept.file} must be at least ${MIN_JWT_SECRET} characters (delete the file to have a new one generated)`);
  return kept.secret;
}

/** Tokens (JWT_*, *_TOKEN_TTL), cookies, administrators and the login and registration limits, around the secret `readJwtSecret` gave. */
export function readAuth(read: Reader, ctx: { appEnv: AppEnv; jwtSecret: string }): AuthConfig {
  return {
    jwtSecret: ctx.jwtSecret,
    issuer: read.string('JWT_ISSUER', 'media-gen-service'),
    audience: read.string('JWT_AUDIENCE', 'media-gen-service'),
    accessTokenTtlSeconds: read.duration('ACCESS_TOKEN_TTL', 15 * 60),
    refreshTokenTtlSeconds: read.duration('REFRESH_TOKEN_TTL', 7 * 86400),
    secureCookies: read.bool('SECURE_COOKIES', ctx.appEnv === 'production'),
    adminEmails: read.list('ADMIN_EMAILS').map((email) => email.toLowerCase()),
    loginMaxFailures: read.int('LOGIN_MAX_FAILURES', 10, 1, 1000),
    loginMaxFailuresPerAccount: read.int('LOGIN_MAX_FAILURES_PER_ACCOUNT', 100, 1, 100_000),
    loginMaxFailuresPerAddress: read.int('LOGIN_MAX_FAILURES_PER_ADDRESS', 20, 1, 100_000),
    loginWindowSeconds: read.duration('LOGIN_WINDOW', 15 * 60),
    registerMaxPerAddress: read.int('REGISTER_MAX_PER_ADDRESS', 5, 1, 100_000),
    registerWindowSeconds: read.duration('REGISTER_WINDOW', 60 * 60),
    apiKeyRateLimitPerMinute: read.int('API_KEY_RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    passwordResetTtlSeconds: read.duration('PASSWORD_RESET_TTL', 60 * 60),
  };
}

/**
 * APP_ENV=local keeps a generated secret under DATA_DIR (the JWT signing secret, the token key) so it survives
 * restarts: the secret, and the file it is kept in (where it would be, when nothing is kept).
 */
export function localSecret(dataDir: string, persist: boolean, fileName = 'jwt-secret', make = () => randomBytes(48).toString('base64url')): { secret: string; file: string } {
  const file = path.join(dataDir, fileName);
  if (!persist) return { secret: make(), file };
  if (existsSync(file)) return { secret: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(dataDir, { recursive: true });
  const secret = make();
  writeFileSync(file, secret, { mode: 0o600 });
  return { secret, file };
}
