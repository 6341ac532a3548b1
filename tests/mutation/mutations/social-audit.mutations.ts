import { entriesOn, type Mutation } from '../mutation.ts';

/**
 * Guard audit of the token cipher, ConnectionTokens and the publish request: guards that auth.mutations.ts,
 * social.mutations.ts and social-publishing.mutations.ts did not list. Tests: tests/unit/token-cipher-audit.test.ts,
 * tests/integration/social-audit.test.ts and tests/unit/youtube-audit.test.ts.
 */
const UNIT = ['tests/unit/token-cipher-audit.test.ts'];
const cipher = entriesOn('social audit', 'adapters/crypto/aes-gcm-token-cipher.ts', UNIT);
const tokens = entriesOn('social audit', 'core/use-cases/social/connection-tokens.service.ts', UNIT);
const youtube = entriesOn('social audit youtube', 'adapters/social/youtube-platform.ts', ['tests/unit/youtube-audit.test.ts']);
const request = entriesOn('social audit publish', 'core/use-cases/social/request-publication.use-case.ts', ['tests/integration/social-audit.test.ts']);

export const MUTATIONS: Mutation[] = [
  // adapters/crypto/aes-gcm-token-cipher.ts
  cipher('a tampered ciphertext or a wrong key decrypts (GCM tag never checked)', 'decipher.update(Buffer.from(parts[4]!, \'base64url\')), decipher.final()]', 'decipher.update(Buffer.from(parts[4]!, \'base64url\'))]'),
  cipher('a token copied to another user or field opens there (no additional authenticated data)', "    cipher.setAAD(Buffer.from(context, 'utf8'));\n", '', [
    { file: 'adapters/crypto/aes-gcm-token-cipher.ts', find: "    decipher.setAAD(Buffer.from(context, 'utf8'));\n", replace: '' },
  ]),
  cipher('after a key rotation the oldest key keeps sealing', 'const { id, key } = this.keys[0]!;', 'const { id, key } = this.keys[this.keys.length - 1]!;'),
  cipher('a token sealed with an older key is never seen as stale (rotation never finishes)', "return sealed.split('.')[1] !== this.keys[0]!.id;", 'return false;'),
  cipher('TOKEN_ENCRYPTION_KEY with an entry that is no key crashes instead of naming the entry', '    if (!key) return { problem: `entry ${index + 1} is not 32 bytes', '    if ((false as boolean)) return { problem: `entry ${index + 1} is not 32 bytes'),
  cipher('TOKEN_ENCRYPTION_KEY with a trailing comma is refused', ".map((entry) => entry.trim()).filter(Boolean);", '.map((entry) => entry.trim());'),
  cipher('TOKEN_ENCRYPTION_KEY with a space after a comma is refused', ".map((entry) => entry.trim()).filter(Boolean);", '.filter(Boolean);'),
  cipher('TOKEN_ENCRYPTION_KEY with an empty or over-long key id is accepted', 'const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;', 'const KEY_ID = /^[A-Za-z0-9_-]*$/;'),
  cipher('a derived key id changes (every token sealed before the deploy no longer opens)', ".digest('hex').slice(0, 8);", ".digest('hex').slice(0, 10);"),
  cipher('a key given as 64 hex characters is refused', "  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');\n", ''),
  // core/use-cases/social/connection-tokens.service.ts
  tokens('revocation is given the access token although there is a refresh token (the grant survives)', 'return connection.refreshToken\n        ?', 'return (false as boolean)\n        ?'),
  tokens('an expired token without a refresh token fails without telling the user to connect again', "      if (!connection.refreshToken) throw new PlatformError('unauthorized', `the ${platformName(platform)} authorization expired; connect ${platformName(platform)} again`);\n", ''),
  tokens('an expiring token of a platform no longer configured fails with a TypeError', "      if (!client) throw new PlatformError('unauthorized', `${platformName(platform)} is not configured`);\n", ''),
  tokens('a forced refresh that lost the race refreshes again with the winner\'s refresh token', '      options = {};\n', ''),
  tokens('a forced refresh that lost one race fails instead of using the winner\'s tokens', 'for (let round = 0; round < 3; round += 1) {', 'for (let round = 0; round < 1; round += 1) {'),
  tokens('a refresh without a new refresh token drops the old one (the connection dies at the next expiry)', 'const refresh = tokens.refreshToken ?? previousRefresh;', 'const refresh = tokens.refreshToken;'),
  tokens('a connection the platform gave no refresh token cannot be stored', "refreshToken: refresh === null ? null : cipher.seal(refresh, context(userId, platform, 'refresh')),", "refreshToken: cipher.seal(refresh!, context(userId, platform, 'refresh')),"),
  tokens('a connection without a refresh token fails its use once the key rotated', "const refresh = connection.refreshToken === null ? null : this.open(connection, 'refresh');", "const refresh = this.open(connection, 'refresh');"),
  tokens('an expiry is stored in milliseconds from now (the token is refreshed at every use)', 'new Date(clock.now().getTime() + tokens.expiresInSeconds * 1000)', 'new Date(clock.now().getTime() + tokens.expiresInSeconds)'),
  tokens('a token sealed again with the current key loses its expiry', '        expiresAt: connection.expiresAt,\n', '        expiresAt: null,\n'),
  {
    name: 'social audit: resealStale seals every connection again at every run, counting fresh ones as stale',
    file: 'core/use-cases/social/connection-tokens.service.ts',
    find: 'if (!cipher.isStale(connection.accessToken) && (connection.refreshToken === null || !cipher.isStale(connection.refreshToken))) continue;',
    replace: 'if ((false as boolean)) continue;',
    tests: ['tests/unit/connection-tokens.test.ts'],
  },
  tokens('a reseal the database refuses fails the token\'s use (an upload fails on a rotation)', "      .catch((error: unknown) => this.deps.logger.warn('tokens not sealed again with the current key; the next use retries', { platform: connection.platform, error: String(error) }));", ';'),
  // core/use-cases/social/request-publication.use-case.ts
  request('publishing another user\'s output crashes instead of answering NOT_FOUND', "    if (!item) return fail('NOT_FOUND', 'No such output');\n", ''),
  request('an output id in capitals answers NOT_FOUND', 'input.outputId.toLowerCase()', 'input.outputId'),
  request('a publication is recorded on the id as the client spelled it', '          outputId: item.id,\n', '          outputId: input.outputId,\n'),
  request('an image is queued for publishing to a video platform', "if (!item.mimeType.startsWith('video/')) problems.push", 'if ((false as boolean)) problems.push'),
  request('a refused request (not connected, not a video) is recorded and queued anyway', "    if (problems.length > 0) return validationFailed(problems, problems.map((problem) => problem.message).join('; '));\n", ''),
  request('a body refused by parsing crashes the request', '    if (!parsed.ok) return parsed;\n', ''),
  request('an unknown platform name is taken as a platform', 'if (!platform) problems.push({ field: `platforms[${index}]`', 'if ((false as boolean)) problems.push({ field: `platforms[${index}]`'),
  request('a publication without a privacy goes out public', "let privacy: PublicationPrivacy = 'private';", "let privacy: PublicationPrivacy = 'public';"),
  request('a given title or description is published with its surrounding spaces', 'else return value.trim();', 'else return value;'),
  request('a publication without a title is published untitled (null)', 'title: request.title || defaultTitle(item.fileName),', 'title: request.title!,'),
  request('a blank title is published as is (YouTube refuses the upload after the request was accepted)', 'title: request.title || defaultTitle(item.fileName),', 'title: request.title ?? defaultTitle(item.fileName),'),
  request('a publication without a description stores null', "text(value.description, 'description', MAX_DESCRIPTION_CHARS, problems) ?? ''", "text(value.description, 'description', MAX_DESCRIPTION_CHARS, problems)!"),
  request('a started publication is recorded but never queued (it stays pending for ever)', '        await tx.outbox.add({ id: deps.ids.newId(), createdAt: now, message: publishMessage(result.publication, deps.environment) });\n', ''),
  request('the answer starts in lower case', 'message.charAt(0).toUpperCase() + message.slice(1)', 'message'),
  // adapters/social/youtube-platform.ts
  youtube('a resumed upload sends the last byte the session holds twice (a corrupt video)', 'offset: range ? Number(range[1]) + 1 : 0', 'offset: range ? Number(range[1]) : 0'),
  youtube('a saved session holding no byte yet (308 without Range) crashes the resume', 'offset: range ? Number(range[1]) + 1 : 0', 'offset: Number(range![1]) + 1'),
  youtube('a saved session answering 200 (the video exists) fails the publication', "if (response.status === 200 || response.status === 201) return { kind: 'done'", "if (response.status === 201) return { kind: 'done'"),
  youtube('an upload answered 200 (the video exists) fails the publication', 'if (response.status === 200 || response.status === 201 || response.status === 308) return response;', 'if (response.status === 201 || response.status === 308) return response;'),
  youtube('a saved session whose status cannot be read is replaced by a second session (two videos)', "    throw failure(response, 'YouTube upload status');\n", "    return { kind: 'expired' };\n"),
  youtube('a token refresh Google refuses is read as tokens', '    if (response.status !== 200) throw failure(response, what);\n', ''),
  youtube('Google sends no refresh token after the first connection (no fresh consent asked)', "      prompt: 'consent',\n", ''),
  youtube('Google gives no refresh token (no offline access asked)', "      access_type: 'offline',\n", ''),
  youtube('the PKCE challenge is sent as plain (no S256 method)', "      code_challenge_method: 'S256',\n", ''),
];
