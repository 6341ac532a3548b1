import type { Mutation } from '../mutation.ts';

/** Guards of authentication and sessions; every name starts with "auth:" so `npm run mutation -- auth:` runs just these. */
export const MUTATIONS: Mutation[] = [
  {
    name: 'auth: an expired refresh token still rotates',
    file: 'core/use-cases/auth/refresh-session.use-case.ts',
    find: '    if (session.expiresAt.getTime() <= now.getTime()) return unauthenticated;\n',
    replace: '',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: "auth: in-band socket auth accepts another user's token",
    file: 'adapters/ws/ws-gateway.ts',
    find: 'if (!claims || claims.userId !== client.userId) return',
    replace: 'if (!claims) return',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'auth: a revoked session closes every socket of its user, not only its own',
    file: 'adapters/ws/ws-gateway.ts',
    find: '      if (client.sessionId === notice.sessionId) {',
    replace: '      if (client.userId === notice.userId) {',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'auth: an access token without a session id (sid) is judged by its user alone',
    file: 'core/use-cases/auth/authenticate.use-case.ts',
    find: 'if (!claims || claims.sessionId === null) return null;',
    replace: 'if (!claims) return null;',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: "auth: logout with another login's refresh cookie leaves the access token's login alive",
    file: 'core/use-cases/auth/logout-user.use-case.ts',
    find: `    await revocations.revokeFamily(input.userId, input.sessionId);
    if (session && session.userId === input.userId && session.familyId !== input.sessionId) {
      await revocations.revokeFamily(input.userId, session.familyId);
    }
`,
    replace: '    await revocations.revokeFamily(input.userId, session && session.userId === input.userId ? session.familyId : input.sessionId);\n',
    tests: ['tests/integration/session-guards.test.ts'],
  },
  {
    name: 'XSRF token: the pool hands out the same bytes again',
    file: 'adapters/http/cookies.ts',
    find: '  xsrfPoolOffset += XSRF_TOKEN_BYTES;\n',
    replace: '',
    tests: ['tests/unit/xsrf-token.test.ts'],
  },
  {
    name: 'XSRF token: the pool is never refilled',
    file: 'adapters/http/cookies.ts',
    find: '  if (xsrfPoolOffset + XSRF_TOKEN_BYTES > xsrfPool.length) {',
    replace: '  if (xsrfPool.length === 0) {',
    tests: ['tests/unit/xsrf-token.test.ts'],
  },
];
