import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guards of publishing an output to a social platform: the publish request (request-publication), the
 * worker's publish handler and its dead-letter handler (run-publication), and the YouTube and TikTok
 * adapters (how each platform's answers are judged). Entries on the same files in
 * social.mutations.ts are not repeated here.
 */
const TESTS = ['tests/integration/social-publishing.test.ts'];
const run = entriesOn('social publishing', 'core/use-cases/social/run-publication.use-case.ts', TESTS);
const request = entriesOn('social publishing', 'core/use-cases/social/request-publication.use-case.ts', TESTS);
const PLATFORM_TESTS = ['tests/unit/social-platform-guards.test.ts'];
const youtube = entriesOn('social publishing', 'adapters/social/youtube-platform.ts', PLATFORM_TESTS);
const tiktok = entriesOn('social publishing', 'adapters/social/tiktok-platform.ts', PLATFORM_TESTS);

export const MUTATIONS: Mutation[] = [
  // core/use-cases/social/run-publication.use-case.ts
  run('a message that is no publish body crashes the handler instead of going to the dead letters', "    if (!target) return { action: 'dead', reason: 'not a publish message body' };", "    if ((false as boolean)) return { action: 'dead', reason: 'not a publish message body' };"),
  run('the dead letter of a message that is no publish body crashes', 'if (!target) return;\n    const item', 'if ((false as boolean)) return;\n    const item'),
  run('the dead letter of a publication whose output is gone crashes', '    if (!item) return;\n', '    if ((false as boolean)) return;\n'),
  run('a publication whose output is gone is retried until it fails', '    if (!item) {\n      // The output was deleted', '    if ((false as boolean)) {\n      // The output was deleted'),
  run('a worker that lost its attempt is retried instead of stopping', "if (error instanceof AttemptLost) return { action: 'ack' };", "if ((false as boolean)) return { action: 'ack' };"),
  run('a file gone when its reading starts is retried and fails on a TypeError', "if (!object) throw new PlatformError('rejected', 'the output file is no longer stored');", "if ((false as boolean)) throw new PlatformError('rejected', 'the output file is no longer stored');"),
  run('a resumed upload sends the whole chunks before its offset (a corrupt video)', 'if (skip >= chunk.length) {', 'if ((false as boolean)) {'),
  run('a tiny visibility timeout turns the heartbeat into a busy loop', 'Math.max(1000, (deps.visibilitySeconds * 1000) / 3)', '(deps.visibilitySeconds * 1000) / 3'),
  run('the worker posts an attempt that ended between its read and its start', "if (!(await deps.publications.begin(target.outputId, target.platform, target.attemptId, deps.clock.now()))) return { action: 'ack' };", 'await deps.publications.begin(target.outputId, target.platform, target.attemptId, deps.clock.now());'),
  run('the publications view shows "url": null before a publication is published', '...(publication.url ? { url: publication.url } : {}),', 'url: publication.url,'),
  run('the heartbeat of a finished publication keeps extending its message forever', '      clearInterval(heartbeat);\n', ''),
  run('a heartbeat the queue refuses is an unhandled rejection (the worker process ends)', '() => void message.extendVisibility(deps.visibilitySeconds).catch((error: unknown) => deps.logger.warn(\'publish heartbeat: visibility not extended\', { outputId: target.outputId, error: String(error) })),', '() => void message.extendVisibility(deps.visibilitySeconds),'),
  // core/use-cases/social/request-publication.use-case.ts
  request('a publish body of null crashes the request', "typeof body === 'object' && body !== null ? body : {}", "typeof body === 'object' ? body : {}"),
  request('a publish without a body crashes the request', "typeof body === 'object' && body !== null ? body : {}", "body !== null ? body : {}"),
  request('a null title or description is refused as not a string', 'if (value === undefined || value === null) return null;', 'if (value === undefined) return null;'),
  request('a platform named twice answers that it has started and is already in progress', 'else if (!chosen.includes(platform)) chosen.push(platform);', 'else chosen.push(platform);'),
  request('a repeated request answers "Publishing to  has started" for nothing started', 'outcome.started.length > 0 ? `Publishing to', 'true ? `Publishing to'),
  request('a file named only by its extension gets an empty title', "(fileName.replace(/\\.[^.]+$/, '') || 'Untitled')", "(fileName.replace(/\\.[^.]+$/, ''))"),
  request('a long file name gives a default title over the platforms\' limit', ".slice(0, MAX_TITLE_CHARS);\n\n/**", ';\n\n/**'),
  request('a title or description over its limit is taken', 'else if (value.length > max) problems.push', 'else if ((false as boolean)) problems.push'),
  request('an unknown privacy is taken', 'if (!PUBLICATION_PRIVACIES.includes(value.privacy as PublicationPrivacy)) problems.push', 'if ((false as boolean)) problems.push'),
  request('an unlisted TikTok post is taken (TikTok has none)', "if (privacy === 'unlisted' && chosen.includes('TIKTOK')) problems.push", 'if ((false as boolean)) problems.push'),
  // adapters/social/youtube-platform.ts
  youtube('YouTube takes an upload answered 308 (send the rest) for the finished video', 'if (response === null || response.status === 308) continue;', 'if (response === null) continue;'),
  youtube('YouTube resumes an upload the platform refused, losing its reason', "if (error instanceof PlatformError && error.kind === 'transient') return null;", 'if (error instanceof PlatformError) return null;'),
  youtube('a YouTube session gone mid-upload fails the publication instead of starting a new session', "    if (response.status === 404 || response.status === 410) throw new PlatformError('transient', 'YouTube upload session expired mid-upload');\n", ''),
  youtube('a YouTube session answering 410 mid-upload fails the publication', "if (response.status === 404 || response.status === 410) throw new PlatformError('transient'", "if (response.status === 404) throw new PlatformError('transient'"),
  youtube('a saved YouTube session answering 410 fails the publication instead of starting a new session', "if (response.status === 404 || response.status === 410) return { kind: 'expired' };", "if (response.status === 404) return { kind: 'expired' };"),
  youtube('a saved YouTube session answering 201 (the finished video) fails the publication', "if (response.status === 200 || response.status === 201) return { kind: 'done'", "if (response.status === 200) return { kind: 'done'"),
  youtube('a YouTube answer with an empty video id is published as a link to nothing', "if (typeof id !== 'string' || id.length === 0) throw", "if (typeof id !== 'string') throw"),
  youtube('a YouTube answer with a video id that is no text is published as a link', "if (typeof id !== 'string' || id.length === 0) throw", 'if (id === undefined || id === \'\') throw'),
  youtube('a YouTube initiation answered by a redirect is taken as the upload session', "if (response.status !== 200 || typeof location !== 'string'", "if (typeof location !== 'string'"),
  youtube('a YouTube initiation without a Location crashes on it', "response.status !== 200 || typeof location !== 'string' || !location", 'response.status !== 200 || !location'),
  youtube('a YouTube revocation of a token already invalid is reported as a failure', 'if (response.status !== 200 && response.status !== 400) throw', 'if (response.status !== 200) throw'),
  youtube('a failed YouTube revocation is reported as done', 'if (response.status !== 200 && response.status !== 400) throw', 'if ((false as boolean)) throw'),
  // adapters/social/tiktok-platform.ts
  tiktok('TikTok starts a second post when sending a saved post\'s file fails for a moment', "if (error instanceof PlatformError && error.kind === 'rejected') return false;", 'if (error instanceof PlatformError) return false;'),
  tiktok('a TikTok post that fails while awaited is polled to the deadline and retried', "      if (status.kind === 'failed') throw new PlatformError('rejected', `TikTok did not post the video: ${status.reason}`);\n", ''),
  tiktok('a TikTok failure without a reason reads "undefined"', "typeof data.fail_reason === 'string' ? data.fail_reason : 'unknown'", 'String(data.fail_reason)'),
  tiktok('a TikTok init answer without a publish id is saved and uploaded to', "if (typeof data.publish_id !== 'string' || typeof data.upload_url !== 'string') throw", "if (typeof data.upload_url !== 'string') throw"),
  tiktok('a TikTok init answer without an upload URL is saved and uploaded to', "if (typeof data.publish_id !== 'string' || typeof data.upload_url !== 'string') throw", "if (typeof data.publish_id !== 'string') throw"),
  tiktok('TikTok creator info without privacy options crashes the post', 'Array.isArray(creator.privacy_level_options) ? (creator.privacy_level_options as unknown[]) : []', '(creator.privacy_level_options as unknown[])'),
  tiktok('a TikTok caption over 2200 characters is sent whole (TikTok refuses it)', ".join('\\n\\n').slice(0, 2200)", ".join('\\n\\n')"),
  tiktok('a TikTok file upload answered 200 fails', 'response.status !== 201 && response.status !== 206 && response.status !== 200', 'response.status !== 201 && response.status !== 206'),
  tiktok('a TikTok file upload that failed is taken as received', 'if (response.status !== 201 && response.status !== 206 && response.status !== 200) {', 'if ((false as boolean)) {'),
  tiktok('a TikTok access_token_invalid under another status is no reason to refresh and connect again', "code === 'access_token_invalid' || ", ''),
  tiktok('a TikTok scope_not_authorized is no reason to connect again', "code === 'scope_not_authorized' || ", ''),
  tiktok('a TikTok 401 is no reason to refresh and connect again', " || response.status === 401) return new PlatformError('unauthorized'", ") return new PlatformError('unauthorized'"),
  tiktok('a TikTok rate_limit_exceeded under another status is refused for good', "code === 'rate_limit_exceeded' || ", ''),
  tiktok('a TikTok internal_error under another status is refused for good', "code === 'internal_error' || ", ''),
  tiktok('a TikTok 429 is refused for good', ' || response.status === 429 || response.status >= 500) return', ' || response.status >= 500) return'),
  tiktok('a TikTok 5xx is refused for good', ' || response.status === 429 || response.status >= 500) return', ' || response.status === 429) return'),
  tiktok('a TikTok answer without an error object is taken for a failure', "(code === 'ok' || code === undefined)", "code === 'ok'"),
  tiktok('a TikTok token endpoint outage is read as an answer without a token (refused for good)', "if (response.status !== 200 || typeof json.error === 'string') {", "if (typeof json.error === 'string') {"),
  tiktok('a TikTok revocation refused in a 200 answer is reported as done', "if (response.status !== 200 || typeof parseJson(response).error === 'string') throw", 'if (response.status !== 200) throw'),
  tiktok('a TikTok outage answered without its JSON is a success with no data', "if (response.status === 200 && (code === 'ok' || code === undefined))", "if ((code === 'ok' || code === undefined))"),
  tiktok('a TikTok chunk read in straddling pieces carries more than its range', 'const part = chunk.length > left ? chunk.subarray(0, left) : chunk;', 'const part = chunk;'),
  tiktok('every TikTok chunk reads the file to its end', '        if (left <= 0) break;\n', ''),
];
