import type { Mutation } from '../mutation.ts';

const AUTHENTICATE = 'core/use-cases/api-keys/authenticate-api-key.use-case.ts';
const MIDDLEWARE = 'adapters/http/auth-middleware.ts';
const UNIT = 'tests/unit/api-keys.test.ts';
const HTTP = 'tests/integration/api-keys.test.ts';
const CONTRACT = 'tests/contract/api-key-repository.test.ts';

/** The guards of API keys (ADR 035): each one gone must turn its tests red. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'api keys: a key works on routes outside its scopes',
    file: MIDDLEWARE,
    find: 'if (!outcome.key.scopes.includes(keyScope)) throw',
    replace: 'if (false) throw',
    tests: [HTTP],
  },
  {
    name: 'api keys: session-only routes (key management, logout) accept keys',
    file: MIDDLEWARE,
    find: "if (keyScope === null) throw new HttpError(403, 'This route does not accept API keys",
    replace: "if (false) throw new HttpError(403, 'This route does not accept API keys",
    tests: [HTTP],
  },
  {
    name: 'api keys: a route not in the scope table accepts keys of any scope',
    file: 'adapters/http/api-key-scopes.ts',
    find: "return KEY_SCOPES[`${route.method} ${route.path}`] ?? null;",
    replace: "return KEY_SCOPES[`${route.method} ${route.path}`] ?? 'generate';",
    tests: [HTTP],
  },
  {
    name: 'api keys: a revoked key still authenticates',
    file: AUTHENTICATE,
    find: "if (key.revokedAt !== null) return refused('API key has been revoked');",
    replace: "if (false) return refused('API key has been revoked');",
    tests: [UNIT, HTTP],
  },
  {
    name: 'api keys: an expired key still authenticates',
    file: AUTHENTICATE,
    find: 'if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime())',
    replace: 'if (false && key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime())',
    tests: [UNIT, HTTP],
  },
  {
    name: 'api keys: a key is still good at the instant it expires',
    file: AUTHENTICATE,
    find: 'key.expiresAt.getTime() <= now.getTime()',
    replace: 'key.expiresAt.getTime() < now.getTime()',
    tests: [UNIT],
  },
  {
    name: "api keys: a key whose user is gone still authenticates",
    file: AUTHENTICATE,
    find: "if (!user) return refused('API key is invalid');",
    replace: 'if (false) return refused(\'API key is invalid\');',
    tests: [UNIT],
  },
  {
    name: 'api keys: a demoted administrator keeps the admin scope',
    file: 'core/domain/api-key.ts',
    find: "key.scopes.filter((scope) => scope !== 'admin' || role === 'admin')",
    replace: 'key.scopes.filter(() => true)',
    tests: [UNIT, HTTP],
  },
  {
    name: 'api keys: the secret is not compared (any secret behind a known prefix passes)',
    file: AUTHENTICATE,
    find: "if (!key || !sameDigest(key.secretHash, tokens.hashOpaqueToken(presented)))",
    replace: 'if (!key)',
    tests: [UNIT, HTTP],
  },
  {
    name: 'api keys: the digest comparison ignores differences',
    file: 'core/domain/api-key.ts',
    find: 'return difference === 0;',
    replace: 'return difference === difference;',
    tests: [UNIT, HTTP],
  },
  {
    name: 'api keys: one request past the per-key rate limit is let through',
    file: AUTHENTICATE,
    find: 'if (hits.count > this.deps.requestsPerMinute) {',
    replace: 'if (hits.count > this.deps.requestsPerMinute + 1) {',
    tests: [UNIT, HTTP],
  },
  {
    name: 'api keys: a non-administrator mints an admin key',
    file: 'core/use-cases/api-keys/create-api-key.use-case.ts',
    find: "if (checked.value.scopes.includes('admin') && input.user.role !== 'admin') {",
    replace: 'if (false) {',
    tests: [UNIT, HTTP],
  },
  {
    name: "api keys: revoking someone else's key (memory and SQL)",
    file: 'adapters/memory/memory-api-key-repository.ts',
    find: 'if (!key || key.userId !== userId || key.revokedAt !== null) return null;',
    replace: 'if (!key || key.revokedAt !== null) return null;',
    also: [
      {
        file: 'adapters/sequelize/sequelize-api-key-repository.ts',
        find: 'WHERE id = ? AND user_id = ? AND revoked_at IS NULL',
        replace: 'WHERE id = ? AND (user_id = ? OR 1 = 1) AND revoked_at IS NULL',
      },
    ],
    tests: [CONTRACT, UNIT, HTTP],
  },
  {
    name: 'api keys: the last use is written on every request (both once-a-minute guards gone)',
    file: AUTHENTICATE,
    find: 'if (key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {',
    replace: 'if (true) {',
    also: [
      { file: 'adapters/memory/memory-api-key-repository.ts', find: 'if (!key || (key.lastUsedAt !== null && key.lastUsedAt.getTime() >= notBefore.getTime())) return;', replace: 'if (!key) return;' },
      { file: 'adapters/sequelize/sequelize-api-key-repository.ts', find: 'AND (last_used_at IS NULL OR last_used_at < ?)', replace: 'AND (last_used_at IS NULL OR last_used_at < ? OR 1 = 1)' },
    ],
    tests: [UNIT, CONTRACT],
  },
  {
    name: 'api key sockets: a key without the generate scope opens a WebSocket',
    file: 'core/use-cases/api-keys/authenticate-socket.use-case.ts',
    find: "if (!outcome?.ok || !outcome.key.scopes.includes('generate')) return null;",
    replace: 'if (!outcome?.ok) return null;',
    tests: [HTTP],
  },
  {
    name: 'api key sockets: revoking a key leaves its sockets open',
    file: 'core/use-cases/api-keys/manage-api-keys.use-case.ts',
    find: '    await this.deps.revocations.keyRevoked(input.userId, revoked.id);\n',
    replace: '',
    tests: [UNIT, HTTP],
  },
  {
    name: "api key sockets: the revocation names the key, not the key's login",
    file: 'core/use-cases/auth/session-revocations.service.ts',
    find: 'sessionId: apiKeySessionId(keyId) });',
    replace: 'sessionId: keyId });',
    tests: [HTTP],
  },
];
