import { Readable } from 'node:stream';
import { PlatformError, type AuthorizationStart, type PlatformTokens, type PublishRequest, type SocialPlatformClient } from '../../core/ports/social-platform.port.ts';
import { authorizationSecrets, failure, formBody, jsonBody, parseJson, platformRequest, tokensOf, type PlatformResponse } from './platform-http.ts';

export const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const GOOGLE_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';
export const YOUTUBE_UPLOAD_URL = 'https://www.googleapis.com/upload/youtube/v3/videos';
export const YOUTUBE_SCOPE = 'https://www.googleapis.com/auth/youtube.upload';

export interface YouTubeOptions {
  clientId: string;
  clientSecret: string;
  /** Per request without progress (an upload keeps going as long as bytes flow). */
  timeoutMs: number;
}

/** Rounds of "ask where the upload stands, send the rest" within one attempt before leaving it to a retry. */
const MAX_RESUMES = 5;

/**
 * YouTube through Google's OAuth 2.0 (authorization code with PKCE, offline access for a refresh token) and
 * the YouTube Data API's resumable upload protocol. The upload session URI is saved before the first byte
 * goes out; a later attempt asks the session how many bytes it holds and sends the rest, so a worker that
 * dies mid-upload never creates a second video.
 */
export class YouTubePlatform implements SocialPlatformClient {
  readonly platform = 'YOUTUBE' as const;

  constructor(private readonly options: YouTubeOptions) {}

  begin(input: { redirectUri: string }): AuthorizationStart {
    const { state, codeVerifier, codeChallenge } = authorizationSecrets(true);
    const url = new URL(GOOGLE_AUTHORIZE_URL);
    url.search = new URLSearchParams({
      client_id: this.options.clientId,
      redirect_uri: input.redirectUri,
      response_type: 'code',
      scope: YOUTUBE_SCOPE,
      // A refresh token, and a fresh one on every consent (Google sends it only on the first otherwise).
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state,
      code_challenge: codeChallenge!,
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.toString(), state, codeVerifier };
  }

  async exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string | null }): Promise<PlatformTokens> {
    return this.token(
      {
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
      },
      'Google token exchange',
    );
  }

  async refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'Google token refresh');
  }

  async revoke(token: string): Promise<void> {
    const form = formBody({ token });
    const response = await platformRequest(GOOGLE_REVOKE_URL, { method: 'POST', headers: form.headers, body: form.body, idleTimeoutMs: this.options.timeoutMs });
    // 400 invalid_token: revoked or expired already, which is what we wanted.
    if (response.status !== 200 && response.status !== 400) throw failure(response, 'Google token revocation');
  }

  async publish(request: PublishRequest): Promise<{ url: string | null }> {
    let session = request.remoteRef ? (JSON.parse(request.remoteRef) as { session: string }).session : null;
    for (let round = 0; round < MAX_RESUMES; round += 1) {
      let offset = 0;
      if (session) {
        const state = await this.uploadState(session, request);
        if (state.kind === 'done') return { url: state.url };
        if (state.kind === 'expired') session = null;
        else offset = state.offset;
      }
      if (!session) {
        session = await this.startSession(request);
        await request.saveRemoteRef(JSON.stringify({ session }));
      }
      const response = await this.send(session, request, offset).catch((error: unknown) => {
        // The connection broke mid-upload: ask the session where it stands, then send the rest.
        if (error instanceof PlatformError && error.kind === 'transient') return null;
        throw error;
      });
      if (response === null || response.status === 308) continue;
      return { url: this.videoUrl(response) };
    }
    throw new PlatformError('transient', `YouTube upload still incomplete after ${MAX_RESUMES} resumes`);
  }

  private async token(fields: Record<string, string>, what: string): Promise<PlatformTokens> {
    const form = formBody({ ...fields, client_id: this.options.clientId, client_secret: this.options.clientSecret });
    const response = await platformRequest(GOOGLE_TOKEN_URL, { method: 'POST', headers: form.headers, body: form.body, idleTimeoutMs: this.options.timeoutMs });
    if (response.status !== 200) throw failure(response, what);
    return tokensOf(parseJson(response), what);
  }

  private async startSession(request: PublishRequest): Promise<string> {
    const metadata = jsonBody({
      snippet: { title: request.title, description: request.description, categoryId: '22' },
      status: { privacyStatus: request.privacy, selfDeclaredMadeForKids: false },
    });
    const url = `${YOUTUBE_UPLOAD_URL}?uploadType=resumable&part=snippet,status`;
    const response = await platformRequest(url, {
      method: 'POST',
      headers: {
        ...metadata.headers,
        authorization: `Bearer ${request.accessToken}`,
        'x-upload-content-length': request.file.sizeBytes,
        'x-upload-content-type': request.file.contentType,
      },
      body: metadata.body,
      idleTimeoutMs: this.options.timeoutMs,
    });
    const location = response.headers.location;
    if (response.status !== 200 || typeof location !== 'string' || !location.startsWith('https://')) throw failure(response, 'YouTube upload session');
    return location;
  }

  /** Step 4.1 of the protocol: an empty PUT with `Content-Range: bytes *\/size`. */
  private async uploadState(session: string, request: PublishRequest): Promise<{ kind: 'done'; url: string } | { kind: 'partial'; offset: number } | { kind: 'expired' }> {
    const response = await platformRequest(session, {
      method: 'PUT',
      headers: { authorization: `Bearer ${request.accessToken}`, 'content-length': 0, 'content-range': `bytes */${request.file.sizeBytes}` },
      idleTimeoutMs: this.options.timeoutMs,
    });
    if (response.status === 200 || response.status === 201) return { kind: 'done', url: this.videoUrl(response) };
    if (response.status === 308) {
      const range = /bytes=0-(\d+)/.exec(String(response.headers.range ?? ''));
      return { kind: 'partial', offset: range ? Number(range[1]) + 1 : 0 };
    }
    // An upload session lives about a week; after that it is gone, and nothing was posted from it.
    if (response.status === 404 || response.status === 410) return { kind: 'expired' };
    throw failure(response, 'YouTube upload status');
  }

  private async send(session: string, request: PublishRequest, offset: number): Promise<PlatformResponse> {
    const { file } = request;
    const last = file.sizeBytes - 1;
    const response = await platformRequest(session, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${request.accessToken}`,
        'content-type': file.contentType,
        'content-length': file.sizeBytes - offset,
        ...(offset > 0 ? { 'content-range': `bytes ${offset}-${last}/${file.sizeBytes}` } : {}),
      },
      body: Readable.from(await file.read(offset)),
      idleTimeoutMs: this.options.timeoutMs,
    });
    if (response.status === 200 || response.status === 201 || response.status === 308) return response;
    if (response.status === 404 || response.status === 410) throw new PlatformError('transient', 'YouTube upload session expired mid-upload');
    throw failure(response, 'YouTube upload');
  }

  private videoUrl(response: PlatformResponse): string {
    const id = parseJson(response).id;
    if (typeof id !== 'string' || id.length === 0) throw new PlatformError('transient', 'YouTube answered the upload without a video id');
    return `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`;
  }
}
