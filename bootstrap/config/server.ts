import path from 'node:path';
import type { Reader } from './reader.ts';

export type AppEnv = 'production' | 'development' | 'local';
export type Role = 'api' | 'worker';

/** Where and as what this process runs: APP_ENV, DATA_DIR, PORT, HOST, ROLES. */
export interface ServerConfig {
  port: number;
  host: string;
  appEnv: AppEnv;
  roles: Role[];
  dataDir: string;
}

/** The service's own address (PUBLIC_URL), the web app's (FRONTEND_URL) and the origins CORS lets in (CORS_ORIGINS). */
export interface UrlsConfig {
  publicUrl: string;
  frontendUrl: string;
  corsOrigins: string[];
}

export function readServer(read: Reader): ServerConfig {
  const appEnv = read.oneOf<AppEnv>('APP_ENV', 'local', ['production', 'development', 'local']);
  const dataDir = path.resolve(read.string('DATA_DIR', './data'));
  const port = read.int('PORT', 3000, 0, 65535);
  const host = read.string('HOST', '0.0.0.0');

  const roles = (read.raw('ROLES') ? read.list('ROLES') : ['api', 'worker']) as Role[];
  for (const role of roles) {
    if (role !== 'api' && role !== 'worker') read.problems.push(`ROLES may contain only api and worker (got "${role}")`);
  }
  if (roles.length === 0) read.problems.push('ROLES must name at least one of api, worker');
  return { port, host, appEnv, roles: [...new Set(roles)], dataDir };
}

/** PUBLIC_URL defaults to http://localhost:<PORT>, FRONTEND_URL to PUBLIC_URL, CORS_ORIGINS to FRONTEND_URL's origin. */
export function readUrls(read: Reader, ctx: { port: number }): UrlsConfig {
  const publicUrl = read.string('PUBLIC_URL', `http://localhost:${ctx.port}`);
  read.url('PUBLIC_URL', publicUrl, ['http:', 'https:']);
  const frontendUrl = read.string('FRONTEND_URL', publicUrl);
  read.url('FRONTEND_URL', frontendUrl, ['http:', 'https:']);
  const corsOrigins = read.list('CORS_ORIGINS');
  for (const origin of corsOrigins) read.url('CORS_ORIGINS', origin, ['http:', 'https:']);
  return {
    publicUrl: publicUrl.replace(/\/$/, ''),
    frontendUrl: frontendUrl.replace(/\/$/, ''),
    // A FRONTEND_URL that is no URL is already a problem above; the origin is then left out, not a crash.
    corsOrigins: corsOrigins.length > 0 ? corsOrigins : URL.canParse(frontendUrl) ? [new URL(frontendUrl).origin] : [],
  };
}
