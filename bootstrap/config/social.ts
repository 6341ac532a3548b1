import { randomBytes } from 'node:crypto';
import { parseTokenKeys } from '../../adapters/crypto/aes-gcm-token-cipher.ts';
import { localSecret, type LocalSecretContext } from './auth.ts';
import type { Reader } from './reader.ts';

/** Social platforms outputs are published to (YOUTUBE_*, TIKTOK_*), and the key(s) their tokens are sealed with. */
export interface SocialConfig {
  youtube: { clientId: string; clientSecret: string } | null;
  tiktok: { clientKey: string; clientSecret: string } | null;
  /** TOKEN_ENCRYPTION_KEY as given (checked here, parsed by the cipher): `[id:]key[,...]`, the first seals. Empty with no platform. */
  tokenEncryptionKey: string;
  /** Each platform call without progress (SOCIAL_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long one attempt waits for TikTok to finish processing a post (TIKTOK_POLL_TIMEOUT); a retry resumes. */
  tiktokPollTimeoutMs: number;
  tiktokPollIntervalMs: number;
}

/**
 * YOUTUBE_CLIENT_ID/YOUTUBE_CLIENT_SECRET (a Google OAuth client with the YouTube Data API enabled) and
 * TIKTOK_CLIENT_KEY/TIKTOK_CLIENT_SECRET; each platform is on when both of its values are set. With any platform,
 * TOKEN_ENCRYPTION_KEY is required (APP_ENV=local generates one and keeps it under DATA_DIR).
 */
export function readSocial(read: Reader, ctx: LocalSecretContext): SocialConfig {
  const { appEnv, dataDir } = ctx;
  const pair = (idName: string, id: string | undefined, secretName: string, secret: string | undefined): [string, string] | null => {
    if (!id && !secret) return null;
    if (!id || !secret) {
      read.problems.push(`${id ? secretName : idName} is required when ${id ? idName : secretName} is set`);
      return null;
    }
    return [id, secret];
  };
  const youtube = pair('YOUTUBE_CLIENT_ID', read.raw('YOUTUBE_CLIENT_ID'), 'YOUTUBE_CLIENT_SECRET', read.raw('YOUTUBE_CLIENT_SECRET'));
  const tiktok = pair('TIKTOK_CLIENT_KEY', read.raw('TIKTOK_CLIENT_KEY'), 'TIKTOK_CLIENT_SECRET', read.raw('TIKTOK_CLIENT_SECRET'));
  /** The tokens are sealed with the key: one that does not parse stops the start, named by where it came from. */
  const checked = (key: string, source: string, remedy = ''): string => {
    const parsed = parseTokenKeys(key);
    if ('problem' in parsed) read.problems.push(`${source}: ${parsed.problem}${remedy}`);
    return key;
  };
  const given = read.raw('TOKEN_ENCRYPTION_KEY') ?? '';
  let tokenEncryptionKey = given ? checked(given, 'TOKEN_ENCRYPTION_KEY') : '';
  if (!given && (youtube || tiktok)) {
    if (appEnv === 'local') {
      // A kept file cut short or edited (even an empty one) is checked like the variable.
      const kept = localSecret(dataDir, ctx.persistLocalSecret, 'token-encryption-key', () => randomBytes(32).toString('hex'));
      tokenEncryptionKey = checked(kept.secret, `the token key kept in ${kept.file}`, ' (delete the file to have a new one generated; connected accounts must then be connected again)');
    } else read.problems.push(`TOKEN_ENCRYPTION_KEY is required when a social platform is configured and APP_ENV=${appEnv} (32 bytes as 64 hex characters or base64; "id:key,oldid:oldkey" to rotate)`);
  }
  return {
    youtube: youtube ? { clientId: youtube[0], clientSecret: youtube[1] } : null,
    tiktok: tiktok ? { clientKey: tiktok[0], clientSecret: tiktok[1] } : null,
    tokenEncryptionKey,
    timeoutMs: read.int('SOCIAL_TIMEOUT_MS', 30_000, 100, 600_000),
    tiktokPollTimeoutMs: read.duration('TIKTOK_POLL_TIMEOUT', 10 * 60) * 1000,
    tiktokPollIntervalMs: read.int('TIKTOK_POLL_INTERVAL_MS', 5_000, 10, 600_000),
  };
}
