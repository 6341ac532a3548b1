import { createHash } from 'node:crypto';
import nock from 'nock';
import { TikTokPlatform } from '../../adapters/social/tiktok-platform.ts';
import { YouTubePlatform } from '../../adapters/social/youtube-platform.ts';
import type { PublishRequest, SocialPlatformClient, SocialPlatforms } from '../../core/ports/social-platform.port.ts';
import type { TestClient } from './test-client.ts';

/**
 * The platforms' real endpoints as nock scopes (no platform runs here): Google's OAuth 2.0 and the YouTube
 * Data API's resumable upload; TikTok's Login Kit and Content Posting API. Payloads follow the public docs.
 */
export const GOOGLE_OAUTH = 'https://oauth2.googleapis.com';
export const GOOGLE_APIS = 'https://www.googleapis.com';
export const TIKTOK_API = 'https://open.tiktokapis.com';
export const UPLOAD_PATH = '/upload/youtube/v3/videos';

/** The two platform clients of the use-case tests, against the nock scopes above (TikTok's status polls fast). */
export const youtubeClient = new YouTubePlatform({ clientId: 'c', clientSecret: 's', timeoutMs: 5000 });
export const tiktokClient = new TikTokPlatform({ clientKey: 'k', clientSecret: 's', timeoutMs: 5000, pollIntervalMs: 5, pollTimeoutMs: 100 });
export const platformsOf = (...clients: SocialPlatformClient[]): SocialPlatforms => ({
  get: (platform) => clients.find((client) => client.platform === platform) ?? null,
  configured: () => clients.map((client) => client.platform),
});

export const SOCIAL_ENV = {
  YOUTUBE_CLIENT_ID: 'yt-client.apps.googleusercontent.com',
  YOUTUBE_CLIENT_SECRET: 'yt-secret',
  TIKTOK_CLIENT_KEY: 'tt-client-key',
  TIKTOK_CLIENT_SECRET: 'tt-secret',
  TOKEN_ENCRYPTION_KEY: `k2:${'ab'.repeat(32)}`,
  TIKTOK_POLL_INTERVAL_MS: '20',
};

export type FormBody = Record<string, string>;

/** nock 15 hands a reply function the intercepted fetch Request. */
export const formOf = async (request: Request): Promise<FormBody> => Object.fromEntries(new URLSearchParams(await request.text()));
/** The request's headers, and the byte length of its body as `x-received-bytes`. */
export const headersOf = (request: Request): Record<string, string> => Object.fromEntries(request.headers);

/** Connects `platform` for the client through the real routes: the authorization redirect, then the callback with `code`. */
export async function connect(client: TestClient, platform: 'youtube' | 'tiktok', code = `code-${platform}`) {
  const start = await client.get(`/connect/${platform}`);
  if (start.status !== 302) throw new Error(`connect ${platform}: ${start.status} ${JSON.stringify(start.body)}`);
  const authorization = new URL(start.headers.get('location')!);
  const state = authorization.searchParams.get('state')!;
  const callback = await client.get(`/connect/${platform}/callback?state=${encodeURIComponent(state)}&code=${code}`);
  return { authorization, state, callback, landing: callback.headers.get('location') ?? '' };
}

/** Google's token endpoint answering one authorization-code exchange; checks the PKCE verifier against the challenge. */
export function googleTokenExchange(tokens: { access: string; refresh: string; expiresIn?: number }, challenge?: () => string | null) {
  const seen: FormBody[] = [];
  const scope = nock(GOOGLE_OAUTH)
    .post('/token', (body: FormBody) => body.grant_type === 'authorization_code')
    .reply(async (request: Request) => {
      const body = await formOf(request);
      const form = body;
      seen.push(form);
      const expected = challenge?.();
      if (expected && createHash('sha256').update(form.code_verifier ?? '').digest('base64url') !== expected) return [400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' }];
      return [200, { access_token: tokens.access, refresh_token: tokens.refresh, expires_in: tokens.expiresIn ?? 3599, scope: 'https://www.googleapis.com/auth/youtube.upload', token_type: 'Bearer' }];
    });
  return { scope, seen };
}

export function tiktokTokenExchange(tokens: { access: string; refresh: string; expiresIn?: number }) {
  return nock(TIKTOK_API)
    .post('/v2/oauth/token/', (body: FormBody) => body.grant_type === 'authorization_code' && body.client_key === SOCIAL_ENV.TIKTOK_CLIENT_KEY && body.client_secret === SOCIAL_ENV.TIKTOK_CLIENT_SECRET)
    .reply(200, {
      access_token: tokens.access,
      expires_in: tokens.expiresIn ?? 86400,
      open_id: 'open-id-1',
      refresh_expires_in: 31536000,
      refresh_token: tokens.refresh,
      scope: 'user.info.basic,video.publish',
      token_type: 'Bearer',
    });
}

/** A resumable session: the initiation answers this session URI. */
export const sessionUri = (id: string) => `${GOOGLE_APIS}${UPLOAD_PATH}?uploadType=resumable&upload_id=${id}`;

export function youtubeInitiation(id: string, options: { token?: string; metadata?: (body: any) => boolean } = {}) {
  return nock(GOOGLE_APIS, { reqheaders: { authorization: `Bearer ${options.token ?? 'ya29.access-1'}` } })
    .post(UPLOAD_PATH, (body) => options.metadata?.(body) ?? true)
    .query({ uploadType: 'resumable', part: 'snippet,status' })
    .reply(200, '', { Location: sessionUri(id) });
}

/** The PUT of the file to a session: answers the created video. */
export function youtubeUpload(id: string, videoId: string, seen: Record<string, string>[] = []) {
  return nock(GOOGLE_APIS)
    .put(UPLOAD_PATH)
    .query({ uploadType: 'resumable', upload_id: id })
    .reply(async (request: Request) => {
      seen.push(headersOf(request));
      return [201, youtubeVideo(videoId)];
    });
}

export const youtubeVideo = (videoId: string) => ({ kind: 'youtube#video', id: videoId, snippet: {}, status: { uploadStatus: 'uploaded', privacyStatus: 'private' } });

export const YOUTUBE_SCOPE_FOR_TESTS = 'https://www.googleapis.com/auth/youtube.upload';

/** The ten bytes `0123456789` as a video to publish, read from any offset; refs the adapter saves go into `refs`. */
export const TEN_BYTES = Buffer.from('0123456789');
export const tenBytePublishRequest = (refs: string[], overrides: Partial<PublishRequest> = {}): PublishRequest => ({
  accessToken: 'secret-token',
  file: {
    sizeBytes: TEN_BYTES.length,
    contentType: 'video/mp4',
    fileName: 'a.mp4',
    read: async (start) =>
      (async function* () {
        yield TEN_BYTES.subarray(start);
      })(),
  },
  title: 'T',
  description: '',
  privacy: 'private',
  remoteRef: null,
  saveRemoteRef: async (ref) => void refs.push(ref),
  ...overrides,
});
/** A PlatformError's kind (undefined for anything else). */
export const errorKind = (error: unknown) => (error as { kind?: string } | undefined)?.kind;
/** YouTube's resumable upload, as nock scopes: the start of a session, one request into session `id`, a saved session. */
export const youtubeStart = () => nock(GOOGLE_APIS).post(UPLOAD_PATH).query({ uploadType: 'resumable', part: 'snippet,status' });
export const youtubeSession = (id: string) => nock(GOOGLE_APIS).put(UPLOAD_PATH).query({ uploadType: 'resumable', upload_id: id });
export const savedYoutubeSession = (id: string) => JSON.stringify({ session: sessionUri(id) });
