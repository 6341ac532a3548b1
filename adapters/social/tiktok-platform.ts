import { Readable } from 'node:stream';
import type { PublicationPrivacy } from '../../core/domain/social.ts';
import { PlatformError, type AuthorizationStart, type PlatformTokens, type PublishRequest, type SocialPlatformClient } from '../../core/ports/social-platform.port.ts';
import { authorizationSecrets, errorText, failure, formBody, jsonBody, parseJson, platformRequest, tokensOf, type PlatformResponse } from './platform-http.ts';

export const TIKTOK_AUTHORIZE_URL = 'https://www.tiktok.com/v2/auth/authorize/';
export const TIKTOK_API = 'https://open.tiktokapis.com';
export const TIKTOK_SCOPE = 'user.info.basic,video.publish';

export interface TikTokOptions {
  clientKey: string;
  clientSecret: string;
  timeoutMs: number;
  /** Between two looks at a post TikTok is processing. */
  pollIntervalMs: number;
  /** How long one attempt waits for TikTok to finish a post before leaving it to a retry (which resumes). */
  pollTimeoutMs: number;
}

const MIB = 1024 * 1024;
/** TikTok's chunk rules: one chunk up to 64 MiB; larger files in chunks of 5–64 MiB, the last one holding the rest. */
const WHOLE_FILE_LIMIT = 64 * MIB;
const CHUNK = 10 * MIB;

const PRIVACY: Record<PublicationPrivacy, string | null> = { private: 'SELF_ONLY', public: 'PUBLIC_TO_EVERYONE', unlisted: null };

interface TikTokRef {
  publishId: string;
  uploadUrl: string;
}

/**
 * TikTok through Login Kit (authorization code; TikTok's web flow has no PKCE, the single-use state bound to
 * the user is the defence) and the Content Posting API's Direct Post: creator info, init with FILE_UPLOAD,
 * the file in chunks to the upload URL, then the publish status until TikTok has posted it. The publish id
 * is saved before the first byte goes out; a later attempt asks TikTok where that post stands and never
 * initialises a second one unless TikTok reports the first as failed.
 */
export class TikTokPlatform implements SocialPlatformClient {
  readonly platform = 'TIKTOK' as const;

  constructor(private readonly options: TikTokOptions) {}

  begin(input: { redirectUri: string }): AuthorizationStart {
    const { state } = authorizationSecrets(false);
    const url = new URL(TIKTOK_AUTHORIZE_URL);
    url.search = new URLSearchParams({ client_key: this.options.clientKey, scope: TIKTOK_SCOPE, response_type: 'code', redirect_uri: input.redirectUri, state }).toString();
    return { url: url.toString(), state, codeVerifier: null };
  }

  async exchangeCode(input: { code: string; redirectUri: string }): Promise<PlatformTokens> {
    return this.token({ grant_type: 'authorization_code', code: input.code, redirect_uri: input.redirectUri }, 'TikTok token exchange');
  }

  async refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'TikTok token refresh');
  }

  async revoke(token: string): Promise<void> {
    const form = formBody({ client_key: this.options.clientKey, client_secret: this.options.clientSecret, token });
    const response = await platformRequest(`${TIKTOK_API}/v2/oauth/revoke/`, { method: 'POST', headers: form.headers, body: form.body, idleTimeoutMs: this.options.timeoutMs });
    if (response.status !== 200 || typeof parseJson(response).error === 'string') throw failure(response, 'TikTok token revocation');
  }

  async publish(request: PublishRequest): Promise<{ url: string | null }> {
    let ref = request.remoteRef ? (JSON.parse(request.remoteRef) as TikTokRef) : null;
    if (ref) {
      const status = await this.status(ref, request);
      if (status.kind === 'done') return { url: status.url };
      if (status.kind === 'processing') return this.awaitPost(ref, request);
      // 'failed': TikTok posted nothing from it. 'upload': the file never arrived completely: send it again,
      // unless the upload URL has expired (an hour): then that post can never complete, and a new one starts.
      if (status.kind === 'failed') ref = null;
      else {
        const sent = await this.upload(ref, request).then(
          () => true,
          (error: unknown) => {
            if (error instanceof PlatformError && error.kind === 'rejected') return false;
            throw error;
          },
        );
        if (sent) return this.awaitPost(ref, request);
        ref = null;
      }
    }
    const fresh = await this.init(request);
    await request.saveRemoteRef(JSON.stringify(fresh));
    await this.upload(fresh, request);
    return this.awaitPost(fresh, request);
  }

  private async token(fields: Record<string, string>, what: string): Promise<PlatformTokens> {
    const form = formBody({ ...fields, client_key: this.options.clientKey, client_secret: this.options.clientSecret });
    const response = await platformRequest(`${TIKTOK_API}/v2/oauth/token/`, { method: 'POST', headers: form.headers, body: form.body, idleTimeoutMs: this.options.timeoutMs });
    const json = parseJson(response);
    // TikTok answers some OAuth errors with 200 and an `error` field.
    if (response.status !== 200 || typeof json.error === 'string') {
      if (json.error === 'invalid_grant') throw new PlatformError('unauthorized', `${what}: ${errorText(response)}`);
      throw failure({ ...response, status: response.status === 200 ? 400 : response.status }, what);
    }
    return tokensOf(json, what);
  }

  /** POST to the Content Posting API; its answers carry `error.code` (`ok` on success) beside `data`. */
  private async call(path: string, request: PublishRequest, body: unknown, what: string): Promise<Record<string, unknown> & { raw?: string }> {
    const json = jsonBody(body);
    const response = await platformRequest(`${TIKTOK_API}${path}`, {
      method: 'POST',
      headers: { ...json.headers, authorization: `Bearer ${request.accessToken}` },
      body: json.body,
      idleTimeoutMs: this.options.timeoutMs,
    });
    const answer = parseJson(response);
    const code = (answer.error as { code?: unknown } | undefined)?.code;
    if (response.status === 200 && (code === 'ok' || code === undefined)) return { ...((answer.data as Record<string, unknown> | undefined) ?? {}), raw: response.text };
    throw this.apiFailure(response, String(code ?? ''), what);
  }

  private apiFailure(response: PlatformResponse, code: string, what: string): PlatformError {
    const text = `${what}: ${errorText(response)}`;
    if (code === 'access_token_invalid' || code === 'scope_not_authorized' || response.status === 401) return new PlatformError('unauthorized', text);
    if (code === 'rate_limit_exceeded' || code === 'internal_error' || response.status === 429 || response.status >= 500) return new PlatformError('transient', text);
    return new PlatformError('rejected', text);
  }

  private async init(request: PublishRequest): Promise<TikTokRef> {
    const privacy = PRIVACY[request.privacy];
    if (!privacy) throw new PlatformError('rejected', `TikTok has no ${request.privacy} posts`);
    const creator = await this.call('/v2/post/publish/creator_info/query/', request, {}, 'TikTok creator info');
    const allowed = Array.isArray(creator.privacy_level_options) ? (creator.privacy_level_options as unknown[]) : [];
    if (!allowed.includes(privacy)) throw new PlatformError('rejected', `this TikTok account cannot post with privacy ${privacy} (it allows ${allowed.join(', ') || 'none'})`);
    const size = request.file.sizeBytes;
    const chunkSize = size <= WHOLE_FILE_LIMIT ? size : CHUNK;
    const data = await this.call(
      '/v2/post/publish/video/init/',
      request,
      {
        post_info: { title: [request.title, request.description].filter(Boolean).join('\n\n').slice(0, 2200), privacy_level: privacy, disable_comment: false, disable_duet: false, disable_stitch: false },
        source_info: { source: 'FILE_UPLOAD', video_size: size, chunk_size: chunkSize, total_chunk_count: Math.floor(size / chunkSize) },
      },
      'TikTok post init',
    );
    if (typeof data.publish_id !== 'string' || typeof data.upload_url !== 'string') throw new PlatformError('transient', 'TikTok post init: no publish id or upload URL in the answer');
    return { publishId: data.publish_id, uploadUrl: data.upload_url };
  }

  /** Sends the whole file, chunk by chunk, in order (TikTok has no "where did it stop" for a file upload). */
  private async upload(ref: TikTokRef, request: PublishRequest): Promise<void> {
    const size = request.file.sizeBytes;
    const chunkSize = size <= WHOLE_FILE_LIMIT ? size : CHUNK;
    const count = Math.floor(size / chunkSize);
    for (let index = 0; index < count; index += 1) {
      const start = index * chunkSize;
      const end = index === count - 1 ? size - 1 : start + chunkSize - 1;
      const stream = await request.file.read(start);
      const response = await platformRequest(ref.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': request.file.contentType, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}` },
        body: limit(stream, end - start + 1),
        idleTimeoutMs: this.options.timeoutMs,
      });
      if (response.status !== 201 && response.status !== 206 && response.status !== 200) {
        throw failure(response, 'TikTok file upload');
      }
    }
  }

  private async status(ref: TikTokRef, request: PublishRequest): Promise<{ kind: 'done'; url: string | null } | { kind: 'processing' } | { kind: 'upload' } | { kind: 'failed'; reason: string }> {
    const data = await this.call('/v2/post/publish/status/fetch/', request, { publish_id: ref.publishId }, 'TikTok post status');
    switch (data.status) {
      case 'PUBLISH_COMPLETE': {
        // TikTok's field name, misspelt as it is: empty for a private post. The ids are 64-bit integers, beyond
        // what a JSON number keeps exactly: read from the text.
        const id = /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(data.raw ?? '')?.[1];
        return { kind: 'done', url: id === undefined ? null : `https://www.tiktok.com/player/v1/${id}` };
      }
      case 'FAILED':
        return { kind: 'failed', reason: typeof data.fail_reason === 'string' ? data.fail_reason : 'unknown' };
      case 'PROCESSING_UPLOAD':
        return { kind: 'upload' };
      default:
        return { kind: 'processing' };
    }
  }

  private async awaitPost(ref: TikTokRef, request: PublishRequest): Promise<{ url: string | null }> {
    const deadline = Date.now() + this.options.pollTimeoutMs;
    for (;;) {
      const status = await this.status(ref, request);
      if (status.kind === 'done') return { url: status.url };
      if (status.kind === 'failed') throw new PlatformError('rejected', `TikTok did not post the video: ${status.reason}`);
      if (Date.now() >= deadline) throw new PlatformError('transient', 'TikTok is still processing the post');
      await new Promise((resolve) => setTimeout(resolve, this.options.pollIntervalMs));
    }
  }
}

/** The first `bytes` of a stream, then end (one chunk of the file); the source is closed when done. */
function limit(stream: AsyncIterable<Uint8Array>, bytes: number): Readable {
  async function* firstBytes(): AsyncGenerator<Uint8Array> {
    let left = bytes;
    try {
      for await (const chunk of stream) {
        const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
        left -= part.length;
        yield part;
        if (left <= 0) break;
      }
    } finally {
      (stream as { destroy?: () => void }).destroy?.();
    }
  }
  return Readable.from(firstBytes());
}
